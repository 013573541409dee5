"""Commands that read the store: prices, history, changes, runs and offers."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from db.kinds import ChangeKind, OfferKind, PriceModel
from tracker.answers.columns import (
    RESAMPLE_COLUMNS,
    RESAMPLE_TABLE,
    RUN_COLUMNS,
    RUN_TABLE,
    SUMMARY_HISTORY_TABLE,
    detail_text,
)
from tracker.cli.output import FormatOption, OutputFormat, WideOption, emit
from tracker.cli.state import Step, parse_since, state, store_of, suspect_reasons

# The store, pandas and the analytics load inside each command: `--help`
# starts fast, and the simple queries (prices, changes, runs) read through
# `db.store.reads.reader` without the ORM when they can (tests/cli/test_startup.py).


def stored_prices(ctx: typer.Context, **filters: str | None) -> list[dict[str, Any]]:
    """The current prices matching `filters` (`db.store.reads.session.query_prices`'),
    without the ORM when the store allows it."""
    reader = state(ctx).reader()
    if reader is not None:
        with reader:
            return reader.prices(**filters)
    from sqlmodel import Session

    from db.store.reads import session as store

    with Session(state(ctx).engine) as session:
        return [store.point_to_dict(p) for p in store.query_prices(session=session, **filters)]  # type: ignore[arg-type]  # the options, named as query_prices' parameters


def prices(
    ctx: typer.Context,
    provider: Annotated[str | None, typer.Option(help="Only this provider, for example azure.")] = None,
    region: Annotated[str | None, typer.Option(help="Only this region, for example westeurope.")] = None,
    gpu: Annotated[str | None, typer.Option(help="GPU model, matched in part: A100, H100, T4.")] = None,
    price_model: Annotated[PriceModel | None, typer.Option(help="on_demand, spot, reserved...")] = None,
    instance_type: Annotated[str | None, typer.Option(help="Exactly this instance type.")] = None,
    suspect: Annotated[
        bool, typer.Option("--suspect", help="Only the prices held as suspect, with the reason.")
    ] = False,
    side_costs: Annotated[
        bool,
        typer.Option("--side-costs", help="Instead of GPU prices, the tracked side costs (egress, disks, addresses)."),
    ] = False,
    fmt: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """List the current prices, with the effective hourly and per-GPU-hour rates.

    A price more than 4x from its market (the other providers' median for
    its GPU model and kind of price) is held as suspect: listed here with
    the reason in `suspect`, left out of compare, tco and recommend.

    Example: gpu-tracker prices --gpu H100 --price-model spot --format json

    Example: gpu-tracker prices --suspect

    Example: gpu-tracker prices --side-costs --provider aws --region us-east-1
    """
    stored = stored_prices(
        ctx,
        provider=provider,
        region=region,
        gpu=gpu,
        price_model=price_model.value if price_model else None,
        instance_type=instance_type,
    )
    from db.kinds import is_side_cost

    stored = [p for p in stored if is_side_cost(p["source"]) == side_costs]
    held = suspect_reasons(ctx, [(p["source"], p["key"]) for p in stored])
    if suspect:
        stored = [p for p in stored if (p["source"], p["key"]) in held]
    from tracker.answers import prices as answer

    rows = answer.rows(stored, held)
    table = [*answer.TABLE, "suspect"] if held else answer.TABLE
    if held and fmt is OutputFormat.table:
        rows = [{**r, "suspect": answer.short(r["suspect"])} for r in rows]
    emit(rows, fmt, columns=answer.COLUMNS, table_columns=table, empty=answer.empty(suspect), wide=wide)


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
    wide: WideOption = False,
) -> None:
    """Show how prices moved: one row per interval a price held (not one per crawl).

    Example: gpu-tracker history Standard_ND96amsr_A100_v4 --price-model on_demand --since 2026-08-01
    """
    if not instance_type and not gpu:
        raise typer.BadParameter("give an instance type, or --gpu MODEL")
    if resample and summary:
        raise typer.BadParameter("--resample and --summary cannot be used together")
    from tracker.analytics.columns import SUMMARY_COLUMNS
    from tracker.analytics.points import summary_records
    from tracker.answers import history as answer

    since_at, until_at = parse_since(since), parse_since(until)
    request = answer.HistoryRequest(
        instance_type=instance_type,
        gpu=gpu,
        provider=provider,
        region=region,
        price_model=price_model,
        since=since_at,
        until=until_at,
    )
    with store_of(ctx) as store:
        rows = answer.records(store, request)
    if summary:
        emit(
            summary_records(rows),
            fmt,
            columns=[c for c in SUMMARY_COLUMNS if c != "key"],
            table_columns=SUMMARY_HISTORY_TABLE,
            empty=request.empty(),
            wide=wide,
        )
    elif resample:
        from tracker.analytics.history import interval_frame, records, resample_history

        frame = interval_frame(rows)
        steps = resample_history(frame, resample.value, since=since_at, until=until_at) if rows else None
        emit(
            records(steps) if steps is not None else [],
            fmt,
            columns=RESAMPLE_COLUMNS,
            table_columns=RESAMPLE_TABLE,
            empty=request.empty(),
            wide=wide,
        )
    else:
        for row in rows:
            row["attrs"] = detail_text(row.get("attrs") or {}) or None
        emit(rows, fmt, columns=answer.COLUMNS, table_columns=answer.TABLE, empty=request.empty(), wide=wide)


def changes(
    ctx: typer.Context,
    since: Annotated[str | None, typer.Option(help="From this date (2026-08-01) or span back (7d, 24h).")] = None,
    provider: Annotated[str | None, typer.Option(help="Only this provider.")] = None,
    kind: Annotated[
        list[ChangeKind] | None,
        typer.Option(
            metavar="<kind>", help="Only this kind (price_drop, new_sku...; a wrong one lists them); repeatable."
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many, oldest first.")] = None,
    fmt: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """List recorded changes: price drops and rises, new and removed SKUs, broken sources.

    Example: gpu-tracker changes --since 7d --kind price_drop
    """
    from tracker.answers import changes as answer

    request = answer.ChangesRequest(since=parse_since(since), provider=provider, kinds=tuple(kind or ()), limit=limit)
    with store_of(ctx) as store:
        # What moved, in words, is for the table alone: JSON and CSV need no value types.
        rows = answer.rows(store, request, words=fmt is OutputFormat.table)
    emit(rows, fmt, columns=answer.COLUMNS, table_columns=answer.TABLE, empty=answer.EMPTY, wide=wide)


def runs(
    ctx: typer.Context,
    source: Annotated[str | None, typer.Option(help="Only this source.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="How many, newest first.")] = 20,
    fmt: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """List recent crawl runs with their status and error.

    Example: gpu-tracker runs --source azure --limit 5
    """
    reader = state(ctx).reader()
    if reader is not None:
        with reader:
            rows = reader.runs(limit=limit, source=source)
    else:
        from sqlmodel import Session

        from db.store.reads import session as store

        with Session(state(ctx).engine) as session:
            rows = [r.model_dump() for r in store.list_runs(session=session, limit=limit, source=source)]
    from tracker.logs import mask_secrets, registered_secrets  # not tracker.config: its package loads the settings

    for row in rows:  # an error recorded before errors were masked is shown masked
        row["error"] = mask_secrets(row["error"], registered_secrets()) if row.get("error") else row.get("error")
    emit(rows, fmt, columns=RUN_COLUMNS, table_columns=RUN_TABLE, empty="no runs yet", wide=wide)


def register(app: typer.Typer) -> None:
    for command in (prices, history, changes, runs):
        app.command()(command)


# `gpu-tracker offers`: the promotions in the store, and one offer's history.
offers_app = typer.Typer(no_args_is_help=False)


@offers_app.callback(invoke_without_command=True)
def offers(
    ctx: typer.Context,
    provider: Annotated[str | None, typer.Option(help="Only this provider, for example gcp.")] = None,
    kind: Annotated[OfferKind | None, typer.Option(help="free_credit, voucher, free_trial, discount...")] = None,
    active: Annotated[bool, typer.Option("--active", help="Only offers valid now (by their stated dates).")] = False,
    fmt: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """List the current offers: free credits, vouchers, trials and discounts.

    A block of a page that states no offer (no amount, percentage or free
    time) is not listed; `conditions` says what an offer asks and limits
    (GPU time, caps, price models, an order-length limit).

    Example: gpu-tracker offers --provider tencent --kind voucher --format json
    """
    if ctx.invoked_subcommand is not None:
        return
    from tracker.answers import offers as answer

    rows = answer.rows(state(ctx).engine, answer.OffersRequest(provider=provider, kind=kind, active=active))
    emit(rows, fmt, columns=answer.COLUMNS, table_columns=answer.TABLE, empty=answer.EMPTY, wide=wide)


@offers_app.command("history")
def offer_history(
    ctx: typer.Context,
    offer_id: Annotated[str, typer.Argument(help="The offer's id, as `gpu-tracker offers` lists it.")],
    fmt: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """Show how one offer changed: one row per interval its terms held.

    Example: gpu-tracker offers history gcp:free-trial-credit
    """
    from tracker.answers import offers as answer

    rows = answer.history_rows(state(ctx).engine, offer_id)
    emit(
        rows,
        fmt,
        columns=answer.HISTORY_COLUMNS,
        table_columns=answer.HISTORY_TABLE,
        empty=answer.history_empty(offer_id),
        wide=wide,
    )


def register_offers(root: typer.Typer) -> None:
    """`gpu-tracker offers` and `offers history`: the promotions in the store."""
    root.add_typer(offers_app, name="offers")
