"""矩池云 (MatPool) machines -> marketplace aggregates (tracker/normalize/market.py).

A machine has `gpu_total` GPUs of one model, `gpu_free` of them free, at a
price per GPU-hour in millicents of a yuan (¥1 = 100,000): the discounted
price where one is given (what a renter pays), else the list price. A
machine is one offer in each standard group it can fill (1, 2, 4, 8 GPUs).
MatPool does not say where a machine is: every group is in region `china`.
`gpu_specs/matpool.csv` maps MatPool's GPU names to the datasheet's models.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from spiders.matpool.items import MatpoolItem, MatpoolMachine
from tracker.normalize import Normalized, NormalizeError
from tracker.normalize.market import MarketOffer, normalized
from tracker.normalize.specs import spec_table

PROVIDER = "matpool"
MARKET_URL = "https://matpool.com/"
REGION = "china"
COUNTS = (1, 2, 4, 8)
MILLICENTS_PER_YUAN = Decimal(100_000)


def _offers(machine: MatpoolMachine, notes: list[str]) -> list[MarketOffer]:
    paid = machine.get("discount_millicent") or machine["price_millicent"]
    if paid <= 0:
        notes.append(f"matpool: machine {machine['agent_id']}: skipped: price {paid}")
        return []
    per_gpu = Decimal(paid) / MILLICENTS_PER_YUAN
    label = machine["gpu_name"].strip()
    spec = spec_table(PROVIDER).get(label.lower())
    free = min(machine["gpu_free"], machine["gpu_total"])
    return [
        MarketOffer(
            region=REGION,
            gpu_label=label,
            gpu_count=count,
            hourly=per_gpu * count,
            gpu_model=spec.gpu_model if spec else None,
            gpu_memory_gb=spec.gpu_memory_gb if spec else None,
        )
        for count in COUNTS
        if count <= free
    ]


def normalize(items: Iterable[MatpoolItem]) -> Normalized:
    items = list(items)
    if not items:
        raise NormalizeError("matpool: the market lists no machine")
    notes: list[str] = []
    by_id: dict[Any, MatpoolMachine] = {}
    for item in items:
        by_id.setdefault(item["data"]["agent_id"], item["data"])
    offers = [o for machine in by_id.values() for o in _offers(machine, notes)]
    return normalized(PROVIDER, offers, items, currency="CNY", source_url=MARKET_URL, notes=notes, regions=[REGION])
