"""The listings' table written straight (`tracker.cli.plain_table`) is
byte for byte what Rich prints for the same table, whenever it writes one;
and `emit` prints the same text either way."""

from __future__ import annotations

import io
import sys
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tracker.cli import output
from tracker.cli.plain_table import render

# Words as providers write them: ASCII, Chinese and Japanese (two cells a
# character), accents, symbols, emoji, and spaces at either end.
CELL = st.text(
    alphabet=st.sampled_from([*"abcXYZ019 .-_/×$¥€", *"东京区域価格", "é", "ü", "🚀", "\u00a0", "\t", "\n"]),
    max_size=14,
)


def rich_text(headers: list[str], rows: list[list[str]], right: list[bool], width: int, title: str | None) -> str:
    """The table as `output.emit` has Rich print it."""
    table = Table(
        title=Text(title) if title else None, box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, show_edge=False
    )
    for header, flush in zip(headers, right, strict=True):
        table.add_column(Text(header), overflow="fold", justify="right" if flush else "left")
    for cells in rows:
        table.add_row(*[Text(c) for c in cells])
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(table)
    return out.getvalue()


@settings(max_examples=400, deadline=None)
@given(
    data=st.data(),
    columns=st.integers(min_value=1, max_value=5),
    width=st.integers(min_value=10, max_value=120),
    title=st.none() | CELL,
)
def test_the_plain_table_is_what_rich_prints(data: st.DataObject, columns: int, width: int, title: str | None) -> None:
    headers = data.draw(st.lists(CELL.filter(bool), min_size=columns, max_size=columns))
    right = data.draw(st.lists(st.booleans(), min_size=columns, max_size=columns))
    rows = data.draw(st.lists(st.lists(CELL, min_size=columns, max_size=columns), max_size=6))
    plain = render(headers, rows, right, width, title)
    if plain is not None:
        assert plain == rich_text(headers, rows, right, width, title)


def test_it_writes_the_common_case_and_leaves_the_rest_to_rich() -> None:
    headers, rows = ["provider", "price", "区域"], [["aws", "1.5", "东京"], ["lambda-labs", "12.25", ""]]
    plain = render(headers, rows, [False, True, False], 240, "H100 prices")
    assert plain == rich_text(headers, rows, [False, True, False], 240, "H100 prices")
    assert plain.splitlines()[3] == "aws             1.5   东京"
    assert render(headers, rows, [False, True, False], 20, None) is None  # wider than the console: Rich folds
    assert render(headers, [["a\nb", "1", ""]], [False, True, False], 240, None) is None
    assert render(headers, rows, [False, True, False], 240, "a title wider than the whole table is") is None


def test_emit_prints_what_rich_would(monkeypatch) -> None:
    rows = [
        {"provider": "aws", "region": "ap-northeast-1", "instance_type": "p5.48xlarge", "price": Decimal("98.32")},
        {"provider": "autodl", "region": "内蒙B区", "instance_type": "H800", "price": Decimal("21.5")},
    ]
    columns = ["provider", "region", "instance_type", "price"]
    monkeypatch.setenv("COLUMNS", "120")

    def printed() -> str:
        out = io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        output.emit(rows, output.OutputFormat.table, columns=columns, title="prices")
        monkeypatch.setattr(sys, "stdout", sys.__stdout__)
        return out.getvalue()

    fast = printed()
    monkeypatch.setattr(output, "render", lambda *args, **kwargs: None)  # Rich lays it out
    assert fast == printed()
    assert "内蒙B区" in fast and "98.32" in fast
