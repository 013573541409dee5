"""Commands that read the store: prices, history, changes and runs."""

from __future__ import annotations

import json
from decimal import Decimal
from enum import Enum
from typing import Annotated, Any

import typer
from sqlmodel import Session

from db import store
from db.schema import Change, PriceModel
from db.tables import ChangeRow, CrawlRun, PricePoint
from tracker.analytics.history import (
    SUMMARY_COLUMNS,
    history_frame,
    history_summary,
    point_record,
    records,
    resample_history,
)
from tracker.cli.output import FormatOption, OutputFormat, emit
from tracker.cli.state import parse_since, state

PRICE_COLUMNS = [
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "gpu_memory_gb",
    "vcpu",
    "memory_gb",
    "gpu_interconnect",
    "network_gbps",
    "os",
    "price_model",
    "term",
    "payment_option",
    "price",
    "currency",
    "unit",
    "list_price",
    "upfront_fee",
    "hourly_price",
    "price_per_gpu_hour",
    "gpu_bf16_tflops",
    "price_per_tflop_hour",
    "price_per_gb_vram_hour",
    "availability",
    "source_url",
    "observed_at",
    "attrs",
]
PRICE_TABLE = [
    "provider",
    "region",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "os",
    "price_model",
    "term",
    "price",
    "currency",
    "unit",
    "hourly_price",
    "price_per_gpu_hour",
]
HISTORY_COLUMNS = ["valid_from", "valid_to", *[c for c in PRICE_COLUMNS if c != "observed_at"]]
HISTORY_TABLE = [
    "valid_from",
    "valid_to",
    "provider",
    "region",
    "instance_type",
    "os",
    "price_model",
    "term",
    "price",
    "currency",
    "unit",
    "list_price",
    "availability",
]
RESAMPLE_COLUMNS = [
    "step",
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "os",
    "price_model",
    "term",
    "payment_option",
    "price",
    "currency",
    "unit",
    "hourly_price",
    "price_per_gpu_hour",
    "availability",
    "valid_from",
]
RESAMPLE_TABLE = [
    "step",
    "provider",
    "region",
    "instance_type",
    "os",
    "price_model",
    "term",
    "price",
    "currency",
    "unit",
    "valid_from",
]
SUMMARY_HISTORY_COLUMNS = [c for c in SUMMARY_COLUMNS if c != "key"]
SUMMARY_HISTORY_TABLE = [
    "provider",
    "region",
    "instance_type",
    "os",
    "price_model",
    "term",
    "currency",
    "intervals",
    "min_price",
    "max_price",
    "current_price",
    "last_change_at",
    "last_change_from",
    "last_change_to",
    "last_change_percent",
]
CHANGE_COLUMNS = [
    "kind",
    "provider",
    "region",
    "zone",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "os",
    "price_model",
    "term",
    "payment_option",
    "old_price",
    "new_price",
    "percent",
    "currency",
    "unit",
    "observed_at",
    "source",
    "detail",
    "source_url",
]
CHANGE_TABLE = [
    "kind",
    "provider",
    "region",
    "zone",
    "instance_type",
    "os",
    "price_model",
    "term",
    "old_price",
    "new_price",
    "percent",
    "currency",
    "observed_at",
    "detail",
]
RUN_COLUMNS = [
    "id",
    "source",
    "provider",
    "status",
    "mode",
    "started_at",
    "finished_at",
    "observed_at",
    "regions",
    "pages",
    "items",
    "rows_written",
    "changes",
    "error",
    "capture_path",
]
RUN_TABLE = ["id", "source", "status", "mode", "started_at", "observed_at", "items", "rows_written", "changes", "error"]


def price_dict(point: PricePoint) -> dict[str, Any]:
    row = point_record(point)
    # Provider extras (interruption rates, part prices) as one readable cell.
    row["attrs"] = _detail(row["attrs"]) or None
    return row


def _detail(raw: dict[str, str] | str) -> str:
    detail = dict(json.loads(raw) if isinstance(raw, str) else raw)
    parts = []
    if "old_availability" in detail or "new_availability" in detail:
        # One reading, old to new: "availability: available -> sold_out".
        old, new = detail.pop("old_availability", ""), detail.pop("new_availability", "")
        parts.append(f"availability: {old or 'unknown'} -> {new or 'unknown'}")
    return "; ".join(parts + [f"{k}: {v}" for k, v in sorted(detail.items())])


def change_dict(change: Change | ChangeRow) -> dict[str, Any]:
    if isinstance(change, ChangeRow):
        row = change.model_dump()
        for name in ("old_price", "new_price", "percent", "gpu_count"):
            row[name] = None if row[name] is None else Decimal(row[name])
    else:
        row = change.model_dump()
        row["kind"] = str(change.kind)
    row["detail"] = _detail(change.detail)
    return row


def prices(
    ctx: typer.Context,
    provider: Annotated[str | None, typer.Option(help="Only this provider, for example azure.")] = None,
    region: Annotated[str | None, typer.Option(help="Only this region, for example westeurope.")] = None,
    gpu: Annotated[str | None, typer.Option(help="GPU model, matched in part: A100, H100, T4.")] = None,
    price_model: Annotated[PriceModel | None, typer.Option(help="on_demand, spot, reserved...")] = None,
    instance_type: Annotated[str | None, typer.Option(help="Exactly this instance type.")] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """List the current prices, with the effective hourly and per-GPU-hour rates.

    Example: gpu-tracker prices --gpu H100 --price-model spot --format json
    """
    with Session(state(ctx).engine) as session:
        points = store.query_prices(
            session=session,
            provider=provider,
            region=region,
            gpu=gpu,
            price_model=price_model.value if price_model else None,
            instance_type=instance_type,
        )
        rows = [price_dict(p) for p in points]
    emit(rows, fmt, columns=PRICE_COLUMNS, table_columns=PRICE_TABLE, empty="no prices match")


class Step(str, Enum):
    day = "day"
    week = "week"
    month = "month"


def history(
    ctx: typer.Context,
    instance_type: Annotated[
        str | None, typer.Argument(help="The instance type, for example Standard_ND96asr_v4; or use --gpu.")
    ] = None,
    gpu: Annotated[str | None, typer.Option(help="Every instance with this GPU model (matched in part).")] = None,
    provider: Annotated[str | None, typer.Option(help="Only this provider.")] = None,
    region: Annotated[str | None, typer.Option(help="Only this region.")] = None,
    price_model: Annotated[PriceModel | None, typer.Option(help="Only this price model.")] = None,
    since: Annotated[
        str | None, typer.Option(help="Intervals still in force at or after this date (or 7d, 2w).")
    ] = None,
    until: Annotated[str | None, typer.Option(help="Intervals that began before this date (or 7d, 2w back).")] = None,
    resample: Annotated[
        Step | None,
        typer.Option(help="Instead of intervals, the price in force at the end of each day, week or month."),
    ] = None,
    summary: Annotated[
        bool,
        typer.Option(
            "--summary", help="One row per price: min, max (and since when), the price now and the last change."
        ),
    ] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Show how prices moved: one row per interval a price held (not one per crawl).

    Example: gpu-tracker history Standard_ND96amsr_A100_v4 --price-model on_demand --since 2026-08-01
    """
    if not instance_type and not gpu:
        raise typer.BadParameter("give an instance type, or --gpu MODEL")
    if resample and summary:
        raise typer.BadParameter("--resample and --summary cannot be used together")
    since_at, until_at = parse_since(since), parse_since(until)
    frame = history_frame(
        state(ctx).engine,
        instance_type=instance_type,
        gpu=gpu,
        provider=provider,
        region=region,
        price_model=price_model.value if price_model else None,
        since=since_at,
        until=until_at,
    )
    what = instance_type or gpu
    if summary:
        emit(
            records(history_summary(frame)) if not frame.empty else [],
            fmt,
            columns=SUMMARY_HISTORY_COLUMNS,
            table_columns=SUMMARY_HISTORY_TABLE,
            empty=f"no prices recorded for {what}",
        )
    elif resample:
        steps = resample_history(frame, resample.value, since=since_at, until=until_at) if not frame.empty else None
        emit(
            records(steps) if steps is not None else [],
            fmt,
            columns=RESAMPLE_COLUMNS,
            table_columns=RESAMPLE_TABLE,
            empty=f"no prices recorded for {what}",
        )
    else:
        rows = records(frame)
        for row in rows:
            row["attrs"] = _detail(row.get("attrs") or {}) or None
        emit(rows, fmt, columns=HISTORY_COLUMNS, table_columns=HISTORY_TABLE, empty=f"no prices recorded for {what}")


def changes(
    ctx: typer.Context,
    since: Annotated[str | None, typer.Option(help="From this date (2026-08-01) or span back (7d, 24h).")] = None,
    provider: Annotated[str | None, typer.Option(help="Only this provider.")] = None,
    kind: Annotated[list[str] | None, typer.Option(help="Only this kind (price_drop, new_sku...); repeatable.")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many, oldest first.")] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """List recorded changes: price drops and rises, new and removed SKUs, broken sources.

    Example: gpu-tracker changes --since 7d --kind price_drop
    """
    since_at = parse_since(since)
    with Session(state(ctx).engine) as session:
        rows = [
            change_dict(c)
            for c in store.query_changes(session=session, since=since_at, provider=provider, kinds=kind, limit=limit)
        ]
    emit(rows, fmt, columns=CHANGE_COLUMNS, table_columns=CHANGE_TABLE, empty="no changes")


def runs(
    ctx: typer.Context,
    source: Annotated[str | None, typer.Option(help="Only this source.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="How many, newest first.")] = 20,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """List recent crawl runs with their status and error.

    Example: gpu-tracker runs --source azure --limit 5
    """
    with Session(state(ctx).engine) as session:
        found: list[CrawlRun] = store.list_runs(session=session, limit=limit, source=source)
        rows = [r.model_dump() for r in found]
    emit(rows, fmt, columns=RUN_COLUMNS, table_columns=RUN_TABLE, empty="no runs yet")


def register(app: typer.Typer) -> None:
    for command in (prices, history, changes, runs):
        app.command()(command)
