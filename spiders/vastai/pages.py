"""Vast.ai's offer search, `GET https://console.vast.ai/api/v0/bundles/?q=<JSON>`:
`{"offers": [{id, gpu_name, num_gpus, dph_total, min_bid, gpu_ram,
verification, reliability, geolocation, ...}]}` (vast-ai/docs,
api-reference/openapi: "Search Offers (GET)"; the fields of `vastai search
offers` in vast-ai/vast-cli docs/cli/client/search.md).

The page keeps the fields the tracker reads. An offer without an id, a GPU
name, a GPU count or a price cannot be grouped: it is dropped here and
counted, and the spider says how many (one odd offer never sinks the run).
"""

from __future__ import annotations

from typing import Any

from spiders.pages import PageShapeError, json_page, typed
from spiders.vastai.items import VastOffer

# The fields kept and their kinds; one of another kind reads as absent.
KEPT = {
    "id": (int, str),
    "gpu_name": str,
    "num_gpus": int,
    "dph_total": "number",
    "gpu_ram": "number",
    "min_bid": "number",
    "geolocation": str,
    "verification": str,
    "reliability": "number",
}
REQUIRED = ("id", "gpu_name", "num_gpus", "dph_total")


def parse_offers(body: bytes) -> tuple[list[VastOffer], int]:
    """The readable offers of one answer, and how many were not."""
    page = json_page(body, "vastai", "offers")
    offers: list[VastOffer] = []
    odd = 0
    for offer in page["offers"]:
        kept = typed(offer, KEPT) if isinstance(offer, dict) else {}
        if any(kept.get(k) in (None, "") for k in REQUIRED):
            odd += 1
            continue
        offers.append(kept)  # type: ignore[arg-type]  # typed() kept KEPT's fields, REQUIRED ones present
    if page["offers"] and not offers:
        raise PageShapeError(f"vastai: none of the {len(page['offers'])} offers has {', '.join(REQUIRED)}")
    return offers, odd


def api_error(body: Any) -> str | None:
    """The error an answer carries (`{"error": ..., "msg": ...}`), if any."""
    if isinstance(body, dict) and body.get("error"):
        return f"{body.get('error')}: {body.get('msg') or ''}".strip(": ")
    return None
