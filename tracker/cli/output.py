"""Output options shared by every listing command: --format table|json|csv
and --wide. Data goes to stdout, logs and messages to stderr.

The table is for a person: it fits the terminal, folds GPU, terms and price
into one cell each and shows money at a readable precision; --wide shows
every column, as a block of `column  value` lines per row where they do not
fit side by side.

The JSON form is a contract for scripts: a list of flat objects whose keys
are the normalized field names; Decimals are strings, times ISO 8601 in UTC,
unknown values null."""

from __future__ import annotations

import csv
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import Annotated, Any, TypeVar

import typer
from rich import box
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from db.money import readable
from tracker.answers.rows import json_rows as json_rows
from tracker.cli.plain_table import render
from tracker.scalars import inert, plain

stderr = Console(stderr=True)


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


FormatOption = Annotated[OutputFormat, typer.Option("--format", "-f", help="Output format: table, json or csv.")]
IncludeSuspectOption = Annotated[
    bool,
    typer.Option(
        "--include-suspect",
        help="Rank prices held as suspect too (more than 4x from their market; `gpu-tracker prices` marks them).",
    ),
]


def _cell(value: Any) -> str:
    value = plain(value)
    return "" if value is None else str(value)


WideOption = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Show every column, not only the main ones: a table where they fit side by side, else a block per row.",
    ),
]

# Table headers a person reads; JSON and CSV keep the field names.
_HEADERS = {
    "instance_type": "instance",
    "price_per_gpu_hour": "per GPU-h",
    "hourly_price": "hourly",
    "observed_at": "seen",
    "gpu": "GPU",
    "needs_api_key": "key",
    "crawled_by_default": "default",
    "evidence_ref": "what it is",
}
_UNITS = {"hour": "h", "month": "mo", "year": "yr", "gb": "GB", "gb_month": "GB-mo"}
# Columns folded into one cell in the default table.
_GPU = ("gpu_model", "gpu_count")
_TERMS = ("price_model", "term", "payment_option")
_PRICE = ("price", "currency", "unit", "upfront_fee")
_PER_CURRENCY = ("price_per_gpu_hour", "hourly_price", "list_price", "min_price", "max_price", "current_price")


def _money(value: Any) -> str:
    return readable(value) if isinstance(value, Decimal) else _cell(value)


def _short(value: Any) -> str:
    """A cell for a person: money at a readable precision, times to the minute."""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, Decimal) and value.as_tuple().exponent < -4:  # type: ignore[operator]  # a stored Decimal is finite: its exponent an int
        return readable(value)
    return _cell(value)


def _price(row: dict[str, Any]) -> str:
    price, upfront = row.get("price"), row.get("upfront_fee")
    currency, unit = row.get("currency") or "", row.get("unit") or ""
    per = f" {currency}/{_UNITS.get(unit, unit)}" if unit else f" {currency}"
    if isinstance(upfront, Decimal) and upfront and not price:
        return f"{readable(upfront)} {currency} upfront"  # all upfront: the recurring price is 0
    text = f"{_money(price)}{per}" if price is not None else ""
    if isinstance(upfront, Decimal) and upfront:
        text += f" + {readable(upfront)} upfront"
    offers = row.get("offer_count")
    if offers is not None and offers == offers:  # a marketplace group (NaN: a frame's row of another kind)
        offers = int(offers)  # a frame may carry the count as a float
        text = f"from {text} ({offers} offer{'' if offers == 1 else 's'})"
    return text


def _compose(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> tuple[list[str], list[dict[str, str]]]:
    """The default table: GPU model and count, price model and term (with the
    payment option where rows differ in it), price with currency and unit,
    each folded into one readable cell."""
    payments = {r.get("payment_option") for r in rows}
    # A group is folded when the column it is named after is listed: an offer's currency stays apart.
    groups = [(g, name) for g, name in ((_GPU, "gpu"), (_TERMS, "terms"), (_PRICE, "price")) if g[0] in columns]
    out_columns: list[str] = []
    for c in columns:
        name = next((n for g, n in groups if c in g), c)
        if name not in out_columns:
            out_columns.append(name)
    shown = []
    for r in rows:
        folded = {name for _, name in groups}
        cells = {c: _short(r.get(c)) for c in out_columns if c not in folded}
        if "gpu" in folded:
            count, model = r.get("gpu_count"), r.get("gpu_model") or ""
            cells["gpu"] = f"{_short(count)} × {model}" if count and model else model
        if "terms" in folded:
            parts = [r.get("price_model"), r.get("term"), r.get("payment_option") if len(payments) > 1 else None]
            cells["terms"] = " ".join(str(_cell(p)) for p in parts if p)
        if "price" in folded:
            cells["price"] = _price(r)
        zone = r.get("zone")
        if zone and "region" in cells and "zone" not in out_columns:  # rows of two zones must not look alike
            region = cells["region"]
            cells["region"] = zone if zone.startswith(region) else f"{region} {zone}"
        if cells.get("change"):
            cells["change"] = re.sub(r"/(hour|month|year)\b", lambda m: "/" + _UNITS[m.group(1)], cells["change"])
        for c in _PER_CURRENCY:
            if c in cells and cells[c] and r.get("currency"):
                cells[c] = f"{_money(r.get(c))} {r['currency']}"
        shown.append(cells)
    return out_columns, shown


@contextmanager
def progress_bar(label: str, unit: str = "rows") -> Iterator[Callable[[int, int], None] | None]:
    """A bar on stderr while a long import runs: only on a terminal, so a
    piped or logged run stays quiet; gone when done."""
    if not stderr.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=stderr, transient=True) as bar:
        task = bar.add_task(f"{label}: {unit}", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total or None)

        yield update


def _width() -> int | None:
    """The terminal's width; $COLUMNS when set; 240 when piped."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit():
        return int(columns)
    return None if Console().is_terminal else 240


def emit(
    rows: Sequence[dict[str, Any]],
    fmt: OutputFormat,
    *,
    columns: Sequence[str],
    table_columns: Sequence[str] | None = None,
    title: str | None = None,
    empty: str = "nothing found",
    wide: bool = False,
    at_most: int | None = None,
    total: int | None = None,
) -> None:
    """Rows as JSON, CSV or a table. A table shows at most `at_most` rows
    (a run may change ten thousand prices), and says how many it left out
    of `total` (by default, of `rows`)."""
    if fmt is OutputFormat.json:
        json.dump(json_rows(rows, columns), sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    elif fmt is OutputFormat.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        for r in rows:
            writer.writerow([inert(_cell(r.get(c))) for c in columns])  # no cell a spreadsheet runs
    else:
        if not rows:
            stderr.print(Text(empty, style="dim"))
            return
        total = len(rows) if total is None else total
        left_out = total - at_most if at_most is not None and total > at_most else 0
        if left_out:
            rows = rows[:at_most]
        if wide:
            names, cells = list(columns), [{c: _short(r.get(c)) for c in columns} for r in rows]
        else:
            names, cells = _compose(rows, table_columns or columns)
        # Cells are Text, never markup: provider text such as `p5[/bold]x` or
        # `[link=...]` is shown as written, and cannot break or restyle the table.
        # No vertical rules: the width goes to the cells.
        table = Table(
            title=Text(title) if title else None,
            box=box.SIMPLE_HEAD,
            header_style="bold",
            pad_edge=False,
            show_edge=False,
        )
        # Columns empty in every row only take width from the ones that say something.
        shown = [c for c in names if any(r.get(c) for r in cells)]
        console = Console(width=_width())
        if wide and _natural(shown, cells) > console.width:
            # Every column does not fit side by side: a table would fold each
            # cell into a sliver, so each row is a block of `column  value` lines.
            _records(console, shown, cells, title)
            if left_out:
                stderr.print(Text(_LEFT_OUT.format(left_out), style="dim"))
            return
        for c in _OPTIONAL:
            if c in shown and _natural(shown, cells) > console.width and not wide:
                shown.remove(c)
        right = [_numeric(rows, c) for c in shown]
        headers = [_HEADERS.get(c, c) for c in shown]
        plain = None
        if console.color_system is None and not console.is_terminal:
            lines = [[r.get(c, "") for c in shown] for r in cells]
            plain = render(headers, lines, right, console.width, title)
        if plain is not None:
            sys.stdout.write(plain)  # what Rich would print, without its layout's cost
        else:
            for header, flush in zip(headers, right, strict=True):
                justify: JustifyMethod = "right" if flush else "left"
                table.add_column(Text(header), overflow="fold", justify=justify)
            for r in cells:
                table.add_row(*[Text(r.get(c, "")) for c in shown])
            console.print(table)
        if left_out:
            stderr.print(Text(_LEFT_OUT.format(left_out), style="dim"))


_LEFT_OUT = "... and {:,} more not shown here; --format json or csv lists them all"


def _records(console: Console, columns: Sequence[str], cells: Sequence[dict[str, str]], title: str | None) -> None:
    """--wide when every column does not fit the terminal side by side (as
    psql's expanded mode): each row a block headed `-[ 1 of 615 ]-`, then a
    `column  value` line for each column the row has a value in, a long value
    wrapped under itself. One row still reads as one row, and nothing runs
    past the terminal's edge."""
    from rich.cells import cell_len

    labels = {c: _HEADERS.get(c, c) for c in columns}
    indent = max(map(len, labels.values())) + 2
    room = max(console.width - indent, 8)
    out = Text()
    if title:
        out.append(f"{title}\n", style="bold")
    for n, row in enumerate(cells, 1):
        head = f"-[ {n} of {len(cells)} ]"
        out.append(head + "-" * max(console.width - len(head), 0) + "\n", style="dim")
        for c in columns:
            value = row.get(c, "")
            if not value:
                continue
            out.append(labels[c].ljust(indent), style="bold")
            if cell_len(value) <= room and "\n" not in value:
                out.append(value + "\n")
                continue
            for i, line in enumerate(Text(value).wrap(console, room, overflow="fold")):
                out.append_text(Text(" " * indent) + line if i else line)
                out.append("\n")
    out.rstrip()
    console.print(out, soft_wrap=True)


T = TypeVar("T")

# The changes of one crawl or import its table shows: about a screenful.
# The rest are in the store, and in --format json or csv.
RUN_CHANGES_SHOWN = 40


def emit_run_changes(changes: Sequence[Any], fmt: OutputFormat, *, wide: bool = False) -> None:
    """A run's changes as `crawl` and `import` print them: the first
    RUN_CHANGES_SHOWN in a table (and how many more there are), all of them
    in JSON and CSV."""
    from tracker.answers.columns import CHANGE_COLUMNS, CHANGE_TABLE, change_dict

    emit(
        [change_dict(c) for c in shown(changes, fmt)],
        fmt,
        columns=CHANGE_COLUMNS,
        table_columns=CHANGE_TABLE,
        empty="no changes",
        at_most=RUN_CHANGES_SHOWN,
        total=len(changes),
        wide=wide,
    )


def shown(items: Sequence[T], fmt: OutputFormat) -> Sequence[T]:
    """The items a run's output will show: a table shows the first
    RUN_CHANGES_SHOWN (and says how many more there are), JSON and CSV all."""
    return items[:RUN_CHANGES_SHOWN] if fmt is OutputFormat.table else items


# Dropped, in this order, from a default table wider than the terminal.
_OPTIONAL = ("observed_at", "started_at", "valid_to", "attempts")


def _natural(columns: Sequence[str], cells: Sequence[dict[str, str]]) -> int:
    widths = [max(len(_HEADERS.get(c, c)), *(len(r.get(c, "")) for r in cells)) for c in columns]
    return sum(widths) + 2 * len(widths)


def _numeric(rows: Sequence[dict[str, Any]], column: str) -> bool:
    if column in ("price", *_PER_CURRENCY):
        return True
    return any(isinstance(r.get(column), (Decimal, int)) and not isinstance(r.get(column), bool) for r in rows[:20])
