"""The Compute pricing page of Nebius AI Cloud, as the Markdown the docs
site serves for it (`https://docs.nebius.com/compute/resources/pricing.md`).

Each VM platform is a `####` section: a heading naming it, a sentence naming
the regions it is available in (`eu-north1`), and tabs per currency
(`<Tab title="USD">`, `<Tab title="ILS">`) holding a table `| Item | Price |
Unit |` (or `| Per |`), indented or not. A table's header cell may say when it
applies ("Item — from October 1, 2026"), when the page announces a price
change; one table may hold both periods, each under its own header row. Only
the USD tab is read.

No stored copy of the page itself is public (docs/providers/nebius.md), so
the heading is read in every form public material shows: the platform's name
alone ("NVIDIA® H200 NVLink with Intel Sapphire Rapids"), or followed by its
platform ID after a comma ("NVIDIA® B200 NVLink, gpu-b200-sxm", the form the
one public parser of this page splits) or in brackets ("... (gpu-h200-sxm)"),
the ID possibly in backticks, the heading possibly ending in an `{#anchor}`.
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
_ANCHOR = re.compile(r"\s*\{#[^}]*\}\s*$")
# "<name>, <platform ID>" or "<name> (<platform ID>)"; IDs as Nebius's API spells them
_PLATFORM_ID = re.compile(r"^(?P<name>.+?)\s*(?:,|\()\s*`?(?P<id>(?:gpu|cpu)-[a-z0-9][a-z0-9-]*)`?\s*\)?$")


def heading(text: str) -> tuple[str, str]:
    """A section heading as (the platform's name, its platform ID or "")."""
    text = _ANCHOR.sub("", text).strip()
    found = _PLATFORM_ID.match(text)
    return (found["name"], found["id"]) if found else (text, "")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _rows(usd: str, section: str, platform: str, regions: list[str]) -> list[NebiusPriceRow]:
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
                "platform": platform,
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
        section, platform = heading(head.group(1))
        rows.extend(_rows(usd.group(1) if usd else body, section, platform, regions))
    if not rows:
        raise PageShapeError("Nebius: no price table (| Item | Price | Unit |) under any platform section")
    return rows
