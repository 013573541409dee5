"""AutoDL machines -> marketplace aggregates (tracker/normalize/market.py).

A machine has `gpu_number` GPUs of one model, `gpu_idle_num` of them free,
`gpu_order_num` of them orderable now, at a price per GPU-hour in 厘
(thousandths of a yuan; ¥1 = 1000 厘). Public clients of the list rent a
machine only when `gpu_order_num` is at least the count they want (a machine
can list GPUs idle and none orderable): so a renter takes 1 to the orderable
number (the idle one, on an answer without `gpu_order_num`), and one machine
is one offer in each standard group it can fill: 1, 2, 4 and 8 GPUs. A
machine with nothing orderable is no offer (counted in a note). Groups are per AutoDL region
(`region_sign`, its Chinese name in `attrs.region_name`), GPU and count, in
CNY, pay as you go.

`gpu_specs/autodl.csv` maps AutoDL's GPU names to the datasheet's models.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from spiders.autodl.items import AutodlItem, AutodlMachine
from tracker.normalize import Normalized, NormalizeError
from tracker.normalize.market import MarketOffer, normalized
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import spec_table

PROVIDER = "autodl"
MARKET_URL = "https://www.autodl.com/market/list"
COUNTS = (1, 2, 4, 8)
LI_PER_YUAN = Decimal(1000)
GIB = 1024**3


def orderable(machine: AutodlMachine) -> int:
    """How many GPUs a renter can take now: the idle ones, no more than the orderable."""
    free = min(machine["gpu_idle_num"], machine["gpu_number"])
    order = machine.get("gpu_order_num")
    return free if order is None else max(0, min(free, order))


def _offers(machine: AutodlMachine, notes: list[str]) -> list[MarketOffer]:
    try:
        per_gpu = to_decimal(machine["price"], what="price") / LI_PER_YUAN
    except MoneyError as exc:
        notes.append(f"autodl: machine {machine['machine_id']}: skipped: {exc}")
        return []
    if per_gpu <= 0:
        notes.append(f"autodl: machine {machine['machine_id']}: skipped: price {machine['price']}")
        return []
    label = machine["gpu_name"].strip()
    spec = spec_table(PROVIDER).get(label.lower())
    memory = spec.gpu_memory_gb if spec else None
    if memory is None and isinstance(stated := machine.get("gpu_memory"), int) and stated > 0:
        memory = Decimal(round(stated / GIB))
    free = orderable(machine)
    return [
        MarketOffer(
            region=machine["region_sign"],
            gpu_label=label,
            gpu_count=count,
            hourly=per_gpu * count,
            gpu_model=spec.gpu_model if spec else None,
            gpu_memory_gb=memory,
            region_name=str(machine.get("region_name") or ""),
        )
        for count in COUNTS
        if count <= free
    ]


def normalize(items: Iterable[AutodlItem]) -> Normalized:
    items = list(items)
    if not items:
        raise NormalizeError("autodl: the market list has no machine with a GPU free")
    notes: list[str] = []
    by_id: dict[str, AutodlMachine] = {}
    for item in items:  # a machine rented between two pages can move to the next one
        by_id.setdefault(item["data"]["machine_id"], item["data"])
    if len(by_id) != len(items):
        notes.append(f"autodl: {len(items) - len(by_id)} machines were listed twice; counted once")
    offers = [o for machine in by_id.values() for o in _offers(machine, notes)]
    idle = sorted(m["machine_id"] for m in by_id.values() if m["gpu_idle_num"] > 0 and orderable(m) == 0)
    if idle:
        notes.append(f"autodl: {len(idle)} machines have GPUs idle but none orderable (gpu_order_num 0): no offer")
    # Every region asked (all when none was), so that a region with nothing free now still counts.
    asked = sorted({r for i in items for r in i.get("regions") or []})
    return normalized(PROVIDER, offers, items, currency="CNY", source_url=MARKET_URL, notes=notes, regions=asked)
