"""The listings' table written straight, where Rich would only pad.

A listing of thousands of rows spent most of its time in Rich laying the
table out (0.4 s of CPU for 2,600 prices, more than reading them from a
million): measuring, wrapping and cropping every cell. When the output is
not a terminal (no colour, no styles), no cell holds a line break or a tab,
every column fits at its natural width and the title fits above the table,
Rich's layout reduces to padding: each cell padded, or stripped at its end
and right-justified, to
its column's width (wide characters counted as two; headers too), one space either side
of the separator between columns, a rule under the header and the title
centred above. `render` writes exactly what Rich writes for the table of
`tracker.cli.output.emit` in that case (held by a property test against
Rich itself, `tests/cli/test_plain_table.py`), and None in every other.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len

# The horizontal of Rich's SIMPLE_HEAD box, under the header.
RULE = "\u2500"
# Padding (0, 1) beside each column separator (" "): three cells between two columns.
GAP = 3


def render(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Sequence[bool],
    width: int,
    title: str | None = None,
) -> str | None:
    """The table's text (lines ending in a newline), or None when Rich would
    do more than pad: a line break, tab or control character in a cell, or a
    table or title wider than `width`."""
    for cells in (headers, *rows, [title or ""]):
        for cell in cells:
            if not cell.isprintable():
                return None
    widths = [cell_len(h) for h in headers]
    for cells in rows:
        for i, cell in enumerate(cells):
            n = cell_len(cell) if not cell.isascii() else len(cell)
            if n > widths[i]:
                widths[i] = n
    total = sum(widths) + GAP * (len(widths) - 1)
    if total > width or not widths:
        return None
    lines = []
    if title:
        if cell_len(title) > total:
            return None
        title = title.rstrip()  # centred as Rich centres: its end stripped first
        size = cell_len(title)
        left = (total - size) // 2
        lines.append(" " * left + title + " " * (total - size - left))
    lines.append(_line(headers, widths, right))
    lines.append(RULE * total)
    lines.extend(_line(cells, widths, right) for cells in rows)
    return "\n".join(lines) + "\n"


def _line(cells: Sequence[str], widths: Sequence[int], right: Sequence[bool]) -> str:
    out = []
    for cell, size, flush in zip(cells, widths, right, strict=True):
        if flush:
            cell = cell.rstrip()  # Rich strips a right-justified cell's end (its width still counts it)
        pad = " " * (size - (len(cell) if cell.isascii() else cell_len(cell)))
        out.append(pad + cell if flush else cell + pad)
    return "   ".join(out)
