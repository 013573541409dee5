"""The offer diff as a pure function: which change each kind of edit gives."""

from __future__ import annotations

from datetime import UTC, datetime

from db.schema import Offer
from db.store.writes.offers import TrackedOffer, offer_values
from tracker.normalize.offers import build_offer, build_offers
from tracker.run.diff import DiffPolicy
from tracker.run.diff.offers import diff_offers

WHEN = datetime(2026, 8, 3, tzinfo=UTC)


def offer(title: str, text: str = "", ident: str = "huawei:x") -> Offer:
    return build_offer(
        provider="huawei",
        offer_id=ident,
        data={"title": title, "text": text},
        observed_at=WHEN,
        source_url="https://activity.huaweicloud.com/",
        default_currency="CNY",
    )


def tracked(o: Offer, row_id: int = 1, missed: int = 0) -> TrackedOffer:
    return TrackedOffer(row_id, o.offer_id, o.value_hash, missed, o.source_url, offer_values(o))


def diff(before: list[Offer], after: list[Offer], **policy):
    previous = {o.offer_id: tracked(o, i + 1) for i, o in enumerate(before)}
    return diff_offers(
        previous, {o.offer_id: o for o in after}, DiffPolicy(**policy), source="huawei-offers", observed_at=WHEN
    )


def kinds(result) -> list[tuple]:
    return [(c.kind.value, c.old_price, c.new_price, c.detail.get("changed")) for c in result.changes]


def test_discount_changed_with_old_and_new_percent() -> None:
    result = diff([offer("GPU 云服务器 6折续费")], [offer("GPU 云服务器 5折续费")])
    assert [(k, str(o), str(n)) for k, o, n, _ in kinds(result)] == [("discount_changed", "40", "50")]
    assert result.changes[0].unit == "percent_off"


def test_other_terms_are_offer_changed() -> None:
    result = diff([offer("免费试用 1个月")], [offer("免费试用 3个月")])
    assert kinds(result) == [("offer_changed", None, None, "duration_days")]
    assert result.changes[0].detail["old_duration_days"] == "30"


def test_wording_alone_is_offer_changed_and_volatile_text_is_nothing() -> None:
    assert kinds(diff([offer("云创计划", "5000元代金券")], [offer("云创计划", "最高5000元代金券")])) == [
        ("offer_changed", None, None, "text")
    ]
    same = diff([offer("满100减50", "剩余 3 份 02:00:01")], [offer("满100减50", "剩余 1 份   01:59:59")])
    assert same.changes == [] and same.inserts == [] and same.closes == []


def test_a_block_without_an_amount_or_size_is_no_offer() -> None:
    """It was stored as an "unparsed" offer; now it is left out, with why."""
    built = build_offers(
        provider="huawei",
        offer_id="huawei:x",
        data={"title": "GPU加速型云服务器 免费试用", "text": "限量发放"},
        observed_at=WHEN,
        source_url="https://activity.huaweicloud.com/",
        default_currency="CNY",
    )
    assert built.offers == [] and built.why_not == "no amount, percentage or free time"


def test_a_change_of_terms_alone_is_an_offer_change_and_terms_read_first_are_no_change() -> None:
    before, after = offer("新用户4小时免费A100"), offer("新用户8小时免费A100")
    assert before.terms == {"gpu_time": {"amount": "4", "unit": "gpu_hour", "gpu": "A100"}}
    assert kinds(diff([before], [after])) == [("offer_changed", None, None, "terms")]
    values = {**offer_values(before), "terms": None}  # a row stored before offers kept their terms (0008)
    legacy = TrackedOffer(1, before.offer_id, "hash-without-terms", 0, before.source_url, values)
    result = diff_offers(
        {before.offer_id: legacy}, {before.offer_id: before}, DiffPolicy(), source="huawei-offers", observed_at=WHEN
    )
    assert result.changes == [] and result.inserts == [before] and result.closes == [1]


def test_every_tier_of_a_ladder_is_its_own_offer() -> None:
    built = build_offers(
        provider="tencent",
        offer_id="tencent:newcomer",
        data={"title": "新客专享", "text": "满1000减300、满3000减900、满5000减1500"},
        observed_at=WHEN,
        source_url="https://cloud.tencent.com/act/new",
        default_currency="CNY",
    )
    assert [(o.offer_id, o.amount, o.min_spend, o.eligibility, (o.terms or {})["ladder"]) for o in built.offers] == [
        ("tencent:newcomer-1000", 300, 1000, "new_users", "tencent:newcomer"),
        ("tencent:newcomer-3000", 900, 3000, "new_users", "tencent:newcomer"),
        ("tencent:newcomer-5000", 1500, 5000, "new_users", "tencent:newcomer"),
    ]


def test_added_removed_and_empty() -> None:
    a, b = offer("满100减50", ident="huawei:a"), offer("满1000减300", ident="huawei:b")
    assert kinds(diff([a], [a, b])) == [("offer_added", None, b.amount, None)]
    first = diff([a, b], [a])
    assert first.changes == [] and first.misses == {2: 1} and not first.removed
    previous = {"huawei:a": tracked(a, 1), "huawei:b": tracked(b, 2, missed=1)}
    second = diff_offers(previous, {"huawei:a": a}, DiffPolicy(), source="huawei-offers", observed_at=WHEN)
    assert [r.offer_id for r in second.removed] == ["huawei:b"]
    assert diff([a], []).broken == "the page listed no offers"
    assert diff([], [a, b]).changes == []  # a baseline announces nothing


def test_a_new_offers_card_shows_its_range_and_conditions() -> None:
    from alerts.cards import card

    first = offer("满100减50", ident="huawei:a")
    ranged = offer(
        "New users get $200-$900 in credits, to be claimed within 180 days of registration", ident="huawei:b"
    )
    result = diff([first], [first, ranged])
    assert [c.kind.value for c in result.changes] == ["offer_added"]
    facts = dict(card(result.changes[0]).facts)
    assert facts["Terms"] in {"$200–$900", "$200.00–$900.00"}, facts
    assert facts["Conditions"] == "to be claimed within a window after sign-up"
