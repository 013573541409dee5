"""Percent-off offers as they apply to one option: "6折", "20% off for 1
year", "GPU 云服务器 6折续费". What a discount saves is its percentage of the
spend it covers, read from the offer's text:

- the price models it names (包月/monthly, 包年/1-year, 3年/3-year,
  按量/on demand; 包年包月 is every subscription); none named: every price
  model but spot;
- the purchases it covers: renewals only (a renewal discount: every term or
  month after the first), the first purchase only (首购, 新购, first
  purchase), or, for a plain discount, every purchase within its validity
  (duration_days) or over the whole horizon.

A spot discount ("低至按量付费的3折") states what the spot price already
is, so it saves nothing on top of it and is not counted. 满减 vouchers are
amounts, counted as credits (offer_credits.py), under the same price-model
scope.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pandas as pd

from tracker.analytics.history import records
from tracker.analytics.tco import PricedInstance, TcoInputs, period_cost, term_months

DISCOUNT_KINDS = {"discount", "renewal_discount"}
SUBSCRIPTIONS = frozenset({"monthly", "reserved_1yr", "reserved_3yr"})
NOT_SPOT = frozenset({"on_demand", *SUBSCRIPTIONS})
_MODEL_WORDS = (
    (SUBSCRIPTIONS, re.compile(r"包年包月|subscriptions?\b", re.I)),
    (
        frozenset({"monthly"}),
        re.compile(r"包月|按月|月付|monthly (?:plan|subscription|billing)|(?<![\d年])1\s?个?月|一个月", re.I),
    ),
    (frozenset({"reserved_1yr"}), re.compile(r"包年|(?<!\d)1\s?年|一年|1[- ]year|one[- ]year|annual|yearly", re.I)),
    (frozenset({"reserved_3yr"}), re.compile(r"(?<!\d)3\s?年|三年|3[- ]year|three[- ]year", re.I)),
    (frozenset({"on_demand"}), re.compile(r"按量|按需|按小时|pay[- ]as[- ]you[- ]go|on[- ]demand", re.I)),
)
_FIRST_WORDS = re.compile(r"首购|新购|首单|首年|首月|first[- ](?:purchase|order|year|month|term)", re.I)
_RENEWAL_WORDS = re.compile(r"续费|续订|renewals?|renewing|renew\b", re.I)
_NAMES = {
    "on_demand": "on demand",
    "monthly": "monthly",
    "reserved_1yr": "1-year terms",
    "reserved_3yr": "3-year terms",
}


@dataclass(frozen=True)
class Scope:
    """The price models an offer names (None: it names none) and the purchases it covers."""

    models: frozenset[str] | None
    first_only: bool = False
    renewal_only: bool = False

    def describe(self, default: frozenset[str]) -> str:
        models = self.models or default
        what = ", ".join(_NAMES[m] for m in ("on_demand", "monthly", "reserved_1yr", "reserved_3yr") if m in models)
        if self.renewal_only:
            return f"renewals of {what}"
        if self.first_only:
            return f"first purchase of {what}"
        return what


def offer_text(row: dict[str, Any]) -> str:
    return f"{row.get('title') or ''} {row.get('text') or ''}"


def offer_scope(row: dict[str, Any]) -> Scope:
    text = offer_text(row)
    named = frozenset().union(*(models for models, words in _MODEL_WORDS if words.search(text)))
    return Scope(
        models=named or None,
        first_only=bool(_FIRST_WORDS.search(text)),
        renewal_only=row.get("kind") == "renewal_discount" or bool(_RENEWAL_WORDS.search(text)),
    )


def usable_discounts(offers: pd.DataFrame, qualifies: Iterable[str], compute: set[str]) -> list[dict[str, Any]]:
    """The current percent-off offers the buyer qualifies for, covering compute."""
    if offers.empty or "offer_id" not in offers.columns:
        return []
    allowed = {"all", *qualifies}
    found = []
    for row in records(offers):
        if row.get("kind") not in DISCOUNT_KINDS or row.get("percent_off") is None:
            continue
        if (row.get("eligibility") or "all") not in allowed:
            continue
        products = products_of(row)
        if products and not products & compute:
            continue
        found.append(row)
    return found


def products_of(row: dict[str, Any]) -> set[str]:
    """The products an offer names (stored as a JSON list)."""
    raw = row.get("products") or "[]"
    return set(json.loads(raw) if isinstance(raw, str) else raw)


def _covered_periods(scope: Scope, model: str, periods: int, duration_days: Any) -> int:
    if scope.renewal_only:
        return periods - 1
    if scope.first_only:
        return min(periods, 1)
    if duration_days:
        window_months = math.ceil(int(duration_days) / 30)
        return min(periods, math.ceil(window_months / term_months(model)))
    return periods


def discount_saving(inst: PricedInstance, inputs: TcoInputs, offer: dict[str, Any]) -> tuple[Decimal, str] | None:
    """What `offer` saves on this option's compute under its mix, and its
    condition; None where it covers none of the option's purchases."""
    if offer.get("provider") != inst.row["provider"]:
        return None
    scope = offer_scope(offer)
    default = SUBSCRIPTIONS if scope.renewal_only else NOT_SPOT
    models = scope.models or default
    if scope.renewal_only:
        models = models & SUBSCRIPTIONS  # an hourly price has nothing to renew
    percent = Decimal(str(offer["percent_off"]))
    saving = Decimal(0)
    for model, share in inputs.mix.items():
        if model not in models:
            continue
        cost, periods = period_cost(inst, inputs, model, share)
        saving += cost * _covered_periods(scope, model, periods, offer.get("duration_days")) * percent / 100
    if saving <= 0:
        return None
    return saving, f"{percent.normalize():f}% off {scope.describe(default)}"
