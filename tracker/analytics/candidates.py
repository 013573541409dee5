"""Which instances can rank among the first few, decided from the store's
aggregates (`db.store.reads.rankings.instance_rates`) before any price is read in
full: `tco` and `recommend` then work out the candidates alone, exactly.

An approximate total is the TCO arithmetic (tco.py) in floats over each
instance's cheapest rate per kind of price. It is a ranking, never a shown
figure: a candidate is every instance whose total, less the most a credit
could take off it, is within a hair of the limit-th best total, and every
instance whose prices state something the floats leave out (a bundled disk,
tiered hourly rates). The exact totals of the candidates then rank them, so
the first `limit` are those the full computation would have ranked first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar

from db.store.reads import rankings
from db.store.reads.connection import Db
from db.store.reads.rows import PriceFilter
from tracker.analytics.facts.reference import References

# How far an approximate total may be from the exact one, relatively: floats
# of a few dozen operations are closer than this by many orders.
SLACK = 1e-9
_TERM_HOURS = {"reserved_1yr": 8760.0, "reserved_3yr": 26280.0}
_TERM_MONTHS = {"reserved_1yr": 12, "reserved_3yr": 36}
K = TypeVar("K", bound=Hashable)


@dataclass(slots=True)
class Approx:
    """One instance (provider, region, type) as the aggregates see it."""

    provider: str
    region: str
    instance_type: str
    gpu_model: str | None
    gpu_count: Decimal
    gpu_memory_gb: str | None
    rates: dict[str, float] = field(default_factory=dict)  # per kind, in the target currency, per hour
    special: bool = False
    sold_out: bool = False

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.provider, self.region, self.instance_type)


def approximate(db: Db, refs: References, currency: str, where: PriceFilter) -> list[Approx]:
    """The instances of the prices `where` asks for, by (provider, region,
    instance type). An unknown currency is the error the exact path gives."""
    found: dict[tuple[str, str, str], Approx] = {}
    rates: dict[str, float] = {}
    for row in rankings.instance_rates(db, where):
        key = (row["provider"], row["region"], row["instance_type"])
        inst = found.get(key)
        if inst is None:
            inst = found[key] = Approx(*key, row["gpu_model"], Decimal(row["gpu_count"]), row["gpu_memory_gb"])
        if row["currency"] not in rates:
            rates[row["currency"]] = float(refs.fx.conversion(row["currency"], currency).rate)
        inst.special |= bool(row["special"])
        inst.sold_out |= bool(row["sold_out"])
        fx = rates[row["currency"]]
        for cls in rankings.RATE_CLASSES:
            if row[cls] is None:
                continue
            rate = float(row[cls]) * fx
            if rate < inst.rates.get(cls, math.inf):
                inst.rates[cls] = rate
    return [found[key] for key in sorted(found)]


def fleet(gpus: Decimal, gpu_count: Decimal) -> int:
    return math.ceil(gpus / gpu_count)


@dataclass(frozen=True)
class Usage:
    """How a job uses its instances over the horizon, as the float factor of
    each kind of price: what one instance at a rate of 1 an hour costs under
    it (the TCO's arithmetic, tco.period_cost, in floats), worked out once
    for every option ranked."""

    factors: dict[str, float]

    @classmethod
    def of(cls, *, hours_per_month: Decimal, months: int, spot_overhead: Decimal) -> Usage:
        hours, overhead = float(hours_per_month), float(spot_overhead)
        factors = {"on_demand": hours * months, "spot": hours * overhead * months, "monthly": 720.0 * months}
        for model, term_hours in _TERM_HOURS.items():
            factors[model] = term_hours * math.ceil(months / _TERM_MONTHS[model])
        return cls(factors)

    def cost(self, rates: dict[str, float], shares: Sequence[tuple[str, float]], instances: int) -> float:
        """The compute cost of a mix (price model, share) for `instances` instances at these rates."""
        factors = self.factors
        if len(shares) == 1:  # one price model: most options, thousands of them a ranking
            model, share = shares[0]
            return instances * share * rates[model] * factors[model]
        return instances * sum(share * rates[model] * factors[model] for model, share in shares)


def best_keys(
    scored: Iterable[tuple[K, float, float, bool]], limit: int | None, score_of: Callable[[float], float] = float
) -> set[K]:
    """The keys that can rank in the first `limit`: `scored` holds (key,
    approximate score, lowest the exact score can be, always keep)."""
    items = list(scored)
    if limit is None or len(items) <= limit:
        return {key for key, *_ in items}
    bar = sorted(score for _, score, _, _ in items)[limit - 1]
    bar = bar + abs(bar) * SLACK + SLACK
    return {key for key, _, low, keep in items if keep or low <= bar}


def keys_filter(where: PriceFilter, keys: Sequence[tuple[str, str, str]]) -> PriceFilter:
    from dataclasses import replace

    return replace(where, instances=tuple(sorted(keys)))


def credit_bound(amounts: Sequence[tuple[Decimal, str]], refs: References, currency: str) -> float:
    """The most a credit of these (amount, currency) could take off a total."""
    return max((float(a) * float(refs.fx.conversion(c, currency).rate) for a, c in amounts), default=0.0)


def is_row_of(row: dict[str, Any], keys: set[tuple[str, str, str]]) -> bool:
    return (row["provider"], row["region"], row["instance_type"]) in keys
