"""Output options shared by every listing command: --format table|json|csv.
Data goes to stdout, logs and messages to stderr.

The JSON form is a contract for scripts: a list of flat objects whose keys
are the normalized field names; Decimals are strings, times ISO 8601 in UTC,
unknown values null."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Sequence
from decimal import Decimal
from enum import Enum
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tracker.scalars import plain

stderr = Console(stderr=True)


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


FormatOption = Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format: table, json or csv.")]


def _cell(value: Any) -> str:
    value = plain(value)
    return "" if value is None else str(value)


def emit(
    rows: Sequence[dict[str, Any]],
    fmt: OutputFormat,
    *,
    columns: Sequence[str],
    table_columns: Sequence[str] | None = None,
    title: str | None = None,
    empty: str = "nothing found",
) -> None:
    if fmt is OutputFormat.json:
        json.dump([{c: plain(r.get(c)) for c in columns} for r in rows], sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    elif fmt is OutputFormat.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        for r in rows:
            writer.writerow([_cell(r.get(c)) for c in columns])
    else:
        if not rows:
            stderr.print(Text(empty, style="dim"))
            return
        # Cells are Text, never markup: provider text such as `p5[/bold]x` or
        # `[link=...]` is shown as written, and cannot break or restyle the table.
        table = Table(title=Text(title) if title else None, show_lines=False, header_style="bold")
        # Columns empty in every row only take width from the ones that say something.
        shown = [c for c in (table_columns or columns) if any(r.get(c) not in (None, "") for r in rows)]
        for c in shown:
            table.add_column(Text(c), overflow="fold", justify="right" if _numeric(rows, c) else "left")
        for r in rows:
            table.add_row(*[Text(_cell(r.get(c))) for c in shown])
        out = Console()
        if not out.is_terminal:
            out = Console(width=240)
        out.print(table)


def _numeric(rows: Sequence[dict[str, Any]], column: str) -> bool:
    return any(isinstance(r.get(column), (Decimal, int)) and not isinstance(r.get(column), bool) for r in rows[:20])
