"""Commands that fetch, and what they can fetch: `crawl`, `demo` and `sources`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from tracker.answers.columns import CHANGE_COLUMNS, CHANGE_TABLE, SOURCE_COLUMNS, SOURCE_TABLE, change_dict
from tracker.cli.output import FormatOption, OutputFormat, WideOption, emit, emit_run_changes, stderr
from tracker.cli.state import state
from tracker.errors import CrawlFailed, UserError

if TYPE_CHECKING:
    import sqlalchemy as sa

    from tracker.run.child import Progress as ProgressFn
    from tracker.run.pipeline import RunReport

# The store and the crawl machinery load inside each command: `--help` starts fast.


@contextmanager
def crawl_progress(label: str) -> Iterator[ProgressFn | None]:
    """Pages fetched and items found, on stderr when it is a terminal."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    if not stderr.is_terminal:
        yield None
        return
    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=stderr, transient=True
    ) as bar:
        task = bar.add_task(f"{label}: starting")

        def update(pages: int, items: int) -> None:
            bar.update(task, description=f"{label}: {pages} pages fetched, {items} items found")

        yield update


def last_observed(engine: sa.Engine, source: str) -> datetime | None:
    from sqlmodel import Session

    from db.kinds import RunStatus
    from db.store.reads import session as store

    with Session(engine) as session:
        run = store.last_run(session=session, source=source, statuses=[RunStatus.ok])
        return run.observed_at if run else None


def summary(report: RunReport) -> str:
    if not report.ok:
        return f"{report.source}: run {report.run_id} {report.status}: {report.error}"
    if report.offers:
        return (
            f"{report.source}: run {report.run_id} ok: {report.items} items, {report.offers} offers, "
            f"{report.rows_written} offer rows written, {len(report.changes)} changes"
        )
    return (
        f"{report.source}: run {report.run_id} ok: {report.items} items, {report.prices} prices, "
        f"{report.rows_written} price rows written, {len(report.changes)} changes"
    )


def crawl(
    ctx: typer.Context,
    provider: Annotated[str, typer.Argument(help="The source to crawl, for example azure.")],
    region: Annotated[
        list[str] | None,
        typer.Option("--region", "-r", help="Region to crawl; repeat for more. Default: the configured list."),
    ] = None,
    replay: Annotated[
        Path | None,
        typer.Option(help="Serve responses from this HAR capture; never touch the network.", dir_okay=False),
    ] = None,
    record: Annotated[
        Path | None, typer.Option(help="Save what was fetched to this HAR 1.2 file.", dir_okay=False)
    ] = None,
    wait: Annotated[
        float,
        typer.Option(
            min=0, help="Seconds to wait when another process is crawling this source; default: refuse at once."
        ),
    ] = 0,
    fmt: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """Crawl one provider into the store and list what changed.

    Example: gpu-tracker crawl azure --region westeurope --record we.har
    """
    from tracker.run.service import crawl_source

    if replay and record:
        raise typer.BadParameter("--replay and --record cannot be used together")
    if replay and not replay.exists():
        raise typer.BadParameter(f"{replay}: no such file", param_hint="--replay")
    st = state(ctx)
    with crawl_progress(provider) as progress:
        report = crawl_source(
            st.pipeline(),
            st.config,
            provider,
            regions=region or None,
            replay=replay,
            record=record,
            progress=progress,
            lock_wait=wait,
        )
    for note in report.notes:
        stderr.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False)
    if not report.ok:
        raise CrawlFailed(summary(report))
    stderr.print(summary(report), highlight=False, markup=False)
    emit_run_changes(report.changes, fmt, wide=wide)


def demo(
    ctx: typer.Context,
    home: Annotated[Path | None, typer.Option(help="Use this folder instead of the default store.")] = None,
) -> None:
    """Load the bundled captures, an earlier and a later one, and show what changed.

    Needs no network.

    Example: gpu-tracker demo --home /tmp/gpu-demo
    """
    from spiders.api import sdk_installed
    from tracker.normalize.offers import states_no_offer
    from tracker.run.captures import browser_missing, capture_time, demo_captures
    from tracker.run.service import load_captures, start_replays
    from tracker.sources import SOURCES

    st = state(ctx)
    if home is not None:
        st.home = home.expanduser()
    todo: list[tuple[str, Path]] = []
    loaded: dict[str, datetime | None] = {}
    # The first capture loaded of a source is its baseline (everything is
    # new), unless one of its captures is in the store already.
    seen: set[str] = set()
    for source, capture in demo_captures():
        if source not in loaded:
            loaded[source] = last_observed(st.engine, source)
        newest = loaded[source]
        if newest is not None and capture_time(capture) <= newest:
            stderr.print(f"{source}: {capture.name} is already in the store; skipped", highlight=False)
            seen.add(source)
            continue
        sdk = getattr(SOURCES[source].spider, "sdk_module", None)
        if sdk and not sdk_installed(sdk):
            stderr.print(
                f"{source}: {capture.name} skipped: it needs the provider's SDK ({sdk}); "
                "install it with: pip install 'gpu-offer-tracker[china]'",
                highlight=False,
            )
            continue
        if browser_missing(source, st.config.crawl.browser_path):
            stderr.print(
                f"{source}: {capture.name} skipped: its pages need Chromium, which is not at "
                f"{st.config.crawl.browser_path} (apt-get install chromium)",
                highlight=False,
            )
            continue
        todo.append((source, capture))
    later: list[dict[str, object]] = []
    with crawl_progress(f"replaying {len(todo)} captures") as progress:
        replays = start_replays(st.config, todo, progress)
        with replays.batch:
            # Built while the crawlers replay: its imports overlap the crawls.
            pipeline = st.pipeline()
            for source, capture, report in load_captures(pipeline, st.config, replays):
                stderr.print(f"{escape(summary(report))} [dim]({capture.name})[/dim]", highlight=False)
                if not report.ok and not states_no_offer(report.error):
                    raise UserError(f"the demo capture {capture.name} did not load: {report.error}")
                if source in seen:
                    later.extend(change_dict(c) for c in report.changes)
                seen.add(source)
    stderr.print(f"\nStore: {st.store_label()}", highlight=False)
    if later:
        emit(
            later,
            OutputFormat.table,
            columns=CHANGE_COLUMNS,
            table_columns=CHANGE_TABLE,
            title="What changed between the captures",
        )
    stderr.print(
        "\nTry next:\n"
        "  gpu-tracker prices --gpu A100\n"
        "  gpu-tracker changes\n"
        "  gpu-tracker offers\n"
        "  gpu-tracker history Standard_ND96amsr_A100_v4 --price-model on_demand\n"
        "  gpu-tracker recommend --gpus 8 --min-gpu-memory 70\n"
        "  gpu-tracker serve    (the dashboard on http://127.0.0.1:8080/)\n"
        "  gpu-tracker runs",
        highlight=False,
    )


def sources(fmt: FormatOption = OutputFormat.table, wide: WideOption = False) -> None:
    """List every source that can be crawled, and what verified its reading.

    For each: its provider, kind (prices, marketplace or offers), the price
    models it stores, whether a live crawl needs a key, whether the daemon
    crawls it by default, and its evidence: a real capture (with its date),
    a documented example, an SDK model, or assumed, with what that is and
    where its test is. A source resting on assumed evidence is crawled only
    when named ([daemon] sources, or gpu-tracker crawl <source>).

    Example: gpu-tracker sources --format json
    """
    from tracker.answers.rows import source_rows

    rows = source_rows()
    default = sum(1 for r in rows if r["crawled_by_default"])
    if fmt is OutputFormat.table:  # words for a person; JSON and CSV keep true and false
        for r in rows:
            r["needs_api_key"] = "yes" if r["needs_api_key"] else ""
            r["crawled_by_default"] = "yes" if r["crawled_by_default"] else "no"
    emit(rows, fmt, columns=SOURCE_COLUMNS, table_columns=SOURCE_TABLE, empty="no sources", wide=wide)
    stderr.print(
        f"{default} of {len(rows)} sources crawled by default; the others only when named "
        "(their evidence is assumed, or not declared)",
        highlight=False,
        markup=False,
    )


def register(app: typer.Typer) -> None:
    app.command()(crawl)
    app.command()(demo)
    app.command()(sources)
