"""The notations of issue 39, as the issue writes them (not copied from a
page): ranges and alternatives, "$X off $Y", durations that are no validity,
questions, referral parties, currencies, and unread offers named."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from db.kinds import Eligibility, OfferKind
from tracker.normalize import NormalizeError
from tracker.normalize.offers import normalize
from tracker.normalize.offers.roles import read_offers


def one(text: str, **kw: str) -> tuple:
    offers = read_offers(text, **kw).offers
    assert len(offers) == 1, offers
    o = offers[0]
    return (o.kind, o.amount, o.amount_low, o.currency, o.min_spend, o.duration_days, o.eligibility)


def test_dollars_off_a_minimum_spend() -> None:
    got = one("$5 OFF $15: a minimum purchase of $15 is required, valid for 30 days")
    assert got == (OfferKind.voucher, Decimal(5), None, "USD", Decimal(15), 30, None)


def test_ranges_and_alternatives() -> None:
    assert one("10 元 ~ 80 元不等的满减券、无门槛代金券")[1:4] == (Decimal(80), Decimal(10), "CNY")
    assert one("Startups get credits worth $1,000 to $5,000")[1:4] == (Decimal(5000), Decimal(1000), "USD")
    got = one("Refer a friend: your friend gets $3 or $8 of credit")
    assert got[1:4] == (Decimal(8), Decimal(3), "USD") and got[6] == Eligibility.referred


def test_durations_that_are_no_validity() -> None:
    assert one("2周岁用户续费专区 续费享7折")[5] is None
    assert read_offers("续费时长为1年,续费享6折").offers[0].duration_days is None
    assert one("Claim $100 in credits within 180 days of registration")[5] is None
    assert one("Founded within the last 5 years? Get up to $2,000 in credits")[5] is None


def test_questions_are_context() -> None:
    title = "I was approved for $2,000 in credits. How do I request more?"
    assert read_offers("Submit a request in the portal.", title=title).offers == []
    assert read_offers("How many times can I get the $25 credit?").offers == []


def test_referral_parties() -> None:
    text = (
        "Anyone you refer will receive $10 in credit after adding a payment method. "
        "In return, we'll give you $25 for each friend, once they are billed $25."
    )
    got = [(o.amount, o.eligibility) for o in read_offers(text).offers]
    assert got == [(Decimal(10), Eligibility.referred), (Decimal(25), Eligibility.referrers)]
    text = (
        "When someone you refer loads their first $10, both of you get a reward worth between $5 and $500 in credits."
    )
    both = read_offers(text).offers
    assert {o.eligibility for o in both} == {Eligibility.referred, Eligibility.referrers}


def test_currencies_and_localized_words() -> None:
    assert one("500円のクーポン")[:4] == (OfferKind.voucher, Decimal(500), None, "JPY")
    assert one("1,000 USD 分の AWS クレジット (2 年間有効)")[5] == 730
    assert one("₹5,000 free credits for new users")[3] == "INR"


def test_a_block_with_two_offers_gives_both() -> None:
    offers = read_offers("年付享85折,3年期最高可获4.5折优惠").offers
    assert sorted(o.percent_off or Decimal(0) for o in offers) == [Decimal(15), Decimal(55)]


def _item(ident: str, text: str) -> Any:
    data = {"id": ident, "title": ident, "text": text}
    return {
        "kind": "offer",
        "provider": "demo",
        "observed_at": "2026-08-03T06:00:00Z",
        "source_url": "https://x/",
        "data": data,
    }


def test_unread_offers_are_named_not_hidden() -> None:
    good = _item("credit", "Get $300 in free credits")
    odd = _item("odd", "Spend $100, earn 2x credits")
    out = normalize([good, odd, _item("faq", "How to sign in")])
    assert "odd" in " ".join(out.notes) and "could not be read" in " ".join(out.notes)
    with pytest.raises(NormalizeError, match="look like offers but could not be read"):
        normalize([odd, _item("faq", "How to sign in")])
