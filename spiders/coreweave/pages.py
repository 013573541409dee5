"""CoreWeave's pricing page (`https://www.coreweave.com/pricing`), rendered on
the server (Webflow). Two layouts of its GPU instances are known:

- a table (`.kubernetes-gpu-pricing`) of rows (`.table-row-v2`, earlier
  `.table-row`), each a grid of cells (`.table-v2-cell`): the instance's
  name (`h3.table-model-name`), GPU count, VRAM per GPU (GB), vCPUs, system
  RAM (GB), local storage (TB), and the instance's price per hour ("$49.24");
- cards, read as the page's lines of text between "On-demand GPU instances"
  and "On-demand CPU instances": a "Region: North America" line, then per
  instance its name ("NVIDIA HGX H100"), "On-Demand Price:" and "Spot Price:"
  with their amounts (on the label's line or the next), and its figures each
  written before its label ("8" then "GPU Count").

Footnote marks (`<sup>`) are not part of a value. Either layout gives the
same records; a page with neither is a shape error.
"""

from __future__ import annotations

import re

from parsel import Selector

from spiders.coreweave.items import CoreWeaveRow
from spiders.offers import text_of
from spiders.pages import PageShapeError

ROWS = (
    "//div[has-class('table-row-v2') or has-class('table-row')]"
    "[has-class('kubernetes-gpu-pricing') or ancestor::*[has-class('kubernetes-gpu-pricing')]]"
)
CELLS = ".//div[has-class('table-v2-cell')][not(ancestor::div[has-class('table-v2-cell')])]"
TEXT = "//body//text()[not(ancestor::script) and not(ancestor::style) and not(ancestor::sup)]"
_REGION = re.compile(r"^region:\s*(.+)$", re.IGNORECASE)
_NAME = re.compile(r"^NVIDIA\s+\S")
# card label -> record field; the value is the line before the label
FIGURES = {
    "gpu count": "gpu_count",
    "vram": "vram_gb",
    "vcpus": "vcpus",
    "system ram": "ram_gb",
    "local storage": "storage_tb",
}
AMOUNTS = {"on-demand price:": "price", "spot price:": "spot_price"}


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
    }


def _lines(page: Selector) -> list[str]:
    return [t.strip() for t in page.xpath(TEXT).getall() if t.strip()]


def _region(lines: list[str]) -> str:
    return next((m.group(1).strip() for line in lines if (m := _REGION.match(line))), "")


def _cell_text(cell: Selector) -> str:
    words = cell.xpath(".//text()[not(ancestor::sup)]").getall()
    return " ".join(w.strip() for w in words if w.strip())


def _table(page: Selector, region: str) -> list[CoreWeaveRow]:
    records = []
    for row in page.xpath(ROWS):
        name = text_of(row.css(".table-model-name")[:1] or None)
        cells = [_cell_text(c) for c in row.xpath(CELLS)]
        if cells and cells[0] == name:
            cells = cells[1:]
        if not name and not any(cells):
            continue  # an empty list item
        record = _blank(name, region)
        for field, value in zip(("gpu_count", "vram_gb", "vcpus", "ram_gb", "storage_tb"), cells[:-1], strict=False):
            record[field] = value  # type: ignore[literal-required]  # each a CoreWeaveRow key
        record["price"] = cells[-1] if cells else ""
        records.append(record)
    return records


def _cards(lines: list[str], region: str) -> list[CoreWeaveRow]:
    lowered = [line.lower() for line in lines]
    if "on-demand gpu instances" not in lowered:
        return []
    start = lowered.index("on-demand gpu instances")
    end = lowered.index("on-demand cpu instances") if "on-demand cpu instances" in lowered[start:] else len(lines)
    records: list[CoreWeaveRow] = []
    for i in range(start, end):
        line = lines[i]
        if (match := _REGION.match(line)) is not None:
            region = match.group(1).strip()
        elif _NAME.match(line) and i + 1 < end and lowered[i + 1].startswith("on-demand price"):
            records.append(_blank(line, region))
        elif records:
            label = lowered[i].rstrip()
            for prefix, field in AMOUNTS.items():
                if label.startswith(prefix):
                    rest = line[len(prefix) :].strip()
                    records[-1][field] = rest or (lines[i + 1] if i + 1 < end else "")  # type: ignore[literal-required]  # AMOUNTS: CoreWeaveRow keys
            if label in FIGURES and i > start:
                records[-1][FIGURES[label]] = lines[i - 1]  # type: ignore[literal-required]  # FIGURES: CoreWeaveRow keys
    return records


def parse_gpu_instances(page: Selector) -> list[CoreWeaveRow]:
    lines = _lines(page)
    region = _region(lines)
    records = _table(page, region) or _cards(lines, region)
    if not records:
        raise PageShapeError(
            "CoreWeave: the pricing page has neither a GPU instance table (.kubernetes-gpu-pricing) "
            "nor an 'On-demand GPU instances' section"
        )
    if not any(r["name"] for r in records):
        raise PageShapeError("CoreWeave: no GPU instance on the pricing page names its instance")
    return records
