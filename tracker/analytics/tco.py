"""Total cost of ownership over a horizon: compute under a mix of price
models, egress and storage at each provider's dated rates, less a credit.

The arithmetic, per instance type (n instances = ceil(GPUs / GPUs per instance)):

- on_demand:    share x n x hours/month x hourly x months
- spot:         share x n x hours/month x spot hourly x overhead x months
- monthly:      share x n x monthly price x months (paid whatever the hours)
- reserved_1yr: share x n x 1-year term total x ceil(months / 12)
- reserved_3yr: share x n x 3-year term total x ceil(months / 36)
- egress:       GB/month x rate x months;  storage: GB x rate per GB-month x months
- credits:      min(credit, spend in the credit's validity window, its per-hour or
                per-month cap over that window), only for its provider and when
                the whole spend reaches its minimum; for a 满减 ladder, the best
                tier the whole spend reaches.

A term total is the effective hourly rate (upfront fee amortised) times the
term's hours; commitments are bought in whole terms. The break-even point is
the hours of use a month above which a reserved term costs less than on demand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import pandas as pd

from db.schema import HOURS_PER_MONTH, HOURS_PER_YEAR, effective_hourly
from tracker.analytics.columns import TCO_COLUMNS
from tracker.analytics.compare import SPOT_MODELS, instance_key
from tracker.analytics.history import records
from tracker.analytics.reference import References
from tracker.errors import UserError

MIX_MODELS = ("on_demand", "spot", "monthly", "reserved_1yr", "reserved_3yr")
COMMITMENT_MODELS = ("reserved", "savings_plan", "yearly")
_TERMS = {"reserved_1yr": ("1yr", HOURS_PER_YEAR, 12), "reserved_3yr": ("3yr", 3 * HOURS_PER_YEAR, 36)}
MONEY = Decimal("0.01")


@dataclass(frozen=True)
class Credit:
    amount: Decimal
    currency: str
    provider: str | None = None
    months: int | None = None
    min_spend: Decimal | None = None
    label: str = "credit"
    tiers: tuple[tuple[Decimal, Decimal], ...] = ()  # a 满减 ladder: (minimum spend, amount) steps
    cap_per_hour: Decimal | None = None  # at most this much of it a hour of use
    cap_per_month: Decimal | None = None


@dataclass(frozen=True)
class TcoInputs:
    count: Decimal = Decimal(1)
    hours_per_month: Decimal = HOURS_PER_MONTH
    months: int = 36
    mix: dict[str, Decimal] = field(default_factory=lambda: {"on_demand": Decimal(1)})
    spot_overhead: Decimal = Decimal("1.1")
    storage_gb: Decimal = Decimal(0)
    egress_gb_per_month: Decimal = Decimal(0)
    credit: Credit | None = None
    currency: str = "USD"


def parse_mix(text: str) -> dict[str, Decimal]:
    """'on_demand=0.25,reserved_3yr=0.75' (shares of the fleet, summing to 1;
    percentages summing to 100 work too)."""
    mix: dict[str, Decimal] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, share = part.partition("=")
        name = name.strip()
        if not sep or name not in MIX_MODELS:
            raise UserError(f"--mix: {part!r} is not MODEL=SHARE with MODEL one of {', '.join(MIX_MODELS)}")
        try:
            value = Decimal(share.strip().rstrip("%"))
        except InvalidOperation:
            raise UserError(f"--mix: {share!r} is not a number") from None
        if value < 0:
            raise UserError(f"--mix: the share of {name} is negative")
        mix[name] = mix.get(name, Decimal(0)) + value
    total = sum(mix.values(), Decimal(0))
    if total == 100:
        mix = {k: v / 100 for k, v in mix.items()}
    elif total != 1:
        raise UserError(f"--mix: the shares add up to {total}, not 1 (or 100%)")
    return {k: v for k, v in mix.items() if v}


@dataclass
class PricedInstance:
    row: dict[str, Any]
    fx: set[str] = field(default_factory=set)
    rates: dict[str, Decimal] = field(default_factory=dict)

    def offer(self, model: str, value: Decimal) -> None:
        self.rates[model] = min(value, self.rates.get(model, value))


def instance_rates(prices: pd.DataFrame, refs: References, currency: str) -> dict[tuple, PricedInstance]:
    """Per instance (provider, region, type, os): its cheapest rate under each
    price model of the mix, in `currency` (an hourly rate, a month's price or
    a whole term's total)."""
    found: dict[tuple, PricedInstance] = {}
    for row in records(prices) if not prices.empty else []:
        hourly = effective_hourly(row["price"], row["unit"], row["term"], row["upfront_fee"])
        if hourly is None or not row.get("gpu_count") or row["os"] != "linux":
            continue
        conversion = refs.fx.conversion(row["currency"], currency)
        hourly *= conversion.rate
        inst = found.setdefault(instance_key(row), PricedInstance(row))
        if row["currency"] != currency:
            inst.fx.add(f"{conversion.label(row['currency'], currency)} ({conversion.date})")
        model = row["price_model"]
        if model == "on_demand" and row["unit"] == "hour":
            inst.offer("on_demand", hourly)
        elif model in SPOT_MODELS:
            inst.offer("spot", hourly)
        elif model == "monthly":
            inst.offer("monthly", hourly * HOURS_PER_MONTH)
        elif model in COMMITMENT_MODELS:
            for name, (term, hours, _) in _TERMS.items():
                if row["term"] == term:
                    inst.offer(name, hourly * hours)
    return found


def tco_frame(
    prices: pd.DataFrame, refs: References, inputs: TcoInputs, region_group: str | None = None
) -> pd.DataFrame:
    """Rank every instance type in `prices` that offers each model of the mix
    by its total cost over the horizon. `frame.attrs["skipped"]` counts the
    instance types left out because a price model of the mix was missing."""
    out, skipped = [], 0
    for inst in instance_rates(prices, refs, inputs.currency).values():
        row = inst.row
        if region_group and refs.region_group(row["provider"], row["region"]) != region_group:
            continue
        if any(model not in inst.rates for model in inputs.mix):
            skipped += 1
            continue
        out.append(instance_costs(inst, refs, inputs))
    out.sort(key=lambda r: (r["total"], r["provider"], r["region"], r["instance_type"]))
    for rank, row in enumerate(out, start=1):
        row["rank"] = rank
        for name in ("compute", "egress", "storage", "credits", "total"):
            row[name] = row[name].quantize(MONEY)
    frame = pd.DataFrame(out, columns=TCO_COLUMNS)
    frame.attrs["skipped"] = skipped
    return frame


def instance_costs(inst: PricedInstance, refs: References, inputs: TcoInputs) -> dict[str, Any]:
    """One instance's costs over the horizon under `inputs` (its mix must be
    one the instance has every rate of); Decimals unrounded."""
    row, rates = inst.row, inst.rates
    months, hours = Decimal(inputs.months), inputs.hours_per_month
    instances = fleet_size(inst, inputs)
    compute = Decimal(0)
    for model, share in inputs.mix.items():
        cost, periods = period_cost(inst, inputs, model, share)
        compute += cost * periods
    provider_rates = refs.provider_rates.get(row["provider"])
    egress = storage = Decimal(0)
    egress_rate = storage_rate = None
    if provider_rates is not None:
        conversion = refs.fx.conversion(provider_rates.currency, inputs.currency)
        egress_rate = provider_rates.egress_per_gb * conversion.rate
        storage_rate = provider_rates.storage_per_gb_month * conversion.rate
        egress = inputs.egress_gb_per_month * egress_rate * months
        storage = inputs.storage_gb * storage_rate * months
        if provider_rates.currency != inputs.currency:
            inst.fx.add(f"{conversion.label(provider_rates.currency, inputs.currency)} ({conversion.date})")
    elif inputs.egress_gb_per_month or inputs.storage_gb:
        raise UserError(
            f"no egress and storage rates for {row['provider']}; add [analytics.provider_rates."
            f"{row['provider']}] to the configuration"
        )
    subtotal = compute + egress + storage
    credits = _credit(inputs, refs, row["provider"], subtotal, inst.fx)
    total = subtotal - credits
    on_demand = rates.get("on_demand")
    return {
        **{k: row.get(k) for k in ("provider", "region", "instance_type", "gpu_model", "gpu_count")},
        "instances": instances,
        "compute": compute,
        "egress": egress,
        "storage": storage,
        "credits": credits,
        "total": total,
        "currency": inputs.currency,
        "per_gpu_hour": (total / (inputs.count * hours * months)).quantize(Decimal("0.0001")) if hours else None,
        "on_demand_hourly": on_demand.quantize(Decimal("0.000001")) if on_demand is not None else None,
        "break_even_1yr_hours": break_even_hours(on_demand, rates.get("reserved_1yr"), 12),
        "break_even_3yr_hours": break_even_hours(on_demand, rates.get("reserved_3yr"), 36),
        "egress_per_gb": egress_rate,
        "storage_per_gb_month": storage_rate,
        "rates_date": provider_rates.date if provider_rates else None,
        "rates_source": provider_rates.source if provider_rates else None,
        "fx": "; ".join(sorted(inst.fx)),
    }


def fleet_size(inst: PricedInstance, inputs: TcoInputs) -> Decimal:
    """Instances the job takes: ceil(GPUs needed / GPUs per instance)."""
    return Decimal(math.ceil(inputs.count / inst.row["gpu_count"]))


def period_cost(inst: PricedInstance, inputs: TcoInputs, model: str, share: Decimal) -> tuple[Decimal, int]:
    """What one purchase period of `model` costs for its share of the fleet,
    and how many periods the horizon buys: a month for hourly and monthly
    prices, a whole term for 1- and 3-year terms."""
    fleet, rate = share * fleet_size(inst, inputs), inst.rates[model]
    if model == "on_demand":
        return fleet * inputs.hours_per_month * rate, inputs.months
    if model == "spot":
        return fleet * inputs.hours_per_month * rate * inputs.spot_overhead, inputs.months
    if model == "monthly":
        return fleet * rate, inputs.months
    return fleet * rate, math.ceil(inputs.months / _TERMS[model][2])


def term_months(model: str) -> int:
    """Months one purchase of `model` covers (1 for hourly and monthly prices)."""
    return _TERMS[model][2] if model in _TERMS else 1


def break_even_hours(on_demand_hourly: Decimal | None, term_total: Decimal | None, term_months: int) -> Decimal | None:
    """Hours of use a month above which the term costs less than on demand."""
    if not on_demand_hourly or term_total is None:
        return None
    return (term_total / term_months / on_demand_hourly).quantize(Decimal("0.1"))


def _credit(inputs: TcoInputs, refs: References, provider: str, subtotal: Decimal, fx: set[str]) -> Decimal:
    credit = inputs.credit
    if credit is None or (credit.provider and credit.provider != provider):
        return Decimal(0)
    conversion = refs.fx.conversion(credit.currency, inputs.currency)
    if credit.currency != inputs.currency:
        fx.add(f"{conversion.label(credit.currency, inputs.currency)} ({conversion.date})")
    amount = credit.amount
    if credit.tiers:
        reached = [off for low, off in credit.tiers if subtotal >= low * conversion.rate]
        if not reached:
            return Decimal(0)
        amount = max(reached)
    elif credit.min_spend is not None and subtotal < credit.min_spend * conversion.rate:
        return Decimal(0)
    window = min(credit.months or inputs.months, inputs.months)
    usable = subtotal * window / inputs.months
    if credit.cap_per_hour is not None:
        usable = min(usable, credit.cap_per_hour * conversion.rate * inputs.hours_per_month * window)
    if credit.cap_per_month is not None:
        usable = min(usable, credit.cap_per_month * conversion.rate * window)
    return min(amount * conversion.rate, usable)
