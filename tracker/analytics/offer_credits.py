"""The offers of the offers table that a buyer can count against a GPU bill,
as TCO credits: money credits and vouchers (with their minimum spend and
validity), and GPU time (free GPU hours, day trials of a named instance or
GPU) valued at the instance's own on-demand rate.

An offer counts only where the buyer qualifies (its eligibility is `all` or
one the buyer names), where it covers compute (no products named, or a
GPU or server product) and, when its text names price models ("仅限包年包月"),
only for options that buy one of them. Percent discounts are counted by
offer_discounts.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pandas as pd

from tracker.analytics.history import records
from tracker.analytics.offer_discounts import NOT_SPOT, offer_scope, products_of
from tracker.analytics.tco import Credit, PricedInstance
from tracker.normalize.offer_text import parse_terms

CREDIT_KINDS = {"free_credit", "startup_credit", "voucher", "free_trial"}
COMPUTE_PRODUCTS = {"gpu", "ecs", "cvm", "ec2", "compute_engine", "virtual_machines"}
HOURS_PER_DAY = 24


@dataclass(frozen=True)
class OfferCredit:
    """An offer as it applies to one instance: the credit and what it asks."""

    credit: Credit
    conditions: str
    models: frozenset[str] | None = None  # the price models it is limited to

    def applies_to(self, mix: dict[str, Decimal]) -> bool:
        return self.models is None or any(model in self.models for model in mix)


def usable_offers(offers: pd.DataFrame, qualifies: Iterable[str]) -> list[dict[str, Any]]:
    """The current credit-like offers the buyer qualifies for, covering compute."""
    if offers.empty or "offer_id" not in offers.columns:
        return []
    allowed = {"all", *qualifies}
    out = []
    for row in records(offers):
        if row.get("kind") not in CREDIT_KINDS or (row.get("eligibility") or "all") not in allowed:
            continue
        products = products_of(row)
        if products and not products & COMPUTE_PRODUCTS:
            continue
        out.append(row)
    return out


def conditions(row: dict[str, Any], extra: str = "") -> str:
    """What an offer asks, in one phrase: who, minimum spend, validity, price models."""
    parts = [] if (row.get("eligibility") or "all") == "all" else [f"{row['eligibility']} only"]
    scope = offer_scope(row)
    if scope.models is not None and row.get("kind") not in ("discount", "renewal_discount"):
        parts.append(f"{scope.describe(NOT_SPOT)} only")
    if row.get("min_spend"):
        parts.append(f"min spend {row['min_spend']} {row.get('currency') or ''}".strip())
    if row.get("duration_days"):
        parts.append(f"within {int(row['duration_days'])} days")
    if row.get("offer_valid_until"):
        parts.append(f"claim by {str(row['offer_valid_until'])[:10]}")
    if extra:
        parts.append(extra)
    return "; ".join(parts)


def _gpu_matches(named: str | None, gpu_model: str | None) -> bool:
    """'A100' names every A100; 'A100 80GB' only that one."""
    if not named or not gpu_model:
        return False
    named, model = named.lower(), gpu_model.lower()
    return model == named or model.startswith(named + " ")


def credits_for(
    inst: PricedInstance, offers: list[dict[str, Any]], hours_per_month: Decimal, currency: str
) -> list[OfferCredit]:
    """Every offer of `offers` that applies to this instance, as a credit."""
    row = inst.row
    found = []
    for offer in offers:
        if offer.get("provider") != row["provider"]:
            continue
        months = math.ceil(int(offer["duration_days"]) / 30) if offer.get("duration_days") else None
        label = f"offer {offer['offer_id']}"
        if offer.get("amount") is not None and offer.get("currency"):
            credit = Credit(
                amount=Decimal(str(offer["amount"])),
                currency=str(offer["currency"]),
                provider=row["provider"],
                months=months,
                min_spend=Decimal(str(offer["min_spend"])) if offer.get("min_spend") else None,
                label=label,
            )
            found.append(OfferCredit(credit, conditions(offer), offer_scope(offer).models))
            continue
        gpu_credit = _gpu_time_credit(inst, offer, hours_per_month, currency, label)
        if gpu_credit is not None:
            found.append(gpu_credit)
    return found


def _gpu_time_credit(
    inst: PricedInstance, offer: dict[str, Any], hours_per_month: Decimal, currency: str, label: str
) -> OfferCredit | None:
    """Free GPU hours or trial days, worth what the same time costs on demand."""
    time = parse_terms(str(offer.get("text") or offer.get("title") or "")).gpu_time
    on_demand = inst.rates.get("on_demand")
    row = inst.row
    if time is None or on_demand is None or not row.get("gpu_count"):
        return None
    if time.unit == "gpu_hour":
        if time.gpu is not None and not _gpu_matches(time.gpu, row.get("gpu_model")):
            return None
        value = time.amount * on_demand / Decimal(row["gpu_count"])
        what = f"{time.amount} free {time.gpu or 'GPU'} hours"
        months = 1
    else:
        named_instance = time.instance is not None and time.instance.lower() == str(row["instance_type"]).lower()
        if not named_instance and not _gpu_matches(time.gpu, row.get("gpu_model")):
            return None  # a trial that names neither this instance nor its GPU
        # A trial covers one instance for its days, as many hours as the job uses in them.
        hours = min(time.amount * HOURS_PER_DAY, hours_per_month * time.amount / 30)
        value = hours * on_demand
        what = f"{time.amount}-day trial of {time.instance or time.gpu}"
        months = math.ceil(time.amount / 30)
    credit = Credit(amount=value, currency=currency, provider=row["provider"], months=months, label=label)
    return OfferCredit(credit, conditions(offer, what))
