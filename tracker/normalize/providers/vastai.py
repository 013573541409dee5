"""Vast.ai offers -> marketplace aggregates (tracker/normalize/market.py).

One offer is a host's `num_gpus` GPUs at `dph_total` dollars an hour (the
on-demand price with the default disk), and an interruptible minimum bid
`min_bid` where it states one. Offers are grouped per macro region of their
country (`geolocation`), GPU, GPU count, price model and verification tier
(`verification`: verified, unverified, deverified).

The GPU names Vast.ai writes are mapped to the datasheet's in
`gpu_specs/vastai.csv` (instance_type = Vast.ai's `gpu_name`); a name not
there is stored without a GPU model, and a note says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from db.schema import PriceModel
from spiders.vastai.items import VastItem, VastOffer
from tracker.normalize import Normalized, NormalizeError
from tracker.normalize.market import MarketOffer, country_code, macro_region, normalized, scope
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import GpuSpec, spec_table

PROVIDER = "vastai"
# Where a person rents these offers: the link an alert gives.
MARKET_URL = "https://cloud.vast.ai/create/"
MB_PER_GB = 1024


def gpu_spec(label: str, gpu_ram_mb: object) -> GpuSpec | None:
    """The spec row of a Vast.ai GPU name; where one name comes in two
    memory sizes (A100 PCIE and SXM4: 40 or 80 GB), the row of its size."""
    table = spec_table(PROVIDER)
    try:
        gb = round(float(gpu_ram_mb) / MB_PER_GB) if gpu_ram_mb not in (None, "") else None  # type: ignore[arg-type]  # any value: the except takes what float() refuses
    except (TypeError, ValueError):
        gb = None
    sized = table.get(f"{label} {gb}GB".lower()) if gb else None
    return sized or table.get(label.lower())


def _offers(data: VastOffer, notes: list[str]) -> list[MarketOffer]:
    label = str(data["gpu_name"]).strip()
    try:
        count = int(data["num_gpus"])
        total = to_decimal(data["dph_total"], what="dph_total")
        bid = None if data.get("min_bid") in (None, "") else to_decimal(data["min_bid"], what="min_bid")
    except (MoneyError, TypeError, ValueError) as exc:
        notes.append(f"vastai: offer {data.get('id')}: skipped: {exc}")
        return []
    if count < 1 or total <= 0:
        notes.append(f"vastai: offer {data.get('id')}: skipped: {count} GPUs at {total} an hour")
        return []
    country = country_code(data.get("geolocation"))
    spec = gpu_spec(label, data.get("gpu_ram"))
    base: dict[str, Any] = {
        "region": macro_region(country) if country else "other",
        "gpu_label": spec.instance_type if spec else label,
        "gpu_count": count,
        "gpu_model": spec.gpu_model if spec else None,
        "gpu_memory_gb": spec.gpu_memory_gb if spec else None,
        "tier": str(data.get("verification") or "").strip().lower(),
        "country": country,
    }
    found = [MarketOffer(hourly=total, **base)]
    if bid is not None and bid > 0:
        found.append(MarketOffer(hourly=bid, price_model=PriceModel.spot, **base))
    return found


def normalize(items: Iterable[VastItem]) -> Normalized:
    items = list(items)
    if not items:
        raise NormalizeError("vastai: the crawl returned no offers")
    notes: list[str] = []
    wanted = {r for i in items for r in i.get("regions") or []}
    # A host that changes its listing between two searches can show up in both: once each.
    by_id: dict[Any, VastOffer] = {}
    for item in items:
        by_id.setdefault(item["data"]["id"], item["data"])
    if len(by_id) != len(items):
        notes.append(f"vastai: {len(items) - len(by_id)} offers were listed twice; counted once")
    offers = [o for data in by_id.values() for o in _offers(data, notes) if not wanted or o.region in wanted]
    return normalized(
        PROVIDER, offers, items, currency="USD", source_url=MARKET_URL, notes=notes, regions=scope(wanted)
    )
