"""CoreWeave's pricing page (`https://www.coreweave.com/pricing`), rendered on
the server (Webflow). What it holds, as served (a real copy of 2026-10-04,
tests/fixtures/coreweave/README.md):

- under "On-demand GPU instances", one table per region, each after its
  heading ("REGION: NORTH AMERICA", "REGION: EUROPE"); a table's header
  row (`.table-v2-header .table-header-text`) names its columns: GPU Model,
  GPU Count, VRAM (GB), vCPUs, System RAM (GB), Local Storage (TB),
  On-Demand Price (Per Hour), Spot Price (Per Hour) and, in North America
  only, "Inference Single GPU Price(Per Hour)²";
- a row is a list item of class `table-row-v2` (earlier `table-row`) with a
  category class: `kubernetes-gpu-pricing`, `gpu-pricing`, or the single
  word `gpu-pricing-and-kubernetes-gpu-pricing` (the HGX H100's); CPU rows
  (`kubernetes-cpu-pricing`, under "On-demand CPU instances") are not GPU
  instances;
- a row's cells (`.table-v2-cell`) follow the header, the name in
  `h3.table-model-name`, a price "$68.80", "N/A" or empty beside a "Contact
  sales" link; a second, mobile copy of the row labels its prices
  (`span.instance-price`, `span.spot-price`, `span.inference-price`, each
  value in `.item-value`) and its figures ("8" then "GPU Count").

Each price is read from its own label or column, never by position alone:
the labelled value where it states one, else the cell under the header of
that name, else (a table without a header) the header order above. The
served HTML writes footnote marks as `4^1` (a script turns them into
`<sup>` in a browser); either way the mark is not part of the value.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.coreweave.items import CoreWeaveRow
from spiders.pages import PageShapeError

# A GPU row: its own class ends in "gpu-pricing" (not "cpu-pricing"), or it
# sits in the older `.kubernetes-gpu-pricing` table.
ROWS = (
    "//div[has-class('table-row-v2') or has-class('table-row')]"
    "[contains(concat(' ', normalize-space(@class), ' '), 'gpu-pricing ')"
    " or ancestor::*[has-class('kubernetes-gpu-pricing')]]"
    "[not(contains(@class, 'cpu-pricing'))]"
)
# The row's own cells: not the mobile copy's, not a cell inside a cell.
CELLS = (
    ".//div[has-class('table-v2-cell')]"
    "[not(ancestor::div[has-class('table-v2-cell')])][not(ancestor::div[has-class('table-cell-column')])]"
)
HEADER = (
    "ancestor::div[has-class('table-v2')][1]//div[has-class('table-v2-header')]//div[has-class('table-header-text')]"
)
REGION = "preceding::text()[contains(translate(., 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), 'REGION:')][1]"
WORDS = ".//text()[not(ancestor::sup)][not(ancestor::script)][not(ancestor::style)]"
# The columns in the page's own order (a table without a header row).
ORDER = ("name", "gpu_count", "vram_gb", "vcpus", "ram_gb", "storage_tb", "price", "spot_price", "inference_price")
# A header's or label's words -> the field: the first keyword found wins.
KEYWORDS = (
    ("inference", "inference_price"),
    ("spot", "spot_price"),
    ("on-demand", "price"),
    ("instance price", "price"),
    ("model", "name"),
    ("gpu count", "gpu_count"),
    ("vram", "vram_gb"),
    ("vcpu", "vcpus"),
    ("storage", "storage_tb"),
    ("ram", "ram_gb"),
)
LABELLED = {"instance-price": "price", "spot-price": "spot_price", "inference-price": "inference_price"}
_MARK = re.compile(r"(?:\s*\^\s*\d+|[\u00b9\u00b2\u00b3\u2070-\u2079]+)$")
_REGION = re.compile(r"region:\s*(.+)$", re.IGNORECASE)


def clean(text: str) -> str:
    """A value without its footnote mark ("4^1", "4¹" -> "4") and with its
    spaces squeezed."""
    return _MARK.sub("", " ".join(text.split())).strip()


def _text(node: Selector) -> str:
    return clean(" ".join(node.xpath(WORDS).getall()))


def _field(label: str) -> str | None:
    words = " ".join(label.lower().split())
    return next((field for key, field in KEYWORDS if key in words), None)


def _blank(name: str, region: str) -> CoreWeaveRow:
    return {
        "name": name,
        "region": region,
        "gpu_count": "",
        "vram_gb": "",
        "vcpus": "",
        "ram_gb": "",
        "storage_tb": "",
        "price": "",
        "spot_price": "",
        "inference_price": "",
    }


def _columns(row: Selector, cells: int) -> tuple[str | None, ...]:
    """The field under each of the row's cells: by the table's header where
    it has one cell per column, else in the page's order."""
    header = tuple(_field(_text(h)) for h in row.xpath(HEADER))
    return header if len(header) == cells else ORDER[:cells]


def _labelled(row: Selector) -> dict[str, str]:
    """The mobile copy's labelled values: prices by their span's class, the
    figures by the label written after them ("8" then "GPU Count")."""
    found: dict[str, str] = {}
    for span_class, field in LABELLED.items():
        value = row.xpath(f".//span[has-class('{span_class}')]//*[has-class('item-value')]")
        if value and (text := _text(value[0])):
            found[field] = text
    for meta in row.xpath(".//div[has-class('table-meta-text')][div[has-class('table-meta-value')]]"):
        label = meta.xpath("./div[not(has-class('table-meta-value'))][1]")
        figure = _field(_text(label[0])) if label else None
        if figure and figure not in found and figure not in LABELLED.values():
            found[figure] = _text(meta.xpath("./div[has-class('table-meta-value')]")[0])
    return found


def _region(row: Selector) -> str:
    marker = row.xpath(REGION).get()
    match = _REGION.search(" ".join((marker or "").split()))
    return match.group(1).strip() if match else ""


def _record(row: Selector) -> CoreWeaveRow | None:
    name = next((t for h in row.css(".table-model-name") if (t := _text(h))), "")
    cells = [_text(c) for c in row.xpath(CELLS)]
    labelled = _labelled(row)
    if not name and not any(cells) and not labelled:
        return None  # an empty list item
    record = _blank(name, _region(row))
    for field, value in zip(_columns(row, len(cells)), cells, strict=False):
        if field and field != "name" and value:
            record[field] = value  # type: ignore[literal-required]  # KEYWORDS and ORDER name CoreWeaveRow keys
    for field, value in labelled.items():
        if field in LABELLED.values() or not record[field]:  # type: ignore[literal-required]  # as above
            record[field] = value  # type: ignore[literal-required]  # as above
    return record


def parse_gpu_instances(page: Selector) -> list[CoreWeaveRow]:
    records = [r for row in page.xpath(ROWS) if (r := _record(row)) is not None]
    if not records:
        raise PageShapeError(
            "CoreWeave: the pricing page has no GPU instance row "
            "(.table-row-v2 or .table-row of class kubernetes-gpu-pricing, gpu-pricing or "
            "gpu-pricing-and-kubernetes-gpu-pricing)"
        )
    if not any(r["name"] for r in records):
        raise PageShapeError("CoreWeave: no GPU instance on the pricing page names its instance")
    return records
