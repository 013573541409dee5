"""The Compute pricing page of Nebius AI Cloud, as the Markdown the docs
site serves for it (`https://docs.nebius.com/compute/resources/pricing.md`).

Each VM platform is a `####` section: a heading naming it ("NVIDIA® H200
NVLink with Intel Sapphire Rapids"), a sentence naming the regions it is
available in (`eu-north1`), and tabs per currency (`<Tab title="USD">`,
`<Tab title="ILS">`) holding a table `| Item | Price | Unit |`. A table's
first header cell may say when it applies ("Item — from October 1, 2026"),
when the page announces a price change. Only the USD tab is read.
"""

from __future__ import annotations

import re

from spiders.nebius.items import NebiusPriceRow
from spiders.pages import PageShapeError

_SECTION = re.compile(r"^####\s+(.+?)\s*$", re.MULTILINE)
_END = re.compile(r"^#{1,4}\s", re.MULTILINE)
_REGION = re.compile(r"\b([a-z]{2}-[a-z]+\d)\b")
_USD = re.compile(r'<Tab\s+title="USD"\s*>(.*?)(?:</Tab>|<Tab\s)', re.DOTALL)
_TABLE = re.compile(r"<Tabs?[\s>].*?(?:</Tabs>|\Z)", re.DOTALL)
_ITEM_HEADER = re.compile(r"^\*{0,2}\s*Item\b(?:\s*[—–-]\s*(?P<period>[^*]+?))?\s*\*{0,2}$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _rows(usd: str, section: str, regions: list[str]) -> list[NebiusPriceRow]:
    rows: list[NebiusPriceRow] = []
    period: str | None = None
    for line in usd.splitlines():
        if not line.strip().startswith("|"):
            continue
        cells = _cells(line)
        header = _ITEM_HEADER.match(cells[0])
        if header:
            period = (header.group("period") or "").strip()
            continue
        if period is None or set("".join(cells)) <= set("-: "):
            continue  # a table we do not know, or the header's separator line
        if len(cells) < 3:
            raise PageShapeError(f"Nebius: a price row of {section!r} has {len(cells)} cells, not 3")
        rows.append(
            {
                "section": section,
                "regions": regions,
                "period": period,
                "item": cells[0],
                "price": cells[1],
                "unit": cells[2],
            }
        )
    return rows


def parse_pricing(text: str) -> list[NebiusPriceRow]:
    """One record per row of each platform's USD table."""
    heads = list(_SECTION.finditer(text))
    if not heads:
        raise PageShapeError("Nebius: the pricing page has no platform sections (#### headings)")
    rows: list[NebiusPriceRow] = []
    for head in heads:
        rest = text[head.end() :]
        end = _END.search(rest)
        body = rest[: end.start()] if end else rest
        usd = _USD.search(body)
        prose = _TABLE.sub(" ", body)
        regions = (
            [] if re.search(r"available in all regions", prose, re.I) else list(dict.fromkeys(_REGION.findall(prose)))
        )
        rows.extend(_rows(usd.group(1) if usd else body, head.group(1), regions))
    if not rows:
        raise PageShapeError("Nebius: no price table (| Item | Price | Unit |) under any platform section")
    return rows
