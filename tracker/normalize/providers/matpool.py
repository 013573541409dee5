"""矩池云 (MatPool) machines -> marketplace aggregates (tracker/normalize/market.py).

A machine has `gpu_total` GPUs of one model, rented in units: `unit_total`
units on the machine, so `gpu_total / unit_total` GPUs a unit (a machine
without `unit` is rented GPU by GPU), `unit_free` units free now. The price
is of one unit for an hour, in millicents of a yuan (¥1 = 100,000): the
discounted price where one is given (what a renter pays), else the list
price; both public clients of the console read it so (spiders/matpool/pages.py).

A machine is one offer in each group a renter can take from it: a standard
count (1, 2, 4, 8 GPUs) or one unit, a whole number of units, no more than
its free units hold and no more than one instance takes (`gpu_max`). An
8-GPU machine sold in units of 2 at ¥4 is an offer of 2 GPUs at ¥4, 4 at ¥8
and 8 at ¥16; never of 1.

Groups are per MatPool region, `domain` (0 is MatPool's 1区, as a public
client reads it): region `region-1`, its name 1区 in the row's attributes; a
machine without a domain is in region `china`. A machine whose units do not
divide its GPUs is skipped with a note, never guessed.
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
REGION = "china"  # a machine that names no domain
COUNTS = (1, 2, 4, 8)
MILLICENTS_PER_YUAN = Decimal(100_000)


def region_of(machine: MatpoolMachine) -> tuple[str, str]:
    """(code, MatPool's name) of the machine's domain: 0 is 1区."""
    domain = machine.get("domain")
    if isinstance(domain, int) and domain >= 0:
        return f"region-{domain + 1}", f"{domain + 1}区"
    if isinstance(domain, str) and domain.strip():
        return domain.strip(), domain.strip()
    return REGION, ""


def unit_size(machine: MatpoolMachine) -> int | None:
    """GPUs in one rentable unit: gpu_total / unit_total; 1 without units;
    None when the units do not divide the GPUs."""
    units = machine.get("unit_total")
    if units is None:
        return 1
    if units <= 0 or machine["gpu_total"] % units:
        return None
    return machine["gpu_total"] // units


def group_counts(machine: MatpoolMachine, per_unit: int) -> list[int]:
    """The GPU counts a renter can take: whole units, within the free units
    and one instance's limit."""
    free_units = machine.get("unit_free")
    if free_units is None:
        free_units = machine["gpu_free"] // per_unit
    free = min(free_units * per_unit, machine["gpu_total"])
    limit = machine.get("gpu_max") or free
    return [c for c in sorted({*COUNTS, per_unit}) if c % per_unit == 0 and c <= min(free, limit)]


def _offers(machine: MatpoolMachine, notes: list[str]) -> list[MarketOffer]:
    paid = machine.get("discount_millicent") or machine["price_millicent"]
    if paid <= 0:
        notes.append(f"matpool: machine {machine['agent_id']}: skipped: price {paid}")
        return []
    per_unit = unit_size(machine)
    if per_unit is None:
        notes.append(
            f"matpool: machine {machine['agent_id']}: skipped: {machine.get('unit_total')} units"
            f" do not divide its {machine['gpu_total']} GPUs"
        )
        return []
    per_gpu = Decimal(paid) / MILLICENTS_PER_YUAN / per_unit
    label = machine["gpu_name"].strip()
    spec = spec_table(PROVIDER).get(label.lower())
    region, region_name = region_of(machine)
    return [
        MarketOffer(
            region=region,
            gpu_label=label,
            gpu_count=count,
            hourly=per_gpu * count,
            gpu_model=spec.gpu_model if spec else None,
            gpu_memory_gb=spec.gpu_memory_gb if spec else None,
            region_name=region_name,
        )
        for count in group_counts(machine, per_unit)
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
    # The crawl reads the whole market: every region it lists is covered.
    return normalized(PROVIDER, offers, items, currency="CNY", source_url=MARKET_URL, notes=notes, regions=[])
