"""Total cost of ownership over a horizon: compute under a mix of price
models, egress and storage at each provider's dated rates, less a credit.

The arithmetic, per instance type (n instances = ceil(GPUs / GPUs per instance)):

- on_demand:    share x n x hours/month x hourly x months
- spot:         share x n x hours/month x spot hourly x overhead x months, the
                overhead the expected cost of interruptions (bill/spot_risk.py,
                docs/spot-risk.md): 1 + n x p x checkpoint hours / 720 for a
                pool whose band is stated, the fixed x1.1 where it is unknown
- monthly:      share x n x monthly price x months (paid whatever the hours)
- reserved_1yr: share x n x 1-year term total x ceil(months / 12)
- reserved_3yr: share x n x 3-year term total x ceil(months / 36)
- egress:       GB/month through the provider's tiers x months; inter-region
                likewise; storage: GB x rate per GB-month x months: tracked
                prices of the instance's region where there are, else the
                dated reference table (bill/side_costs.py, docs/side-costs.md)
- credits:      min(credit, spend in the credit's validity window, its per-hour or
                per-month cap over that window), only for its provider and when
                the whole spend reaches its minimum; for a 满减 ladder, the best
                tier the whole spend reaches.

A term total is the effective hourly rate (upfront fee amortised) times the
term's hours; commitments are bought in whole terms. The break-even point is
the hours of use a month above which a reserved term costs less than on demand.

What a price row states beside its price counts too (its attrs):
- `local_ssd_hourly`: the Local SSD a machine comes with (GCP's a2-ultragpu,
  a3, a4), billed with it; added to the hourly rate of that price model.
- `hourly_steps`: an hourly price tiered by hours of use (Tencent's "from 0 h:
  12.5; from 96 h: 11; from 360 h: 9.8"); on demand and spot then cost the
  schedule over each instance's hours of use in the horizon (hours/month x
  months, counted from the first hour), not the first step times the hours.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from db.money import HOURS_PER_MONTH, HOURS_PER_YEAR, effective_hourly
from db.store.reads.connection import open_db
from db.store.reads.rows import PriceFilter
from tracker.analytics import candidates
from tracker.analytics.columns import TCO_COLUMNS
from tracker.analytics.compare import SPOT_MODELS, instance_key
from tracker.analytics.points import price_records

# pandas loads only where a frame is made: the command line ranks without it.
if TYPE_CHECKING:
    import pandas as pd
    import sqlalchemy as sa

    from db.store.reads.connection import Db
from tracker.analytics.bill.side_costs import SideRates, bill_side_costs, no_rates, side_columns, side_rates_known
from tracker.analytics.bill.spot_risk import SpotRisk, spot_cost_parts
from tracker.analytics.facts.reference import References
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
    inter_region_gb_per_month: Decimal = Decimal(0)
    credit: Credit | None = None
    currency: str = "USD"
    # The interruption bands and the buyer's checkpoints (bill/spot_risk.py); None: no band known.
    risk: SpotRisk | None = None
    # The tracked side costs (bill/side_costs.py); None: the reference table's rates only.
    side: SideRates | None = None

    @property
    def spot_risk(self) -> SpotRisk:
        return self.risk or SpotRisk(fixed_overhead=self.spot_overhead)


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


# A step of a tiered hourly price: the hour of use it starts at, and its rate.
Steps = list[tuple[Decimal, Decimal]]
_STEP = re.compile(r"from (\d+) h: (\d+(?:\.\d+)?)")


@dataclass
class PricedInstance:
    row: dict[str, Any]
    fx: set[str] = field(default_factory=set)
    rates: dict[str, Decimal] = field(default_factory=dict)
    # Tiered hourly prices by model, the schedule of the rate kept in `rates`.
    steps: dict[str, Steps] = field(default_factory=dict)

    def offer(self, model: str, value: Decimal, steps: Steps | None = None) -> None:
        if model in self.rates and self.rates[model] <= value:
            return
        self.rates[model] = value
        if steps:
            self.steps[model] = steps
        else:
            self.steps.pop(model, None)


def _attrs(row: dict[str, Any]) -> dict[str, Any]:
    attrs = row.get("attrs")
    return attrs if isinstance(attrs, dict) else {}


def bundled_hourly(row: dict[str, Any]) -> Decimal:
    """What the machine's bundled Local SSD adds to each hour (attrs `local_ssd_hourly`), else 0."""
    value = _attrs(row).get("local_ssd_hourly")
    try:
        return Decimal(str(value)) if value not in (None, "") else Decimal(0)
    except InvalidOperation:
        return Decimal(0)


def hourly_steps(row: dict[str, Any], rate: Decimal) -> Steps | None:
    """The step schedule of a tiered hourly price (attrs `hourly_steps`),
    each step scaled as the row's price is to `rate`; None when untiered."""
    found = [
        (Decimal(start), Decimal(value)) for start, value in _STEP.findall(str(_attrs(row).get("hourly_steps", "")))
    ]
    if len(found) < 2 or found[0][0] != 0 or not found[0][1]:
        return None
    scale = rate / found[0][1]
    return [(start, value * scale) for start, value in found]


def stepped_cost(steps: Steps, hours: Decimal) -> Decimal:
    """The cost of `hours` of use under a step schedule."""
    cost = Decimal(0)
    for n, (start, rate) in enumerate(steps):
        end = steps[n + 1][0] if n + 1 < len(steps) else hours
        cost += max(Decimal(0), min(hours, end) - start) * rate
    return cost


def as_rows(prices: pd.DataFrame | list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(prices, list):
        return prices
    from tracker.analytics.history import records

    return records(prices) if not prices.empty else []


def instance_rates(
    prices: pd.DataFrame | list[dict[str, Any]], refs: References, currency: str
) -> dict[tuple, PricedInstance]:
    """Per instance (provider, region, type, os): its cheapest rate under each
    price model of the mix, in `currency` (an hourly rate, a month's price or
    a whole term's total). `prices`: a frame or `price_record`s."""
    found: dict[tuple, PricedInstance] = {}
    for row in as_rows(prices):
        hourly = effective_hourly(row["price"], row["unit"], row["term"], row["upfront_fee"])
        if hourly is None or not row.get("gpu_count") or row["os"] != "linux":
            continue
        conversion = refs.fx.conversion(row["currency"], currency)
        hourly = (hourly + bundled_hourly(row)) * conversion.rate
        inst = found.setdefault(instance_key(row), PricedInstance(row))
        if row["currency"] != currency:
            inst.fx.add(f"{conversion.label(row['currency'], currency)} ({conversion.date})")
        model = row["price_model"]
        if model == "on_demand" and row["unit"] == "hour":
            inst.offer("on_demand", hourly, hourly_steps(row, hourly))
        elif model in SPOT_MODELS:
            inst.offer("spot", hourly, hourly_steps(row, hourly))
        elif model == "monthly":
            inst.offer("monthly", hourly * HOURS_PER_MONTH)
        elif model in COMMITMENT_MODELS:
            for name, (term, hours, _) in _TERMS.items():
                if row["term"] == term:
                    inst.offer(name, hourly * hours)
    return found


def tco_frame(
    prices: pd.DataFrame | list[dict[str, Any]],
    refs: References,
    inputs: TcoInputs,
    region_group: str | None = None,
) -> pd.DataFrame:
    """Rank every instance type in `prices` that offers each model of the mix
    by its total cost over the horizon. `frame.attrs["skipped"]` counts the
    instance types left out because a price model of the mix was missing."""
    out, skipped = tco_ranked(prices, refs, inputs, region_group)
    return _tco_table(out, skipped)


def _tco_table(rows: list[dict[str, Any]], skipped: int) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(rows, columns=TCO_COLUMNS)
    frame.attrs["skipped"] = skipped
    return frame


def tco_ranked(
    prices: pd.DataFrame | list[dict[str, Any]],
    refs: References,
    inputs: TcoInputs,
    region_group: str | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """The rows of `tco_frame`, and how many instance types were left out."""
    out, skipped = [], 0
    for inst in instance_rates(prices, refs, inputs.currency).values():
        row = inst.row
        if region_group and refs.region_group(row["provider"], row["region"]) != region_group:
            continue
        if any(model not in inst.rates for model in inputs.mix):
            skipped += 1
            continue
        if "spot" in inputs.mix and not inputs.spot_risk.allowed(row):  # --max-interruption
            skipped += 1
            continue
        if not side_rates_known(refs, inputs, row["provider"], row.get("region") or ""):
            skipped += 1
            continue
        out.append(instance_costs(inst, refs, inputs))
    out.sort(key=lambda r: (r["total"], r["provider"], r["region"], r["instance_type"]))
    for rank, row in enumerate(out, start=1):
        row["rank"] = rank
        for name in ("compute", "egress", "inter_region", "storage", "credits", "total"):
            row[name] = row[name].quantize(MONEY)
    return out, skipped


def tco_store(
    store: Db | sa.Engine,
    refs: References,
    inputs: TcoInputs,
    *,
    gpu: str | None = None,
    provider: str | None = None,
    region_group: str | None = None,
    limit: int | None = None,
) -> pd.DataFrame:
    """`tco_frame` of the current prices of `gpu` (and `provider`), asked of the store (`tco_rows`)."""
    rows, skipped = tco_rows(store, refs, inputs, gpu=gpu, provider=provider, region_group=region_group, limit=limit)
    return _tco_table(rows, skipped)


def tco_rows(
    store: Db | sa.Engine,
    refs: References,
    inputs: TcoInputs,
    *,
    gpu: str | None = None,
    provider: str | None = None,
    region_group: str | None = None,
    limit: int | None = None,
    include_suspect: bool = False,
) -> tuple[list[dict[str, Any]], int]:
    """The rows of `tco_frame` of the current prices of `gpu` (and
    `provider`), asked of the store, and how many instance types were left
    out: with `limit`, only the instances that can rank among the first
    `limit` (tracker/analytics/candidates.py) are priced in full, and only
    those rows are returned. `store`: an engine, or a connection of
    `db.store.reads.reader` (neither pandas nor SQLAlchemy loaded)."""
    where = PriceFilter(gpu=gpu, provider=provider, os="linux", with_gpus=True, include_suspect=include_suspect)
    if limit is None or ("spot" in inputs.mix and inputs.spot_risk.max_interruption is not None):
        # --max-interruption leaves out spot pools region by region: every price, exactly.
        rows, skipped = tco_ranked(price_records(store, where), refs, inputs, region_group)
        return rows[:limit] if limit is not None else rows, skipped
    with open_db(store) as conn, conn.scanning() as db:
        found = candidates.approximate(db, refs, inputs.currency, where)
    credit = inputs.credit
    amounts = [(credit.amount, credit.currency), *((a, credit.currency) for _, a in credit.tiers)] if credit else []
    scored, skipped = [], 0
    floor, usage = inputs.spot_risk.usage_bounds(inputs.hours_per_month, inputs.months)
    shares = [(model, float(share)) for model, share in inputs.mix.items()]
    for inst in found:
        if region_group and refs.region_group(inst.provider, inst.region) != region_group:
            continue
        if any(model not in inst.rates for model in inputs.mix):
            skipped += 1
            continue
        if not side_rates_known(refs, inputs, inst.provider, inst.region):
            skipped += 1
            continue
        sides = bill_side_costs(refs, inputs, inst.provider, inst.region).values()
        side = float(sum((c.month for c in sides if c), Decimal(0))) * inputs.months
        instances = candidates.fleet(inputs.count, inst.gpu_count)
        total = usage.cost(inst.rates, shares, instances) + side
        off = 0.0
        if credit and (not credit.provider or credit.provider == inst.provider):
            off = candidates.credit_bound(amounts, refs, inputs.currency)
        lowest = floor.cost(inst.rates, shares, instances) + side  # spot's interruptions cost at least nothing
        scored.append((inst.key, total, lowest - off, inst.special))
    keys = candidates.best_keys(scored, limit)
    rows = price_records(store, candidates.keys_filter(where, sorted(keys))) if keys else []
    return tco_ranked(rows, refs, inputs, region_group)[0][:limit], skipped


_no_rates = no_rates  # recommend/store.py's name for it


def instance_costs(inst: PricedInstance, refs: References, inputs: TcoInputs) -> dict[str, Any]:
    """One instance's costs over the horizon under `inputs` (its mix must be
    one the instance has every rate of); Decimals unrounded."""
    row, rates = inst.row, inst.rates
    months, hours = Decimal(inputs.months), inputs.hours_per_month
    instances = fleet_size(inst, inputs)
    compute = interruptions = Decimal(0)
    for model, share in inputs.mix.items():
        cost, periods = period_cost(inst, inputs, model, share)
        compute += cost * periods
        if model == "spot":
            interruptions = spot_cost_parts(cost * periods, inputs.spot_risk.factor(row, instances))
    provider_rates = refs.provider_rates.get(row["provider"])
    sides = bill_side_costs(refs, inputs, row["provider"], row.get("region") or "")
    inst.fx.update(c.fx for c in sides.values() if c and c.fx)
    side = side_columns(sides, inputs.months)
    egress_cost, storage_cost = sides.get("internet_egress"), sides.get("disk")
    egress_rate = egress_cost.rate if egress_cost else None
    storage_rate = storage_cost.rate if storage_cost else None
    subtotal = compute + side["egress"] + side["inter_region"] + side["storage"]
    credits = _credit(inputs, refs, row["provider"], subtotal, inst.fx)
    total = subtotal - credits
    on_demand = rates.get("on_demand")
    return {
        **{k: row.get(k) for k in ("provider", "region", "instance_type", "gpu_model", "gpu_count")},
        "instances": instances,
        "compute": compute,
        "egress": side["egress"],
        "inter_region": side["inter_region"],
        "storage": side["storage"],
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
        "egress_source": side["egress_source"],
        "inter_region_source": side["inter_region_source"],
        "storage_source": side["storage_source"],
        "interruption": inputs.spot_risk.label(row) if "spot" in inputs.mix else None,
        "interruption_cost": interruptions.quantize(MONEY) if "spot" in inputs.mix else None,
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
    overhead = inputs.spot_risk.factor(inst.row, fleet_size(inst, inputs)) if model == "spot" else Decimal(1)
    if model in inst.steps:
        # A tiered hourly price: each instance's hours over the horizon, step by step.
        hours = inputs.hours_per_month * inputs.months * overhead
        return fleet * stepped_cost(inst.steps[model], hours), 1
    if model == "on_demand":
        return fleet * inputs.hours_per_month * rate, inputs.months
    if model == "spot":
        return fleet * inputs.hours_per_month * rate * overhead, inputs.months
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
