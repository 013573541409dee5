"""What an offer of the offers table is worth to one option: the one place.

`offer_worth(inst, refs, inputs, offer)` prices one stored offer on one
instance under a purchase mix: what it saves over the horizon, in the
inputs' currency, and what it asks, in words. Everything comes from the
columns and the terms stored with the offer (tracker/normalize/offers/reader.py:
GPU time, ladder tier, caps, price models, first purchase or renewals,
order-length limit); no text is read here.

- Money credits and vouchers count within their validity (the first N days
  of the horizon), only when the spend reaches their minimum, up to their
  per-hour or per-month cap, and only on options that buy a price model
  they are limited to ("仅限包年包月"). Each tier of a 满减 ladder is its own
  voucher: the best tier the spend reaches is the one that saves most.
- Free GPU hours are worth the option's own on-demand price for that many
  GPU-hours when the GPU matches ("A100" covers both A100 sizes); trial days
  of a named instance or GPU, the hours used in those days on one instance.
- Percent discounts save their percentage of the purchases they cover: the
  price models named (none: every model but spot), renewals only (every
  month or term after the first), the first purchase only, or every
  purchase within their validity. A spot discount states what the spot
  price already is, and saves nothing on top of it.

An offer counts only for its provider, where the buyer qualifies (its
eligibility is `all` or one the buyer names: new-users-only credits only
for a buyer who says they are new) and where it covers compute.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tracker.analytics.facts.reference import References
from tracker.analytics.tco import Credit, PricedInstance, TcoInputs, instance_costs, period_cost, term_months
from tracker.errors import UserError

if TYPE_CHECKING:
    import pandas as pd

CREDIT_KINDS = {"free_credit", "startup_credit", "voucher", "free_trial"}
DISCOUNT_KINDS = {"discount", "renewal_discount"}
COMPUTE_PRODUCTS = {"gpu", "ecs", "cvm", "ec2", "compute_engine", "virtual_machines"}
SUBSCRIPTIONS = frozenset({"monthly", "reserved_1yr", "reserved_3yr"})
NOT_SPOT = frozenset({"on_demand", *SUBSCRIPTIONS})
HOURS_PER_DAY = 24
_MODEL_NAMES = {"on_demand": "on demand", "monthly": "monthly", "reserved_1yr": "1-year terms"}
_MODEL_NAMES["reserved_3yr"] = "3-year terms"
_WHO = {"new_users": "new users", "students": "students", "startups": "startups", "enterprise": "enterprises"}


@dataclass(frozen=True)
class Worth:
    """One offer as it applies to one option under one mix."""

    offer_id: str
    costs: dict[str, Any]  # the option's costs with the offer applied (`credits` is what it saves)
    conditions: str  # what it asks and limits, in words


def terms_of(row: dict[str, Any]) -> dict[str, Any]:
    """The terms stored with an offer; {} for a row stored before they were (0008)."""
    raw = row.get("terms")
    if isinstance(raw, dict):
        return raw
    return json.loads(raw) if raw else {}


def products_of(row: dict[str, Any]) -> set[str]:
    raw = row.get("products") or "[]"
    return set(json.loads(raw) if isinstance(raw, str) else raw)


def offer_rows(offers: list[dict[str, Any]] | pd.DataFrame) -> list[dict[str, Any]]:
    """Offers as rows: a list as it is, a frame's records (none without offer ids)."""
    if isinstance(offers, list):
        return offers
    if offers.empty or "offer_id" not in offers.columns:
        return []
    from tracker.analytics.history import records

    return records(offers)


def usable_offers(offers: list[dict[str, Any]] | pd.DataFrame, qualifies: Iterable[str]) -> list[dict[str, Any]]:
    """The current offers with a value that the buyer qualifies for, covering compute."""
    allowed = {"all", *qualifies}
    found = []
    for row in offer_rows(offers):
        if row.get("kind") not in CREDIT_KINDS | DISCOUNT_KINDS or (row.get("eligibility") or "all") not in allowed:
            continue
        products = products_of(row)
        if products and not products & COMPUTE_PRODUCTS:
            continue
        found.append(row)
    return found


def _models(terms: dict[str, Any]) -> frozenset[str] | None:
    return frozenset(terms["models"]) if terms.get("models") else None


def _scope_words(terms: dict[str, Any], default: frozenset[str]) -> str:
    models = _models(terms) or default
    what = ", ".join(name for model, name in _MODEL_NAMES.items() if model in models)
    if terms.get("renewal_only"):
        return f"renewals of {what}"
    if terms.get("first_only"):
        return f"first purchase of {what}"
    return what


def conditions(row: dict[str, Any], extra: str = "") -> str:
    """What an offer asks, in one phrase: who, price models, tier, minimum
    spend, validity, caps, order limit, claim date."""
    terms = terms_of(row)
    parts = [] if (row.get("eligibility") or "all") == "all" else [f"{_WHO[row['eligibility']]} only"]
    if extra:
        parts.insert(0, extra)
    if _models(terms) is not None and row.get("kind") not in DISCOUNT_KINDS:
        parts.append(f"{_scope_words(terms, NOT_SPOT)} only")
    if row.get("min_spend"):
        tier = " (the best tier of its ladder this spend reaches)" if terms.get("ladder") else ""
        parts.append(f"min spend {row['min_spend']} {row.get('currency') or ''}".strip() + tier)
    if row.get("duration_days") and row.get("kind") not in DISCOUNT_KINDS:
        parts.append(f"within {int(row['duration_days'])} days")
    parts.extend(f"at most {c['amount']} {c['currency']} per {c['per']}" for c in terms.get("caps") or [])
    if terms.get("order_days"):
        parts.append(f"orders of at most {int(terms['order_days'])} days")
    if row.get("offer_valid_until"):
        parts.append(f"claim by {str(row['offer_valid_until'])[:10]}")
    return "; ".join(parts)


def _gpu_matches(named: str | None, gpu_model: str | None) -> bool:
    """'A100' names every A100; 'A100 80GB' only that one."""
    if not named or not gpu_model:
        return False
    named, model = named.lower(), gpu_model.lower()
    return model == named or model.startswith(named + " ")


def offer_credit(row: dict[str, Any], *, provider: str | None = None) -> Credit:
    """A money credit or voucher as the TCO simulator counts it."""
    terms = terms_of(row)
    caps = {c["per"]: Decimal(c["amount"]) for c in terms.get("caps") or [] if c.get("currency") == row.get("currency")}
    days = row.get("duration_days")
    return Credit(
        amount=Decimal(str(row["amount"])),
        currency=str(row["currency"]),
        provider=provider or row.get("provider"),
        months=math.ceil(int(days) / 30) if days else None,
        min_spend=Decimal(str(row["min_spend"])) if row.get("min_spend") else None,
        label=f"offer {row['offer_id']}",
        cap_per_hour=caps.get("hour"),
        cap_per_month=caps.get("month"),
    )


def _gpu_time_credit(inst: PricedInstance, inputs: TcoInputs, row: dict[str, Any]) -> tuple[Credit, str] | None:
    """Free GPU hours or trial days, worth what the same time costs on demand."""
    time = terms_of(row).get("gpu_time")
    on_demand = inst.rates.get("on_demand")
    if not time or on_demand is None or not inst.row.get("gpu_count"):
        return None
    amount = Decimal(time["amount"])
    if time["unit"] == "gpu_hour":
        if time.get("gpu") and not _gpu_matches(time["gpu"], inst.row.get("gpu_model")):
            return None
        value = amount * on_demand / Decimal(inst.row["gpu_count"])
        what, months = f"{amount.normalize():f} free {time.get('gpu') or 'GPU'} hours", 1
    else:
        instance = time.get("instance")
        named = instance is not None and instance.lower() == str(inst.row["instance_type"]).lower()
        if not named and not _gpu_matches(time.get("gpu"), inst.row.get("gpu_model")):
            return None  # a trial that names neither this instance nor its GPU
        # A trial covers one instance for its days, as many hours as the job uses in them.
        hours = min(amount * HOURS_PER_DAY, inputs.hours_per_month * amount / 30)
        value = hours * on_demand
        what, months = f"{amount.normalize():f}-day trial of {instance or time.get('gpu')}", math.ceil(amount / 30)
    credit = Credit(amount=value, currency=inputs.currency, provider=inst.row["provider"], months=months)
    return replace(credit, label=f"offer {row['offer_id']}"), what


def _covered_periods(terms: dict[str, Any], periods: int, model: str, duration_days: Any) -> int:
    if terms.get("renewal_only"):
        return periods - 1
    if terms.get("first_only"):
        return min(periods, 1)
    if duration_days:
        window_months = math.ceil(int(duration_days) / 30)
        return min(periods, math.ceil(window_months / term_months(model)))
    return periods


def discount_saving(inst: PricedInstance, inputs: TcoInputs, row: dict[str, Any]) -> tuple[Decimal, str] | None:
    """What a percent-off offer saves on this option's compute under its mix,
    and its condition; None where it covers none of the option's purchases."""
    if row.get("percent_off") is None or row.get("kind") not in DISCOUNT_KINDS:
        return None
    terms = terms_of(row)
    if row.get("kind") == "renewal_discount":
        terms = {**terms, "renewal_only": True}
    default = SUBSCRIPTIONS if terms.get("renewal_only") else NOT_SPOT
    models = _models(terms) or default
    if terms.get("renewal_only"):
        models = models & SUBSCRIPTIONS  # an hourly price has nothing to renew
    percent = Decimal(str(row["percent_off"]))
    saving = Decimal(0)
    for model, share in inputs.mix.items():
        if model in models:
            cost, periods = period_cost(inst, inputs, model, share)
            saving += cost * _covered_periods(terms, periods, model, row.get("duration_days")) * percent / 100
    if saving <= 0:
        return None
    return saving, f"{percent.normalize():f}% off {_scope_words(terms, default)}"


def offer_worth(inst: PricedInstance, refs: References, inputs: TcoInputs, row: dict[str, Any]) -> Worth | None:
    """What `row` saves this option under `inputs`, or None where it does not apply."""
    if row.get("provider") != inst.row["provider"]:
        return None
    if row.get("kind") in DISCOUNT_KINDS:
        found = discount_saving(inst, inputs, row)
        if found is None:
            return None
        base = instance_costs(replace(inst, fx=set(inst.fx)), refs, inputs)
        total = base["total"] - found[0]
        hours = inputs.count * inputs.hours_per_month * inputs.months
        per_hour = (total / hours).quantize(Decimal("0.0001")) if hours else None
        costs = {**base, "credits": found[0], "total": total, "per_gpu_hour": per_hour}
        return Worth(str(row["offer_id"]), costs, conditions(row, found[1]))
    models = _models(terms_of(row))
    if models is not None and not any(model in models for model in inputs.mix):
        return None
    if row.get("amount") is not None and row.get("currency"):
        credit, what = offer_credit(row, provider=inst.row["provider"]), ""
    else:
        found_time = _gpu_time_credit(inst, inputs, row)
        if found_time is None:
            return None
        credit, what = found_time
    costs = instance_costs(replace(inst, fx=set(inst.fx)), refs, replace(inputs, credit=credit))
    if costs["credits"] <= 0:
        return None
    return Worth(str(row["offer_id"]), costs, conditions(row, what))


def best_offer(
    inst: PricedInstance, refs: References, inputs: TcoInputs, offers: Sequence[dict[str, Any]]
) -> tuple[dict[str, Any], Worth | None]:
    """The option's costs under the one offer that saves most (offers do not stack)."""
    best, chosen = instance_costs(replace(inst, fx=set(inst.fx)), refs, inputs), None
    for row in offers:
        worth = offer_worth(inst, refs, inputs, row)
        if worth is not None and worth.costs["total"] < best["total"]:
            best, chosen = worth.costs, worth
    return best, chosen


def credit_from_offer(
    offers: list[dict[str, Any]] | pd.DataFrame, offer_id: str, qualifies: Iterable[str] = ()
) -> Credit:
    """The credit of one offer for `tco --offer`: its amount, provider,
    validity, minimum spend and caps; for a tier of a 满减 ladder, the whole
    ladder (the best tier each option's spend reaches counts)."""
    found = offer_rows(offers)
    if not found:
        raise UserError("the store has no offers; crawl an offers source first, or give --credit AMOUNT")
    rows = {r["offer_id"]: r for r in found}
    row = rows.get(offer_id)
    if row is None:
        raise UserError(f"no current offer {offer_id!r}; see gpu-tracker offers")
    if not row.get("amount") or not row.get("currency"):
        raise UserError(f"offer {offer_id!r} has no credit amount to apply (it may be a percentage discount)")
    who = row.get("eligibility") or "all"
    if who not in {"all", *qualifies}:
        flag = "--new-account" if who == "new_users" else f"--qualify {who}"
        raise UserError(f"offer {offer_id!r} is for {_WHO.get(who, who)} only; pass {flag} if that is you")
    credit = offer_credit(row)
    ladder = terms_of(row).get("ladder")
    if ladder:
        steps = [
            r for r in rows.values() if terms_of(r).get("ladder") == ladder and r.get("currency") == row["currency"]
        ]
        tiers = tuple(sorted((Decimal(str(r["min_spend"])), Decimal(str(r["amount"]))) for r in steps))
        credit = replace(credit, tiers=tiers, label=f"ladder {ladder}")
    return credit
