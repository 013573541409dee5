"""Side costs in an answer: data sent out and disks, priced as each
provider bills them (docs/side-costs.md).

Where a provider's side costs are tracked (the `*-side-costs` sources,
tracker/normalize/side_costs/), a month's cost is worked out from the open
price rows of the instance's own region:

- internet egress: GB a month through the provider's tiers ("first 10 TB at
  0.09, next 40 TB at 0.085 ..."); where a region states a ladder per
  destination (GCP: to Americas, to EMEA ...), the one whose first tier is
  cheapest, named in the source;
- inter-region transfer: the rate most destinations share (the lowest on a
  tie), tiered as stated;
- storage: GB x the disk's price per GB-month, of the disk class buyers of
  GPU machines use (`DISK_PREFERENCE`: gp3, Standard SSD E30, pd-ssd, ESSD
  PL1 at Alibaba, SSD at Tencent), else
  the cheapest disk tracked.

Where they are not, the reference table (tracker/data/provider_rates.csv,
dated, first tier only) prices egress and storage, and inter-region transfer
at the reference internet egress rate, an upper bound; each side cost's
source column says which it was and of which date.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from db.kinds import SIDE_COST_SUFFIX
from db.store.reads.connection import open_db, utc_time
from tracker.errors import UserError

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.store.reads.connection import Db
    from tracker.analytics.facts.reference import References

# The open rows of the side cost sources, by source: the open rows' index
# (source, region, valid_to) serves it, never a scan of every price.
SIDE_SQL = (
    "SELECT source, provider, region, instance_type, price, currency, unit, attrs, valid_from FROM price_points"
    " WHERE source IN ({}) AND valid_to IS NULL AND gpu_count IS NULL"
)
# The side cost sources that ever ran, and the day each last read its list in full.
SEEN_SQL = (
    "SELECT source, max(CASE WHEN status = 'ok' THEN observed_at END) AS seen FROM crawl_runs"
    " WHERE source LIKE ? GROUP BY source"
)
# The disk an answer prices storage at, by the words of its row, in order of preference.
DISK_PREFERENCE = (
    "disk gp3",
    "disk Standard SSD E30",
    "disk pd-ssd",
    "disk cloud_essd PL1",
    "disk CLOUD_SSD",
    "disk Premium SSD P30",
)


@dataclass
class Ladder:
    """One side cost's tiers in one region: (from GB, to GB or None, price)."""

    source: str
    provider: str
    region: str
    kind: str
    name: str  # the row's words without the tier: "internet egress to Americas"
    currency: str
    unit: str
    date: str
    tiers: list[tuple[Decimal, Decimal | None, Decimal]] = field(default_factory=list)

    def cost(self, amount: Decimal) -> Decimal:
        """What `amount` (GB a month, or GB kept) costs a month through the tiers."""
        total = Decimal(0)
        for start, end, price in sorted(self.tiers, key=lambda t: t[0]):
            top = amount if end is None else min(amount, end)
            total += max(Decimal(0), top - start) * price
        return total

    @property
    def first_price(self) -> Decimal:
        return min(self.tiers, key=lambda t: t[0])[2]

    def label(self) -> str:
        tiered = ", tiered" if len(self.tiers) > 1 else ""
        return f"tracked: {self.source} {self.date} ({self.name}{tiered})"


@dataclass(frozen=True)
class SideCost:
    """One side cost of an answer: a month's amount in the answer's currency,
    the effective rate, and where it came from."""

    month: Decimal
    rate: Decimal | None
    source: str
    fx: str = ""


class SideRates:
    """The tracked side costs of a store, by (provider, region, kind)."""

    def __init__(self, ladders: dict[tuple[str, str, str], list[Ladder]] | None = None) -> None:
        self.ladders = ladders or {}

    @classmethod
    def load(cls, store: Db | sa.Engine) -> SideRates:
        found: dict[tuple[str, str, str, str], Ladder] = {}
        with open_db(store) as db:
            runs = db.rows(SEEN_SQL, ["%" + SIDE_COST_SUFFIX])
            sources = [r["source"] for r in runs]
            rows = db.rows(SIDE_SQL.format(", ".join("?" * len(sources))), sources) if sources else []
        seen = {r["source"]: utc_time(r["seen"]) for r in runs if r["seen"]}
        for row in rows:
            attrs = row["attrs"] if isinstance(row["attrs"], dict) else json.loads(row["attrs"] or "{}")
            kind = attrs.get("side_cost")
            if not kind:
                continue
            name = str(row["instance_type"]).split(", ")[0]
            key = (row["provider"], row["region"], kind, name)
            when = seen.get(row["source"]) or (utc_time(row["valid_from"]) if row["valid_from"] else None)
            date = when.date().isoformat() if when else ""
            ladder = found.setdefault(
                key,
                Ladder(row["source"], row["provider"], row["region"], kind, name, row["currency"], row["unit"], date),
            )
            ladder.date = max(ladder.date, date)
            end = attrs.get("tier_to_gb") or None
            ladder.tiers.append(
                (Decimal(attrs.get("tier_from_gb") or 0), Decimal(end) if end else None, Decimal(str(row["price"])))
            )
        ladders: dict[tuple[str, str, str], list[Ladder]] = {}
        for (provider, region, kind, _), ladder in sorted(found.items()):
            ladders.setdefault((provider, region, kind), []).append(ladder)
        return cls(ladders)

    def tracked(self, provider: str) -> bool:
        return any(p == provider for p, _, _ in self.ladders)

    def choose(self, provider: str, region: str, kind: str) -> Ladder | None:
        """The ladder an answer prices `kind` at in this region (see the module's docstring)."""
        found = self.ladders.get((provider, region, kind))
        if not found:
            return None
        if kind == "disk":
            by_name = {ladder.name: ladder for ladder in found}
            preferred = [by_name[n] for n in DISK_PREFERENCE if n in by_name]
            return preferred[0] if preferred else min(found, key=lambda ladder: (ladder.first_price, ladder.name))
        if kind == "inter_region":
            common = Counter(ladder.first_price for ladder in found).most_common()
            most = common[0][1]
            rate = min(price for price, n in common if n == most)
            return min((ladder for ladder in found if ladder.first_price == rate), key=lambda ladder: ladder.name)
        return min(found, key=lambda ladder: (ladder.first_price, ladder.name))


def side_cost(
    refs: References,
    rates: SideRates,
    provider: str,
    region: str,
    kind: str,
    amount: Decimal,
    currency: str,
) -> SideCost | None:
    """A month of `amount` of `kind` ("internet_egress", "inter_region",
    "disk") in `currency`: tracked where the region's prices are, else from
    the reference table; None when neither has a rate."""
    ladder = rates.choose(provider, region, kind)
    if ladder is not None:
        conversion = refs.fx.conversion(ladder.currency, currency)
        month = ladder.cost(amount) * conversion.rate
        fx = f"{conversion.label(ladder.currency, currency)} ({conversion.date})" if ladder.currency != currency else ""
        rate = (month / amount) if amount else ladder.first_price * conversion.rate
        return SideCost(month, tidy(rate), ladder.label(), fx)
    reference = refs.provider_rates.get(provider)
    if reference is None:
        return None
    conversion = refs.fx.conversion(reference.currency, currency)
    per = reference.storage_per_gb_month if kind == "disk" else reference.egress_per_gb
    rate = per * conversion.rate
    why = "; the internet egress rate, no inter-region rate known" if kind == "inter_region" else ""
    fx = (
        f"{conversion.label(reference.currency, currency)} ({conversion.date})"
        if reference.currency != currency
        else ""
    )
    return SideCost(amount * rate, rate, f"reference table {reference.date}{why}", fx)


def tidy(rate: Decimal) -> Decimal:
    """A rate as an answer shows it: at most 6 decimals, no trailing zeros."""
    rate = rate.quantize(Decimal("0.000001")).normalize()
    return rate.quantize(Decimal(1)) if rate.as_tuple().exponent > 0 else rate  # type: ignore[operator]


class Asked(Protocol):
    """What an answer asks of side costs (tco's TcoInputs): GB a month, and the tracked rates."""

    @property
    def egress_gb_per_month(self) -> Decimal: ...
    @property
    def inter_region_gb_per_month(self) -> Decimal: ...
    @property
    def storage_gb(self) -> Decimal: ...
    @property
    def currency(self) -> str: ...
    @property
    def side(self) -> SideRates | None: ...


def no_rates(provider: str) -> str:
    return f"no egress and storage rates for {provider}; add [analytics.provider_rates.{provider}] to the configuration"


def side_rates_known(refs: References, inputs: Asked, provider: str, region: str) -> bool:
    """Whether every side cost the inputs ask for has a rate here (tracked or
    in the reference table): an instance without one is left out, counted."""
    try:
        bill_side_costs(refs, inputs, provider, region)
    except UserError:
        return False
    return True


def bill_side_costs(refs: References, inputs: Asked, provider: str, region: str) -> dict[str, SideCost | None]:
    """A month of each side cost the inputs ask for (bill/side_costs.py):
    tracked, else the reference table; neither, for an amount asked, is an error."""
    rates = inputs.side or SideRates()
    amounts = {
        "internet_egress": inputs.egress_gb_per_month,
        "inter_region": inputs.inter_region_gb_per_month,
        "disk": inputs.storage_gb,
    }
    out: dict[str, SideCost | None] = {}
    for kind, amount in amounts.items():
        if kind == "inter_region" and not amount:
            out[kind] = None  # asked for by nobody: no column of it
            continue
        out[kind] = side_cost(refs, rates, provider, region, kind, amount, inputs.currency)
        if out[kind] is None and amount:
            raise UserError(no_rates(provider))
    return out


def side_columns(costs: dict[str, SideCost | None], months: int) -> dict[str, Any]:
    """The columns of an answer's row: each side cost over the horizon, its rate and source."""
    out: dict[str, Any] = {}
    for column, kind in (("egress", "internet_egress"), ("inter_region", "inter_region"), ("storage", "disk")):
        cost = costs.get(kind)
        out[column] = cost.month * months if cost else Decimal(0)
        out[f"{column}_source"] = cost.source if cost else None
    return out


def sources_note(rows: list[dict[str, Any]]) -> str:
    """Under a table: where each provider's and region's side costs came from."""
    lines = []
    seen: set[tuple[Any, ...]] = set()
    for row in rows:
        for column in ("egress", "inter_region", "storage"):
            source = row.get(f"{column}_source")
            key = (row.get("provider"), row.get("region"), column, source)
            if source and key not in seen and (row.get(column) or "tracked" in source):
                seen.add(key)
                lines.append(f"  {row.get('provider')} {row.get('region')} {column.replace('_', '-')}: {source}")
    return "side costs:\n" + "\n".join(lines) if lines else ""


def provider_bounds(refs: References, asked: Asked, provider: str, months: int) -> tuple[float, float]:
    """The least and the most a provider's side costs come to over the horizon
    in any of its regions (tracked ones, and the reference table for the
    others): the bounds `recommend`'s first pass ranks with, which knows a
    provider before it knows each region. (0, 0) when nothing is asked; a
    provider with no rate for an amount asked is an error, as in `tco`."""
    rates = asked.side or SideRates()
    regions = sorted({region for p, region, _ in rates.ladders if p == provider})
    totals: list[float] = []
    for region in [*regions, ""]:  # "": a region not tracked, priced from the reference table
        try:
            costs = bill_side_costs(refs, asked, provider, region)
        except UserError:
            if region:
                continue
            if not totals:
                raise
            break
        totals.append(float(sum((c.month for c in costs.values() if c), Decimal(0))) * months)
    return min(totals), max(totals)
