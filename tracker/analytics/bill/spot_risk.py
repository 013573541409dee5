"""Spot interruption risk priced into `tco` and `recommend` (issue 42, item 4;
the model is written out in docs/spot-risk.md).

A provider that states a spot pool's frequency of interruption (AWS's Spot
Instance Advisor, source `aws-spot-advisor`, db/spot_risk.py) gives a band,
"<5%" ... ">20%": the share of the pool's instances reclaimed during the
trailing month. The model:

- p, the chance that one running instance is reclaimed in a month (720 hours
  of use): the band's midpoint, "<5%" 2.5%, "5-10%" 7.5%, "10-15%" 12.5%,
  "15-20%" 17.5%, ">20%" 25% (its floor plus half a band; AWS gives no top);
- each reclaim stops the whole job (a synchronous training run over n
  instances) and loses the work since its last checkpoint,
  L = `--checkpoint-minutes` (default 30), on every instance;
- so a job of n instances expects n x p x hours/720 reclaims, each costing
  n x L hours at the spot rate: the spot hours cost 1 + n x p x L / 720 times
  the plain hours (`factor`).

Alibaba Cloud and Volcano Engine (`alibaba-spot-advice`, `volcengine-spot-advice`)
state their own ranges ("0-3%", "3-5%", "5-10%", "10-100%" for Alibaba):
a band outside AWS's scale takes the bounds its label states
(db/spot_risk.stated_bounds) and p the midpoint of them ("10-100%": 55%).

A pool no provider states a rate for (GCP, Azure, Tencent, Huawei, or an AWS
type the Advisor does not list) is "unknown", never zero: it keeps the old
fixed allowance, x1.1 hours, and says so. `--max-interruption PCT` leaves out
the spot options of a pool whose band may exceed PCT (its upper bound: 5, 10,
15, 20, 100), and those of unknown pools.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, TypeVar

from db.money import HOURS_PER_MONTH
from tracker.analytics.candidates import Usage
from tracker.errors import UserError

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.store.reads.connection import Db

FIXED_OVERHEAD = Decimal("1.1")
DEFAULT_CHECKPOINT_MINUTES = Decimal(30)
# A band's label: (its lower and upper bound, the midpoint taken as p), in percent a month.
BANDS: dict[str, tuple[Decimal, Decimal, Decimal]] = {
    "<5%": (Decimal(0), Decimal(5), Decimal("2.5")),
    "5-10%": (Decimal(5), Decimal(10), Decimal("7.5")),
    "10-15%": (Decimal(10), Decimal(15), Decimal("12.5")),
    "15-20%": (Decimal(15), Decimal(20), Decimal("17.5")),
    ">20%": (Decimal(20), Decimal(100), Decimal(25)),
}
SOURCE_NAMES = {
    "aws-spot-advisor": "AWS Spot Instance Advisor",
    "alibaba-spot-advice": "Alibaba DescribeSpotAdvice",
    "volcengine-spot-advice": "Volcano Engine DescribeSpotAdvice",
}
Pool = tuple[str, str, str, str]  # provider, instance type, region, os
N = TypeVar("N", bound=Any)


def band_scale(label: str) -> tuple[Decimal, Decimal, Decimal] | None:
    """(lower bound, upper bound, p) of a band label in percent a month: AWS's
    labels as `BANDS` has them, any other stated range at its own bounds with
    p their midpoint; None for a label that states no range."""
    if label in BANDS:
        return BANDS[label]
    from db.spot_risk import stated_bounds  # the ORM's module: loaded only for a label beyond AWS's

    bounds = stated_bounds(label)
    if bounds is None:
        return None
    low, high = bounds
    return low, high, (low + high) / 2


@dataclass(frozen=True)
class Band:
    label: str
    source: str
    since: datetime
    seen: datetime

    @property
    def upper(self) -> Decimal:
        return self._scale[1]

    @property
    def monthly(self) -> Decimal:
        """p: the chance an instance is reclaimed in a month of use, as a fraction."""
        return self._scale[2] / 100

    @property
    def _scale(self) -> tuple[Decimal, Decimal, Decimal]:
        scale = band_scale(self.label)
        if scale is None:  # bands_of keeps only labels with a scale
            raise ValueError(f"no bounds for the band {self.label!r}")
        return scale

    def named(self) -> str:
        """'<5% a month (AWS Spot Instance Advisor, 2026-11-30)'."""
        return f"{self.label} a month ({SOURCE_NAMES.get(self.source, self.source)}, {self.seen:%Y-%m-%d})"


@dataclass(frozen=True)
class SpotRisk:
    """The bands in the store now, and how the buyer's job meets a reclaim."""

    bands: Mapping[Pool, Band] = field(default_factory=dict)
    checkpoint_minutes: Decimal = DEFAULT_CHECKPOINT_MINUTES
    max_interruption: Decimal | None = None
    fixed_overhead: Decimal = FIXED_OVERHEAD

    def band(self, row: Mapping[str, Any]) -> Band | None:
        return self.bands.get((row["provider"], row["instance_type"], row["region"], row.get("os") or "linux"))

    def factor(self, row: Mapping[str, Any], instances: Decimal | int) -> Decimal:
        """What the spot hours of a job of `instances` cost, as a multiple of their plain cost."""
        band = self.band(row)
        if band is None:
            return self.fixed_overhead
        return 1 + Decimal(instances) * band.monthly * self.lost_hours / HOURS_PER_MONTH

    @property
    def lost_hours(self) -> Decimal:
        return self.checkpoint_minutes / 60

    def allowed(self, row: Mapping[str, Any]) -> bool:
        """Whether `--max-interruption` keeps the spot options of this pool."""
        if self.max_interruption is None:
            return True
        band = self.band(row)
        return band is not None and band.upper <= self.max_interruption

    def label(self, row: Mapping[str, Any]) -> str:
        """The `interruption` column: '<5% a month (AWS Spot Instance Advisor, 2026-11-30)', or 'unknown'."""
        band = self.band(row)
        return band.named() if band else "unknown"

    def why(self, row: Mapping[str, Any], cost: Decimal | None, currency: str) -> str:
        """The words of `recommend`'s why on the risk of a spot option."""
        band = self.band(row)
        if band is None:
            return f"interruption rate unknown: x{self.fixed_overhead.normalize():f} hours for interruptions"
        minutes = f"{self.checkpoint_minutes.normalize():f} min"
        lost = f", {cost:.2f} {currency} of work expected lost at {minutes} a reclaim" if cost is not None else ""
        return f"interruptions {band.named()}{lost}"

    def left_out(self, rows: Iterable[Mapping[str, Any]]) -> list[str]:
        """The note of what `--max-interruption` left out, from the rows of the instances with a spot price."""
        if self.max_interruption is None:
            return []
        risky: dict[str, set[str]] = {}
        unknown: dict[str, set[str]] = {}
        stated = {provider for provider, *_ in self.bands}
        for row in rows:
            if self.allowed(row):
                continue
            band = self.band(row)
            if band is None:
                # A provider that states bands: the types it does not state one for.
                where = f"{row['instance_type']} in {row['region']}" if row["provider"] in stated else ""
                unknown.setdefault(str(row["provider"]), set()).add(where)
            else:
                risky.setdefault(f"{band.label} ({SOURCE_NAMES.get(band.source, band.source)})", set()).add(
                    f"{row['instance_type']} in {row['region']}"
                )
        limit = f"{self.max_interruption.normalize():f}%"
        notes = [
            f"left out by --max-interruption {limit}, spot interruptions {label}: {', '.join(sorted(where))}"
            for label, where in sorted(risky.items())
        ]
        if unknown:
            named = [
                f"{provider} ({', '.join(sorted(w for w in where if w))})" if any(where) else provider
                for provider, where in sorted(unknown.items())
            ]
            notes.append(
                f"left out by --max-interruption {limit}, spot with no stated interruption rate: " + ", ".join(named)
            )
        return notes

    def usage_bounds(self, hours_per_month: Decimal, months: int) -> tuple[Usage, Usage]:
        """Usages that bound the exact spot cost of any option from below and
        above, for the ranking's first pass (recommend/store.py, tco_rows):
        the spot factor is at least 1 and at most the fixed allowance plus
        n x the worst band's p x L / 720."""
        base = max(self.fixed_overhead, Decimal(1))
        # With no band known, every spot option takes the fixed allowance: one usage, exact.
        floor = Decimal(1) if self.bands else base
        low = Usage.of(hours_per_month=hours_per_month, months=months, spot_overhead=floor)
        worst = max((band.monthly for band in self.bands.values()), default=Decimal(0))
        per_instance = float(worst * self.lost_hours / HOURS_PER_MONTH) if self.bands else 0.0
        high = Usage.of(hours_per_month=hours_per_month, months=months, spot_overhead=base)
        return low, FleetUsage(high.factors, per_instance, float(hours_per_month) * months)


@dataclass(frozen=True)
class FleetUsage(Usage):
    """A Usage whose spot factor grows with the fleet: + n x `per_instance`."""

    per_instance: float = 0.0
    plain_hours: float = 0.0  # hours a month x months: the spot factor without its allowance

    def cost(self, rates: dict[str, float], shares: Sequence[tuple[str, float]], instances: int) -> float:
        base = super().cost(rates, shares, instances)
        if not self.per_instance:
            return base
        spot = sum(share * rates[model] for model, share in shares if model == "spot")
        return base + instances * spot * self.plain_hours * self.per_instance * instances


def spot_cost_parts(cost: Decimal, factor: Decimal) -> Decimal:
    """Of a spot cost that includes its interruptions at `factor`, the part that is the interruptions."""
    return cost * (factor - 1) / factor if factor else Decimal(0)


def parse_percent(text: str | None, name: str = "--max-interruption") -> Decimal | None:
    """'10' or '10%' -> 10; None or '' -> None; anything else one sentence."""
    if text is None or not str(text).strip():
        return None
    try:
        value = Decimal(str(text).strip().rstrip("%"))
    except InvalidOperation:
        raise UserError(f"{name} takes a percentage such as 10, not {text!r}") from None
    if not value.is_finite() or value < 0 or value > 100:
        raise UserError(f"{name} takes a percentage from 0 to 100, not {text!r}")
    return value


def checked_minutes(value: Decimal | float | int | str) -> Decimal:
    try:
        minutes = Decimal(str(value))
    except InvalidOperation:
        raise UserError(f"--checkpoint-minutes takes a number of minutes, not {value!r}") from None
    if not minutes.is_finite() or minutes < 0 or minutes > 10080:
        raise UserError(f"--checkpoint-minutes takes minutes from 0 to 10080 (a week), not {value!r}")
    return minutes


def bands_of(rows: Iterable[Mapping[str, Any]]) -> dict[Pool, Band]:
    """The open bands as `db.store.reads.spot_bands.open_bands` reads them, by pool."""
    found = {}
    for row in rows:
        if band_scale(row["band"]) is not None:
            pool = (row["provider"], row["instance_type"], row["region"], row["os"])
            found[pool] = Band(row["band"], row["source"], row["valid_from"], row["last_seen"])
    return found


def load_risk(
    store: Db | sa.Engine,
    *,
    checkpoint_minutes: Decimal | float | int | str = DEFAULT_CHECKPOINT_MINUTES,
    max_interruption: str | Decimal | None = None,
    fixed_overhead: Decimal = FIXED_OVERHEAD,
) -> SpotRisk:
    """The risk model over the bands in the store now."""
    from db.store.reads.connection import open_db
    from db.store.reads.spot_bands import open_bands

    limit = max_interruption if isinstance(max_interruption, Decimal) else parse_percent(max_interruption)
    minutes = checked_minutes(checkpoint_minutes)
    with open_db(store) as db:
        bands = bands_of(open_bands(db))
    return SpotRisk(bands, minutes, limit, fixed_overhead)


PRICE_MODELS = ("on_demand", "spot", "monthly", "reserved_1yr", "reserved_3yr")


def price_models(text: str | None) -> tuple[str, ...]:
    """`--price-model`: the single price models an answer keeps (all when empty)."""
    if text is None or not text.strip():
        return ()
    chosen = tuple(m.strip() for m in text.split(",") if m.strip())
    wrong = [m for m in chosen if m not in PRICE_MODELS]
    if wrong:
        raise UserError(f"--price-model: {wrong[0]!r} is not one of {', '.join(PRICE_MODELS)}")
    return chosen


def with_bands(needs: N, store: Db | sa.Engine) -> N:
    """`needs` (recommend's Needs, or tco's inputs) with the bands in the store now."""
    from dataclasses import replace

    from db.store.reads.connection import open_db
    from db.store.reads.spot_bands import open_bands

    with open_db(store) as db:
        bands = bands_of(open_bands(db))
    risk = needs.risk or SpotRisk(fixed_overhead=needs.spot_overhead)
    return replace(needs, risk=replace(risk, bands=bands))
