"""Which purchases a percent-off offer covers, read from its text, and what
it saves on an option: a table of phrases, then the arithmetic."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tracker.analytics.offer_discounts import Scope, discount_saving, offer_scope
from tracker.analytics.tco import PricedInstance, TcoInputs

SUBS = frozenset({"monthly", "reserved_1yr", "reserved_3yr"})
PHRASES = [
    # kind, text, expected scope
    ("renewal_discount", "GPU 加速型云服务器 6折续费", Scope(None, renewal_only=True)),
    ("voucher", "满1000减300 仅限包年包月云服务器 CVM 新用户专享", Scope(SUBS)),
    ("discount", "GPU 云服务器包年 5折", Scope(frozenset({"reserved_1yr"}))),
    ("discount", "20% off for 1 year on GPU instances", Scope(frozenset({"reserved_1yr"}))),
    ("discount", "3年 GPU 实例低至 3折", Scope(frozenset({"reserved_3yr"}))),
    ("discount", "按量付费 GPU 8折", Scope(frozenset({"on_demand"}))),
    ("discount", "新购 GPU 包月 7折", Scope(frozenset({"monthly"}), first_only=True)),
    ("discount", "30% off your first purchase of a 1-year term", Scope(frozenset({"reserved_1yr"}), first_only=True)),
    # Dates are not terms: "2026年12月31日" names no year or month of use.
    ("discount", "GPU 云服务器 8折 活动截至 2026年12月31日", Scope(None)),
    ("discount", "Save 15% on GPU VMs until 2026-12-31", Scope(None)),
]


@pytest.mark.parametrize(("kind", "text", "scope"), PHRASES)
def test_scope_of_an_offer(kind: str, text: str, scope: Scope) -> None:
    assert offer_scope({"kind": kind, "title": "", "text": text}) == scope


def _instance() -> PricedInstance:
    row = {"provider": "p", "gpu_count": Decimal(8)}
    rates = {"on_demand": Decimal(10), "monthly": Decimal(5000), "reserved_1yr": Decimal(40000)}
    return PricedInstance(row=row, rates=rates)


def _offer(kind: str, text: str, percent: str, days: int | None = None) -> dict:
    return {"provider": "p", "kind": kind, "title": "", "text": text, "percent_off": percent, "duration_days": days}


@pytest.mark.parametrize(
    ("offer", "mix", "saving"),
    [
        # 40% off the 23 monthly renewals of a 24-month horizon: 0.4 x 5000 x 23
        (_offer("renewal_discount", "6折续费", "40"), {"monthly": Decimal(1)}, "46000"),
        # a renewal discount has nothing to renew on an hourly price
        (_offer("renewal_discount", "6折续费", "40"), {"on_demand": Decimal(1)}, None),
        # 20% off the first of two 1-year terms: 0.2 x 40000
        (
            _offer("discount", "20% off your first purchase of a 1-year term", "20"),
            {"reserved_1yr": Decimal(1)},
            "8000",
        ),
        # 30% off on demand for 90 days: 0.3 x 3 months x 10 x 100 hours
        (_offer("discount", "按量付费 7折", "30", 90), {"on_demand": Decimal(1)}, "900"),
        # half the fleet on demand, half monthly; no model named: both, the whole horizon:
        # 0.2 x (0.5 x 100 x 10 + 0.5 x 5000) x 24
        (_offer("discount", "GPU 8折", "20"), {"on_demand": Decimal("0.5"), "monthly": Decimal("0.5")}, "14400"),
        # a discount for monthly subscriptions does not touch an on-demand option
        (_offer("discount", "包月 8折", "20"), {"on_demand": Decimal(1)}, None),
    ],
)
def test_what_a_discount_saves(offer: dict, mix: dict, saving: str | None) -> None:
    inputs = TcoInputs(count=Decimal(8), hours_per_month=Decimal(100), months=24, mix=mix)
    found = discount_saving(_instance(), inputs, offer)
    assert (found[0].normalize() if found else None) == (Decimal(saving) if saving else None)
