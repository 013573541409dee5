"""What Crusoe's pricing page and API answers say (pure functions, no Scrapy).

- `https://www.crusoe.ai/cloud/pricing`, a Webflow page rendered on the server.
  Each GPU is a card: a `.pricing-item-heading` heading ("NVIDIA H100"), tags
  (`.pricing-tag`: the memory "80GB" and the board "HGX", "SXM", "PCIe") and
  price blocks (`.pricing-rich`, the price in their first paragraph:
  "$3.90/GPU-hr" or "Contact sales"), the first block on demand. Two card
  layouts are known from public scrapers of the page: `div.pricing_gpu-item`
  and, since about December 2025, the CMS list items `.prixing-item` (sic).
  The page reuses the card for its other tables (CPU instances, storage,
  serverless inference, and "Self-Serve Deployments": inference endpoints
  with GPU headings, "NVIDIA H100", priced "$5.50" an endpoint-hour): each
  card carries the heading of its section (the nearest h1 to h3 before it),
  whose meaning is the normalizer's question (a real copy of the page,
  tests/fixtures/crusoe/pricing-real-2026-08-22.html).
- The API's `{"items": [...]}` answers: `/organizations/projects`
  (`Project`), `/projects/{id}/compute/vms/types` (`Type`) and `/capacities`
  (`CapacityV1`); errors are `{"code", "message"}`.

Records are returned as seen; whether one can be priced is the normalizer's
question. A page with no card, or an answer with no items list, is a
PageShapeError.
"""

from __future__ import annotations

from typing import Any, cast

from parsel import Selector

from spiders.crusoe.items import Capacity, PriceCard, VmType
from spiders.offers import text_of
from spiders.pages import PageShapeError, load_json

_CARD = "has-class('pricing_gpu-item') or has-class('prixing-item')"
CARDS = f"//div[{_CARD}][not(ancestor::div[{_CARD}])]"
SECTION = "preceding::*[self::h1 or self::h2 or self::h3][1]"


def parse_pricing(page: Selector) -> list[PriceCard]:
    cards: list[PriceCard] = []
    for card in page.xpath(CARDS):
        heading = card.css(".pricing-item-heading")
        name = text_of(heading[0]) if heading else ""
        if not name:
            continue
        tags = [t for t in (text_of(tag) for tag in card.css(".pricing-tag")) if t]
        prices = []
        for block in card.css(".pricing-rich"):
            first = block.xpath(".//p")
            prices.append(text_of(first[0]) if first and text_of(first[0]) else text_of(block))
        record: PriceCard = {"name": name, "tags": tags, "prices": prices}
        section = card.xpath(SECTION)
        if section and text_of(section[0]):
            record["section"] = text_of(section[0])
        cards.append(record)
    if not cards:
        raise PageShapeError("Crusoe: the pricing page has no GPU card (.pricing_gpu-item or .prixing-item)")
    return cards


def api_error(body: bytes) -> str | None:
    """'code: message' of an error answer, or None when the body is not one."""
    try:
        page = load_json(body, "Crusoe: the answer", exact=False)
    except PageShapeError:
        return None
    if not isinstance(page, dict) or "message" not in page:
        return None
    return f"{page.get('code') or '?'}: {page.get('message') or ''}"


def _items(body: bytes, what: str) -> list[dict[str, Any]]:
    page = load_json(body, f"Crusoe: the {what} answer")
    items = page.get("items") if isinstance(page, dict) else None
    if not isinstance(items, list):
        raise PageShapeError(f"Crusoe: the {what} answer has no items list")
    return [i for i in items if isinstance(i, dict)]


def first_project(body: bytes) -> str:
    ids = [p.get("id") for p in _items(body, "projects")]
    found = [i for i in ids if isinstance(i, str) and i]
    if not found:
        raise PageShapeError("Crusoe: the key sees no project; set project_id under [providers.crusoe]")
    return found[0]


def parse_types(body: bytes) -> list[VmType]:
    types = _items(body, "VM types")
    if not types:
        raise PageShapeError("Crusoe: the VM types answer lists no type")
    return [cast(VmType, t) for t in types]


def parse_capacities(body: bytes) -> list[Capacity]:
    return [cast(Capacity, c) for c in _items(body, "capacities")]
