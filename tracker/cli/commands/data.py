"""Commands that move data in and out: import and export."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from tracker.cli import output
from tracker.cli.output import FormatOption, OutputFormat, emit_run_changes, stderr
from tracker.cli.state import parse_since, state
from tracker.errors import CrawlFailed

# pandas and the importer load inside each command: `--help` starts fast.


class ExportKind(str, Enum):
    prices = "prices"
    history = "history"
    changes = "changes"
    offers = "offers"


class ExportFormat(str, Enum):
    csv = "csv"
    jsonl = "jsonl"
    json = "json"
    parquet = "parquet"
    # Catalogs other tools read, a folder of files (tracker/analytics/outputs/catalogs.py).
    skypilot = "skypilot"
    gpuhunt = "gpuhunt"


CATALOG_FORMATS = (ExportFormat.skypilot, ExportFormat.gpuhunt)


class ImportFormat(str, Enum):
    rows = "rows"
    skypilot = "skypilot"


def export(
    ctx: typer.Context,
    what: Annotated[
        str,
        typer.Argument(
            help="prices (current), history (every interval), changes or offers; "
            "with --format skypilot or gpuhunt, the folder to write the catalogs into.",
            metavar="WHAT|DIR",
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write to this file; default: stdout.", dir_okay=False)
    ] = None,
    fmt: Annotated[
        ExportFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="csv, jsonl, json or parquet (default: from the --out name, else csv); "
            "skypilot or gpuhunt: the current prices as those tools' catalogs, into the folder DIR.",
        ),
    ] = None,
    gpu: Annotated[str | None, typer.Option(help="Only this GPU model (prices, history).")] = None,
    provider: Annotated[str | None, typer.Option(help="Only this provider.")] = None,
    since: Annotated[str | None, typer.Option(help="History and changes from this date or span (7d).")] = None,
) -> None:
    """Export prices, price history, changes or offers to CSV, JSON Lines, JSON or Parquet.

    --format skypilot writes the current prices as SkyPilot's catalogs
    (DIR/<cloud>/vms.csv), --format gpuhunt as gpuhunt's, which dstack reads
    (DIR/<provider>.csv); docs/usage.md says where each tool looks for them.

    Example: gpu-tracker export history --out history.parquet --gpu H100

    Example: gpu-tracker export --format skypilot sky-catalogs/

    Example: gpu-tracker export --format gpuhunt catalogs/ --gpu H100
    """
    if fmt in CATALOG_FORMATS:
        _export_catalogs(ctx, fmt.value, Path(what), gpu=gpu, provider=provider)
        return
    from tracker.analytics.outputs.exporting import choose_format, export_frame, write_export

    kinds = [k.value for k in ExportKind]
    if what not in kinds:
        raise typer.BadParameter(
            f"{what!r} is not one of {', '.join(kinds)} (a folder only with --format skypilot or gpuhunt)",
            param_hint="WHAT",
        )
    chosen = choose_format(out, fmt.value if fmt else None)
    frame = export_frame(state(ctx).engine, what, gpu=gpu, provider=provider, since=parse_since(since))
    written = write_export(frame, chosen, out)
    if out is not None:
        stderr.print(f"{written} {what} rows written to {out} ({chosen})", highlight=False, markup=False)


def _export_catalogs(ctx: typer.Context, kind: str, folder: Path, *, gpu: str | None, provider: str | None) -> None:
    from tracker.analytics.outputs.catalogs import write_catalogs

    done = write_catalogs(state(ctx).engine, kind, folder, gpu=gpu, provider=provider)
    for path, rows in done.files:
        stderr.print(f"{rows} rows written to {path}", highlight=False, markup=False)
    for reason, count in sorted(done.left_out.items()):
        stderr.print(f"left out, {reason}: {count} prices", highlight=False, markup=False)


def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A .csv or .jsonl file (.gz too).", exists=True, dir_okay=False)],
    source: Annotated[str, typer.Option(help="The source the rows belong to, e.g. mycorp-negotiated.")],
    from_: Annotated[
        ImportFormat,
        typer.Option("--from", help="rows: the fields of `prices --format json`; skypilot: a SkyPilot catalog CSV."),
    ] = ImportFormat.rows,
    provider: Annotated[
        str | None, typer.Option(help="The cloud of a SkyPilot catalog (default: from the name).")
    ] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Load price rows from a file as one complete run of a named source.

    Your negotiated prices, another tool's data, or a SkyPilot catalog. Every
    row is checked first; one bad row rejects the file, naming its line.

    Example: gpu-tracker import negotiated.csv --source mycorp-negotiated
    """
    from tracker.file_import.importing import import_file

    st = state(ctx)

    def note(text: str) -> None:
        stderr.print(f"[yellow]note:[/yellow] {escape(text)}", highlight=False)

    with output.progress_bar(f"{source}: importing {file.name}") as progress:
        report = import_file(
            st.pipeline(), file, source=source, fmt=from_.value, provider=provider, notes=note, progress=progress
        )
    if not report.ok:
        raise CrawlFailed(f"{source}: import {report.status}: {report.error}")
    stderr.print(
        f"{source}: run {report.run_id} ok: {report.items} rows, {report.prices} prices, "
        f"{report.rows_written} price rows written, {len(report.changes)} changes",
        highlight=False,
        markup=False,
    )
    emit_run_changes(report.changes, fmt)


def register(app: typer.Typer) -> None:
    app.command()(export)
    app.command("import")(import_)
