"""Which offers a block of a promotion page states: precision first.

`read_offers(text)` gives one `OfferTerms` per offer the block states, each
with its own terms, or none and why. A block states an offer only when it
gives its amount or size:

- every step of a 满减 ladder is its own voucher ("满1000减300、满3000减900"
  gives two, each with its threshold as `tier`);
- a money credit or voucher, with its amount beside a credit or voucher word;
- a percentage off (a discount, a renewal or a spot discount);
- free GPU time ("4小时免费A100", "free 8×H100 for 2 hours");
- a free trial with its length ("免费试用 3个月", "a 90-day program ... try").

Headings, FAQ answers, rules, prices, comparisons, examples, references to a
credit stated elsewhere, policy durations and free quotas of model tokens are
not offers. The terms every offer of the block shares (eligibility, products,
validity, caps, the price models and purchases it covers, an order-length
limit) are read once, as `Conditions`, and stored with each offer
(`terms_record`), so nothing downstream reads text again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from typing import Any, TypedDict

from db.kinds import Eligibility, OfferKind
from tracker.normalize.numbers import tidy
from tracker.normalize.offers.text import OfferTerms, parse_terms
from tracker.normalize.offers.words import new_and_renewal, renewal

# read_offers (roles.py) reads a block clause by clause on top of read_block.

SUBSCRIPTIONS = ("monthly", "reserved_1yr", "reserved_3yr")
DISCOUNT_KINDS = (OfferKind.discount, OfferKind.renewal_discount, OfferKind.spot_discount)
# The price models an offer names. The lengths ("1个月", "1-year") name one only
# for a discount ("包年7折", "20% off 1-year terms"): for a trial or a credit they
# are its length.
_MODEL_WORDS = (
    (SUBSCRIPTIONS, re.compile(r"包年包月|预付费|prepaid|subscriptions?\b", re.I)),
    (("monthly",), re.compile(r"包月|按月|月付|monthly (?:plan|subscription|billing)", re.I)),
    (("reserved_1yr",), re.compile(r"包年(?!包月)", re.I)),
    (("on_demand",), re.compile(r"按量|按需|按小时|pay[- ]as[- ]you[- ]go|on[- ]demand", re.I)),
)
_LENGTH_WORDS = (
    (("monthly",), re.compile(r"(?<![\d年])1\s?个?月|一个月", re.I)),
    (("reserved_1yr",), re.compile(r"(?<!\d)1\s?年|一年|1[- ]year|one[- ]year|annual|yearly", re.I)),
    (("reserved_3yr",), re.compile(r"(?<!\d)3\s?年|三年|3[- ]year|three[- ]year", re.I)),
)
_FIRST_WORDS = re.compile(r"首购|新购|首单|首年|首月|first[- ](?:purchase|order|year|month|term)", re.I)
_SPOT_WORDS = re.compile(r"\bspot\b|抢占式|竞价|preemptible|low[- ]priority", re.I)
_TOKENS = re.compile(r"(?<![A-Za-z])tokens?(?![A-Za-z])", re.I)
_FREE_USE = re.compile(r"免费使用|免费额度|free (?:use|usage|quota)\b", re.I)
_RULE_ITEM = re.compile(r"^\s*(?:\d{1,2}\s?[、.)）]|[(（]\d{1,2}[)）]|[一二三四五六七八九十]{1,2}、)(?!\d)")


@dataclass(frozen=True)
class Conditions:
    """What an offer asks and limits, read once from its block."""

    models: tuple[str, ...] | None = None  # the price models it is limited to
    lengths: tuple[str, ...] | None = None  # the terms its lengths name (for a discount)
    first_only: bool = False  # the first purchase only (首购, 新购)
    renewal_only: bool = False
    order_days: int | None = None  # an order of at most this long ("订单时长限1年")
    caps: tuple[dict[str, str], ...] = ()  # {"amount", "currency", "per"}

    def phrases(self) -> list[str]:
        out = [f"at most {c['amount']} {c['currency']} per {c['per']}" for c in self.caps]
        if self.order_days:
            out.append(f"orders of at most {span(self.order_days)}")
        return out


@dataclass
class Reading:
    offers: list[OfferTerms] = field(default_factory=list)
    conditions: Conditions = field(default_factory=Conditions)
    why_not: str = ""  # when there is no offer: why, in a few words
    block: OfferTerms = field(default_factory=OfferTerms)  # everything the block says, as one reading


def span(days: int) -> str:
    if days % 365 == 0:
        years = days // 365
        return "1 year" if years == 1 else f"{years} years"
    if days % 30 == 0:
        months = days // 30
        return "1 month" if months == 1 else f"{months} months"
    return f"{days} days"


def conditions_of(text: str, terms: OfferTerms) -> Conditions:
    named = tuple(m for models, words in _MODEL_WORDS if words.search(text) for m in models)
    lengths = tuple(m for models, words in _LENGTH_WORDS if words.search(text) for m in models)
    order = next((d.days for d in terms.durations if d.role == "order"), None)
    caps = tuple({"amount": format(c.value, "f"), "currency": c.currency, "per": c.per or "hour"} for c in terms.caps)
    return Conditions(
        models=tuple(dict.fromkeys(named)) or None,
        lengths=lengths or None,
        first_only=bool(_FIRST_WORDS.search(text)),
        renewal_only=renewal(text),
        order_days=order,
        caps=caps,
    )


def _why_not(text: str, terms: OfferTerms) -> str:
    if _TOKENS.search(text):
        return "a free quota of model tokens"
    if terms.tiers or re.search(r"比如|例如|such as|for example|e\.g\.", text, re.I):
        return "an example"
    if any(d.role == "policy" for d in terms.durations):
        return "a rule"
    return "no amount, percentage or free time"


class _Common(TypedDict):
    """What every offer read from one block shares."""

    eligibility: Eligibility | None
    products: list[str]
    valid_from: datetime | None
    valid_until: datetime | None


def _under_an_hour(terms: OfferTerms) -> bool:
    """Less than one GPU-hour is a unit of a price table ("0.01 算力/小时"), never free time given."""
    time = terms.gpu_time
    return time is not None and time.unit == "gpu_hour" and time.amount < 1


def read_block(text: str, default_currency: str | None) -> Reading:
    """The offers one text states, read as a whole."""
    terms = parse_terms(text, default_currency=default_currency)
    reading = Reading(conditions=conditions_of(text, terms), block=terms)
    rule_item = bool(_RULE_ITEM.match(text))
    tokens = bool(_TOKENS.search(text))
    validity = next((d.days for d in terms.durations if d.role == "validity"), None)
    trial = next((d.days for d in terms.durations if d.role == "trial"), None)
    common: _Common = {
        "eligibility": terms.eligibility,
        "products": terms.products,
        "valid_from": terms.valid_from,
        "valid_until": terms.valid_until,
    }
    if terms.tiers:
        currency = terms.currency
        for tier in terms.tiers:
            reading.offers.append(
                OfferTerms(
                    kind=OfferKind.voucher,
                    amount=tier.amount,
                    currency=currency,
                    min_spend=tier.min_spend,
                    duration_days=validity or trial,
                    tiers=[tier],
                    **common,
                )
            )
    elif terms.amount is not None:
        kind: OfferKind = (
            terms.kind
            if terms.kind in {OfferKind.voucher, OfferKind.startup_credit, OfferKind.free_trial}
            else OfferKind.free_credit
        )
        reading.offers.append(
            OfferTerms(
                kind=kind,
                amount=terms.amount,
                amount_low=terms.amount_low,
                currency=terms.currency,
                min_spend=terms.min_spend,
                duration_days=terms.duration_days,
                caps=terms.caps,
                conditions=terms.conditions,
                **common,
            )
        )
    money = bool(reading.offers)
    if not money and terms.gpu_time is not None and not _under_an_hour(terms):
        # "10小时算力卡（有效期两天）": hours of GPU time, to use within their validity
        days = int(terms.gpu_time.amount) if terms.gpu_time.unit == "day" else (trial or validity)
        reading.offers.append(
            OfferTerms(kind=OfferKind.free_trial, gpu_time=terms.gpu_time, duration_days=days, **common)
        )
    elif not money and trial is not None and not rule_item and not tokens:
        # "体验金(有效期30天)": a credit whose amount is not said, for that long
        credit = terms.kind == OfferKind.free_credit and not _FREE_USE.search(text)
        kind = OfferKind.free_credit if credit else OfferKind.free_trial  # "赠送三个月免费使用量": a trial
        reading.offers.append(OfferTerms(kind=kind, duration_days=trial, **common))
    if terms.percent_off is not None and not rule_item:
        kind = OfferKind.discount
        if terms.rebate:
            kind = OfferKind.voucher  # a share of a top-up given back as a voucher
        elif _SPOT_WORDS.search(text):
            kind = OfferKind.spot_discount
        elif renewal(text):
            kind = OfferKind.renewal_discount
        reading.offers.append(
            OfferTerms(
                kind=kind,
                percent_off=terms.percent_off,
                percent_off_low=terms.percent_off_low,
                min_spend=terms.min_spend if terms.rebate else None,
                currency=terms.currency if terms.rebate else None,
                duration_days=None if money else validity,
                conditions=terms.conditions,
                **common,
            )
        )
        if kind == OfferKind.discount and new_and_renewal(text):
            # "针对新购或续费的云主机": a discount on new purchases and one on renewals
            reading.offers.append(replace(reading.offers[-1], kind=OfferKind.renewal_discount))
    if not reading.offers:
        reading.why_not = _why_not(text, terms)
    return reading


def terms_record(terms: OfferTerms, conditions: Conditions, *, ladder: str | None = None) -> dict[str, Any]:
    """The parsed terms stored with an offer (JSON): only what is stated."""
    record: dict[str, Any] = {}
    time = terms.gpu_time
    if time is not None:
        record["gpu_time"] = {"amount": format(tidy(time.amount), "f"), "unit": time.unit}
        record["gpu_time"].update({k: v for k, v in (("gpu", time.gpu), ("instance", time.instance)) if v})
    if ladder and terms.tiers:
        record["ladder"] = ladder
        record["tier"] = format(terms.tiers[0].min_spend, "f")
        if terms.tiers[0].each:
            record["each"] = True
    models = list(conditions.models or ())
    if terms.kind in DISCOUNT_KINDS:
        models += [m for m in conditions.lengths or () if m not in models]
    if models:
        record["models"] = models
    if conditions.first_only:
        record["first_only"] = True
    if conditions.renewal_only or terms.kind == OfferKind.renewal_discount:
        record["renewal_only"] = True
    if conditions.order_days:
        record["order_days"] = conditions.order_days
    if conditions.caps:
        record["caps"] = [dict(c) for c in conditions.caps]
    if terms.amount_low is not None:
        record["amount_low"] = format(terms.amount_low, "f")  # a range: worth amount_low to amount
    if terms.percent_off_low is not None:
        record["percent_off_low"] = format(terms.percent_off_low, "f")
    if terms.conditions:
        record["conditions"] = list(terms.conditions)  # claim window, account or company age, order length
    return record


def cap_value(record: dict[str, Any], per: str) -> Decimal | None:
    """The cap of a stored offer per hour or month, when it states one."""
    for cap in record.get("caps") or []:
        if cap.get("per") == per:
            return Decimal(cap["amount"])
    return None


_CONDITION_NAMES = {
    "claim_window": "to be claimed within a window after sign-up",
    "account_age": "for accounts of a given age",
    "company_age": "for companies founded within a given time",
    "order_length": "for orders of a given length",
    "inactivity": "lapses after a time without use",
}

_MODEL_NAMES = {
    "on_demand": "on demand",
    "monthly": "monthly",
    "reserved_1yr": "1-year terms",
    "reserved_3yr": "3-year terms",
}


def describe(record: dict[str, Any] | None) -> list[str]:
    """A stored offer's terms beyond its columns, in words: GPU time, caps,
    order limit, the purchases covered."""
    if not record:
        return []
    out = []
    if record.get("amount_low"):
        out.append(f"from {record['amount_low']} (a range; the amount is its high end)")
    if record.get("percent_off_low"):
        out.append(f"from {record['percent_off_low']}% off (a range)")
    out.extend(_CONDITION_NAMES.get(c, c) for c in record.get("conditions") or [])
    time = record.get("gpu_time")
    if time:
        what = time.get("instance") or time.get("gpu") or "GPU"
        out.append(
            f"{time['amount']} free {what} GPU-hours"
            if time["unit"] == "gpu_hour"
            else f"{time['amount']}-day trial of {what}"
        )
    out.extend(f"at most {c['amount']} {c['currency']} per {c['per']}" for c in record.get("caps") or [])
    if record.get("order_days"):
        out.append(f"orders of at most {span(int(record['order_days']))}")
    models = record.get("models")
    if models:
        out.append(", ".join(_MODEL_NAMES[m] for m in _MODEL_NAMES if m in models) + " only")
    if record.get("first_only"):
        out.append("first purchase only")
    if record.get("renewal_only"):
        out.append("renewals only")
    return out
