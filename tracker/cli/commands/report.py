"""Commands that draw: plot (PNG or sparklines) and report (one HTML file)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from db.kinds import PriceModel
from tracker.answers.columns import SPARK_COLUMNS
from tracker.answers.report import ReportRequest
from tracker.cli.output import FormatOption, OutputFormat, emit, stderr
from tracker.cli.state import Step, parse_currency, parse_since, references, state, store_of
from tracker.errors import UserError

if TYPE_CHECKING:
    import pandas as pd

# pandas and matplotlib load inside each command: `--help` starts fast.
# The report's defaults, as its options show them.
REPORT = ReportRequest()


def _intervals(
    ctx: typer.Context,
    instance_types: list[str],
    gpus: list[str],
    provider: str | None,
    region: str | None,
    price_model: PriceModel | None,
    since: str | None,
    os: str,
) -> pd.DataFrame:
    if not instance_types and not gpus:
        raise typer.BadParameter("give one or more instance types, or --gpu MODEL")
    import pandas as pd

    from tracker.analytics.history import history_frame

    engine = state(ctx).engine
    model = price_model.value if price_model else None
    frames = [
        history_frame(
            engine, instance_type=i, provider=provider, region=region, price_model=model, since=parse_since(since)
        )
        for i in instance_types
    ]
    frames += [
        history_frame(engine, gpu=g, provider=provider, region=region, price_model=model, since=parse_since(since))
        for g in gpus
    ]
    frames = [f for f in frames if not f.empty]
    if not frames:
        raise UserError("no price history matches")
    frame = pd.concat(frames, ignore_index=True).drop_duplicates(subset=["key", "valid_from"])
    return frame[frame["os"] == os] if os else frame


def plot(
    ctx: typer.Context,
    instance_type: Annotated[list[str] | None, typer.Argument(help="Instance types to draw.")] = None,
    gpu: Annotated[list[str] | None, typer.Option(help="Every instance with this GPU model; repeatable.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="The PNG file to write.", dir_okay=False)] = None,
    sparkline: Annotated[bool, typer.Option("--sparkline", help="Print sparklines instead of writing a PNG.")] = False,
    provider: Annotated[str | None, typer.Option(help="Only this provider.")] = None,
    region: Annotated[str | None, typer.Option(help="Only this region.")] = None,
    price_model: Annotated[PriceModel | None, typer.Option(help="Only this price model.")] = PriceModel.on_demand,
    since: Annotated[str | None, typer.Option(help="From this date or span back (30d).")] = None,
    per_instance: Annotated[
        bool, typer.Option("--per-instance", help="Instance-hour prices instead of GPU-hour prices.")
    ] = False,
    currency: Annotated[str, typer.Option(help="Convert every series to this currency.")] = "USD",
    os: Annotated[str, typer.Option(help="Operating system of the prices.")] = "linux",
    limit: Annotated[int, typer.Option(min=1, help="At most this many series, cheapest first.")] = 10,
    every: Annotated[Step, typer.Option(help="Sparkline step: day, week or month.")] = Step.day,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Draw price history as step lines with the changes marked (PNG), or as sparklines.

    Example: gpu-tracker plot --gpu H100 --gpu A100 --out prices.png
    """
    target = parse_currency(currency)
    if not sparkline and out is None:
        raise typer.BadParameter("give --out FILE.png, or --sparkline for the terminal")
    from tracker.analytics.outputs.plot import build_series, render_png, sparkline_rows, write_png

    frame = _intervals(ctx, instance_type or [], gpu or [], provider, region, price_model, since, os)
    refs = references(ctx)
    if sparkline:
        rows = sparkline_rows(
            frame,
            refs,
            currency=target,
            per_gpu=not per_instance,
            every=every.value,
            since=parse_since(since),
            limit=limit,
        )
        emit(rows, fmt, columns=SPARK_COLUMNS, empty="no price history matches")
        return
    assert out is not None
    series = build_series(frame, refs, currency=target, per_gpu=not per_instance, limit=limit)
    what = ", ".join([*(instance_type or []), *(gpu or [])])
    unit = f"{target} per {'instance' if per_instance else 'GPU'}-hour"
    write_png(out, render_png(series, title=f"Price history: {what}", unit=unit))
    stderr.print(f"{len(series)} series drawn to {out}", highlight=False, markup=False)


def report(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.", dir_okay=False)],
    currency: Annotated[str, typer.Option(help="Show prices in this currency.")] = REPORT.currency,
    days: Annotated[int, typer.Option(min=1, help="Changes of the last N days.")] = REPORT.days,
) -> None:
    """Write one static HTML report that loads nothing from the network.

    A summary first (the cheapest price per GPU model, recent changes, current
    offers), then price history charts, sortable tables and source health.

    Example: gpu-tracker report --out report.html
    """
    from tracker.answers import report as answer

    request = answer.ReportRequest(currency=parse_currency(currency), days=days)
    with store_of(ctx) as store:
        html = answer.html(store, references(ctx), request)
    try:
        out.write_text(html, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{out}: cannot write it: {exc.strerror or exc}") from None
    stderr.print(f"report written to {out} ({len(html) // 1024} KB)", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    app.command()(plot)
    app.command()(report)
