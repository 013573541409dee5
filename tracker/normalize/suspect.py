"""The market check: a price no market charges is held as suspect.

A run's new and changed prices are each compared, per GPU-hour in USD, with
their market: the median, over the *other* providers, of each provider's
median price for the same GPU model and kind of price (on demand, spot,
committed, marketplace). With fewer than `MIN_PEERS` other providers for
it, the market is the shipped typical price (`tracker/data/typical_prices.csv`).
A price more than `factor` (default 4) away from its market, either way (and
more than twice outside the other providers' range, where there are peers),
is suspect: the run stores it, marks it (`suspect_prices`), names it in its note
and in one `price_suspect` change, and the rankings leave it out.

Marketplace and spot prices are compared with their own kind only: a
community H100 at a third of the clouds' on-demand price is real.
A price whose GPU model has neither peers nor a typical price is not judged.

Nothing here reads the store: the run hands in the peers' rates
(`db.store.writes.suspects.peer_rates`) and the quotes it wrote.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from statistics import median
from typing import Any

from db.kinds import PRICE_KINDS
from db.money import term_hours
from tracker.data import rows as data_rows

# Fewer other providers than this for a GPU model and kind: the typical price judges.
MIN_PEERS = 2
DEFAULT_FACTOR = Decimal(4)
# Beyond the market's factor, a price must also be this many times outside
# the other providers' range (below their cheapest, above their dearest).
SPREAD = 2.0
MARKETPLACE = "marketplace"
KINDS = ("on demand", "spot", "committed", MARKETPLACE)
_HOURS = {"hour": 1.0, "month": 720.0, "year": 8760.0}


def kind_of(price_model: str, offer_count: object) -> str:
    """The kind of price a quote is judged among."""
    if offer_count is not None:
        return MARKETPLACE
    return PRICE_KINDS.get(str(price_model), str(price_model))


def per_gpu_hour(fields: Mapping[str, Any]) -> float | None:
    """A quote's effective rate per GPU-hour in its currency, as a float
    (for judging only); None when it has no GPUs or no hourly reading."""
    get = fields.get
    return gpu_hour_rate(get("gpu_model"), get("gpu_count"), get("price"), get("unit"), get("term"), get("upfront_fee"))


def gpu_hour_rate(model: Any, count: Any, price: Any, unit: Any, term: Any, fee: Any) -> float | None:
    """`per_gpu_hour` of the fields as values: what a run judges each price
    it writes by, without a mapping per price (a million at a first import)."""
    if not model or count is None or price is None:
        return None
    gpus = float(count)
    if gpus <= 0:
        return None
    hours = _term_hours(str(term or ""))
    unit = str(unit or "")
    if unit in _HOURS:
        rate = float(price) / _HOURS[unit]
    elif unit == "term" and hours:
        rate = float(price) / hours
    else:
        return None
    if fee and hours:
        rate += float(fee) / hours
    return rate / gpus


@cache
def _term_hours(term: str) -> float | None:
    whole = term_hours(term)
    return float(whole) if whole else None


@cache
def bundled_per_usd() -> dict[str, float]:
    """Units of each currency a US dollar buys (`tracker/data/fx_rates.csv`)."""
    return {r["currency"]: float(r["per_usd"]) for r in data_rows("fx_rates.csv")}


@cache
def typical_prices() -> dict[tuple[str, str], float]:
    """(GPU model, kind) -> the shipped typical USD price per GPU-hour."""
    found: dict[tuple[str, str], float] = {}
    for row in data_rows("typical_prices.csv"):
        for kind in KINDS:
            value = row.get(kind.replace(" ", "_"), "")
            if value:
                found[(row["gpu_model"], kind)] = float(value)
    return found


# Held prices the run's note names.
SHOWN = 5


@dataclass(frozen=True, slots=True)  # a first import can hold a third of its prices
class Verdict:
    key: str
    reason: str


@dataclass(frozen=True)
class Reference:
    """What a price of one provider is judged against: the market rate, and
    the other providers' cheapest and dearest (None for the typical price)."""

    rate: float
    what: str
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Market:
    """Each provider's cheapest per-GPU-hour USD rate per (GPU model, kind):
    the price of its GPU with the least else bundled (a type with 64 vCPUs
    and one T4 is dear per GPU, and real); and the typical prices for
    where there are too few peers."""

    by_provider: Mapping[tuple[str, str], Mapping[str, float]]
    typical: Mapping[tuple[str, str], float]
    per_usd: Mapping[str, float]
    factor: float = float(DEFAULT_FACTOR)
    _references: dict[tuple[str, str, str], Reference | None] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        peers: Iterable[Sequence[Any]],
        *,
        per_usd: Mapping[str, float] | None = None,
        typical: Mapping[tuple[str, str], float] | None = None,
        factor: Decimal = DEFAULT_FACTOR,
    ) -> Market:
        """From rows of (provider, GPU model, kind, currency, rate per
        GPU-hour), a row per instance type: its cheapest over the regions."""
        fx = dict(bundled_per_usd() if per_usd is None else per_usd)
        rates: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
        for provider, model, kind, currency, rate in peers:
            usd = usd_rate(rate, currency, fx)
            if usd is not None and usd > 0 and model:
                known = rates[(model, kind)].get(provider)
                rates[(model, kind)][provider] = usd if known is None else min(known, usd)
        return cls(dict(rates), typical_prices() if typical is None else typical, fx, float(factor))

    def reference(self, model: str, kind: str, provider: str) -> Reference | None:
        """The market a price of `provider` is judged against (worked out
        once per GPU model, kind and provider: a run judges many prices)."""
        slot = (model, kind, provider)
        if slot not in self._references:
            self._references[slot] = self._reference(model, kind, provider)
        return self._references[slot]

    def _reference(self, model: str, kind: str, provider: str) -> Reference | None:
        others = [r for p, r in self.by_provider.get((model, kind), {}).items() if p != provider]
        if len(others) >= MIN_PEERS:
            return Reference(median(others), f"the median of {len(others)} other providers", min(others), max(others))
        typical = self.typical.get((model, kind))
        return None if typical is None else Reference(typical, "the typical price")

    def rate(self, fields: Mapping[str, Any]) -> tuple[str, str, float] | None:
        """A quote's GPU model, kind of price and USD rate per GPU-hour; None when it has none."""
        get = fields.get
        return self.rate_of(
            get("gpu_model"),
            get("gpu_count"),
            get("price"),
            get("unit"),
            get("term"),
            get("upfront_fee"),
            get("currency"),
            get("price_model"),
            get("offer_count"),
        )

    def rate_of(
        self,
        model: Any,
        count: Any,
        price: Any,
        unit: Any,
        term: Any,
        fee: Any,
        currency: Any,
        price_model: Any,
        offer_count: Any,
    ) -> tuple[str, str, float] | None:
        """`rate` of the fields as values (`gpu_hour_rate`)."""
        rate = gpu_hour_rate(model, count, price, unit, term, fee)
        usd = None if rate is None else usd_rate(rate, str(currency or ""), self.per_usd)
        if usd is None:
            return None
        return str(model), kind_of(str(price_model), offer_count), usd

    def below(self, model: str, kind: str, provider: str, usd: float) -> str | None:
        """Why a price is suspect for being too low, or None. Too low is
        more than `factor` below the market and, where peers set it, less
        than half the cheapest other provider's price."""
        ref = self.reference(model, kind, provider)
        if ref is None or ref.rate <= 0:
            return None
        if usd * self.factor >= ref.rate or (ref.low is not None and usd * SPREAD >= ref.low):
            return None
        ratio = "a price of zero" if usd <= 0 else f"{ref.rate / usd:.1f}x below"
        return self._reason(usd, ratio, ref, model, kind)

    def above(self, model: str, kind: str, provider: str, usd: float) -> str | None:
        """Why a price is suspect for being too high, or None: more than
        `factor` above the market and more than twice the dearest other
        provider's price. The caller asks it of the provider's cheapest
        price of the GPU model and kind, so a type's bundled CPUs and
        memory never make it suspect (tracker/run/suspects.py)."""
        ref = self.reference(model, kind, provider)
        if ref is None or ref.rate <= 0:
            return None
        if usd <= ref.rate * self.factor or (ref.high is not None and usd <= ref.high * SPREAD):
            return None
        return self._reason(usd, f"{usd / ref.rate:.1f}x above", ref, model, kind)

    def _reason(self, usd: float, ratio: str, ref: Reference, model: str, kind: str) -> str:
        return (
            f"{usd:.2f} USD per GPU-hour is {ratio} {ref.what} for {model} {kind} "
            f"({ref.rate:.2f} USD); more than {self.factor:g}x away is held as suspect"
        )


def usd_rate(rate: object, currency: str, per_usd: Mapping[str, float]) -> float | None:
    if rate is None:
        return None
    per = per_usd.get(currency.upper())
    if not per:
        return None
    return float(rate) / per  # type: ignore[arg-type]  # a float or a Decimal from the driver


def summary(verdicts: Sequence[Verdict], names: Mapping[str, str], *, shown: int = SHOWN) -> str:
    """The run note: how many prices were held, and the first few by name."""
    head = [f"{names.get(v.key, v.key)}: {v.reason}" for v in verdicts[:shown]]
    more = f"; and {len(verdicts) - shown} more" if len(verdicts) > shown else ""
    return (
        f"{len(verdicts)} price(s) held as suspect, left out of compare, tco and recommend: " + "; ".join(head) + more
    )
