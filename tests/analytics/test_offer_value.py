"""What an offer is worth to one option (tracker/analytics/offer_value.py),
from the terms stored with it: which purchases a discount covers (read once,
by the reader), what it saves, a ladder's best tier, caps, GPU time, and who
may count it."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pandas as pd
import pytest

from tracker.analytics.facts.reference import load_references
from tracker.analytics.offer_value import credit_from_offer, discount_saving, offer_worth
from tracker.analytics.tco import Credit, PricedInstance, TcoInputs, instance_costs
from tracker.errors import UserError
from tracker.normalize.offers import build_offers

SUBS = ["monthly", "reserved_1yr", "reserved_3yr"]
WHEN = datetime(2026, 8, 3, tzinfo=UTC)
PHRASES = [
    # text, the terms stored: models, first purchase only, renewals only
    ("GPU 加速型云服务器 6折续费", None, False, True),
    ("满1000减300 仅限包年包月云服务器 CVM 新用户专享", SUBS, False, False),
    ("GPU 云服务器包年 5折", ["reserved_1yr"], False, False),
    ("20% off for 1 year on GPU instances", ["reserved_1yr"], False, False),
    ("3年 GPU 实例低至 3折", ["reserved_3yr"], False, False),
    ("按量付费 GPU 8折", ["on_demand"], False, False),
    ("新购 GPU 包月 7折", ["monthly"], True, False),
    ("30% off your first purchase of a 1-year term", ["reserved_1yr"], True, False),
    # Dates are not terms: "2026年12月31日" names no year or month of use.
    ("GPU 云服务器 8折 活动截至 2026年12月31日", None, False, False),
    ("Save 15% on GPU VMs until 2026-12-31", None, False, False),
    # A trial's length names no price model.
    ("GPU 云服务器免费试用 1个月", None, False, False),
]


def rows_of(text: str, provider: str = "p", **data: object) -> list[dict]:
    built = build_offers(
        provider=provider,
        offer_id=f"{provider}:x",
        data={"title": text, **data},
        observed_at=WHEN,
        source_url="https://example.test/",
        default_currency="CNY",
    )
    out = []
    for offer in built.offers:
        row = offer.model_dump(mode="json")
        row["terms"] = offer.terms
        out.append(row)
    return out


@pytest.mark.parametrize(("text", "models", "first", "renewal"), PHRASES)
def test_the_terms_stored_name_the_purchases_covered(text: str, models, first: bool, renewal: bool) -> None:
    (row,) = rows_of(text)
    terms = row["terms"]
    assert (terms.get("models"), terms.get("first_only", False), terms.get("renewal_only", False)) == (
        models,
        first,
        renewal,
    )


def _instance() -> PricedInstance:
    row = {"provider": "p", "gpu_count": Decimal(8), "gpu_model": "A100 80GB", "instance_type": "x8"}
    rates = {"on_demand": Decimal(10), "monthly": Decimal(5000), "reserved_1yr": Decimal(40000)}
    return PricedInstance(row=row, rates=rates)


@pytest.mark.parametrize(
    ("text", "mix", "saving"),
    [
        # 40% off the 23 monthly renewals of a 24-month horizon: 0.4 x 5000 x 23
        ("6折续费", {"monthly": Decimal(1)}, "46000"),
        # a renewal discount has nothing to renew on an hourly price
        ("6折续费", {"on_demand": Decimal(1)}, None),
        # 20% off the first of two 1-year terms: 0.2 x 40000
        ("20% off your first purchase of a 1-year term", {"reserved_1yr": Decimal(1)}, "8000"),
        # 30% off on demand for 90 days: 0.3 x 3 months x 10 x 100 hours
        ("按量付费 7折，有效期90天", {"on_demand": Decimal(1)}, "900"),
        # half the fleet on demand, half monthly; no model named: both, the whole horizon:
        # 0.2 x (0.5 x 100 x 10 + 0.5 x 5000) x 24
        ("GPU 8折", {"on_demand": Decimal("0.5"), "monthly": Decimal("0.5")}, "14400"),
        # a discount for monthly subscriptions does not touch an on-demand option
        ("包月 8折", {"on_demand": Decimal(1)}, None),
    ],
)
def test_what_a_discount_saves(text: str, mix: dict, saving: str | None) -> None:
    (row,) = rows_of(text)
    inputs = TcoInputs(count=Decimal(8), hours_per_month=Decimal(100), months=24, mix=mix)
    found = discount_saving(_instance(), inputs, row)
    assert (found[0].normalize() if found else None) == (Decimal(saving) if saving else None)


def _inputs(**kw: object) -> TcoInputs:
    return TcoInputs(count=Decimal(8), hours_per_month=Decimal(100), months=12, currency="CNY", **kw)  # type: ignore[arg-type]


def test_a_ladder_counts_the_best_tier_the_spend_reaches() -> None:
    """12 000 CNY of compute (8 GPUs x 100 h x 10 / 8 ... one instance x 100 h x 10 CNY x 12)."""
    refs, inst = load_references(), _instance()
    rows = rows_of("新客专享 满1000减300、满3000减900、满50000减15000")
    assert [r["offer_id"] for r in rows] == ["p:x-1000", "p:x-3000", "p:x-50000"]
    worth = {r["offer_id"]: offer_worth(inst, refs, _inputs(), r) for r in rows}
    assert worth["p:x-50000"] is None  # 12 000 of spend does not reach it
    three, one = worth["p:x-3000"], worth["p:x-1000"]
    assert three is not None and one is not None
    assert three.costs["credits"] == 900 and one.costs["credits"] == 300
    assert "new users only" in three.conditions and "best tier" in three.conditions
    frame = pd.DataFrame(rows)
    with pytest.raises(UserError, match="for new users only; pass --new-account"):
        credit_from_offer(frame, "p:x-1000")
    ladder = credit_from_offer(frame, "p:x-1000", {"new_users"})
    assert ladder.tiers == ((1000, 300), (3000, 900), (50000, 15000))
    costs = instance_costs(inst, refs, _inputs(credit=ladder))
    assert costs["credits"] == 900


def test_a_cap_per_hour_limits_what_a_credit_covers() -> None:
    refs, inst = load_references(), _instance()
    (row,) = rows_of("总免费额度为3000元，每小时免费额度上限为0.5元")
    worth = offer_worth(inst, refs, _inputs(), row)
    assert worth is not None
    # at most 0.5 CNY an hour x 100 hours x 12 months = 600, of a 3000 credit
    assert worth.costs["credits"] == 600 and "at most 0.5 CNY per hour" in worth.conditions
    uncapped = instance_costs(inst, refs, _inputs(credit=Credit(Decimal(3000), "CNY")))
    assert uncapped["credits"] == 3000


def test_gpu_time_is_worth_the_options_own_on_demand_hours() -> None:
    refs, inst = load_references(), _instance()
    (row,) = rows_of("新用户4小时免费A100")
    worth = offer_worth(inst, refs, _inputs(), row)
    assert worth is not None
    # 4 GPU-hours of an 8-GPU instance at 10 CNY an hour: 4 x 10 / 8
    assert worth.costs["credits"] == 5 and worth.conditions.startswith("4 free A100 hours")
    (h100,) = rows_of("4小时免费H100")
    assert offer_worth(inst, refs, _inputs(), h100) is None
