"""The offer text parser, from a table of real-world phrasings, and a
property: no text makes it raise."""

from __future__ import annotations

import tomllib
import unicodedata
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from db.kinds import OfferKind
from tests.conftest import examples
from tests.helpers.offer_score import got, want
from tracker.normalize.offers.roles import read_offers
from tracker.normalize.offers.text import parse_terms
from tracker.normalize.volatile import clean_text

CASES = tomllib.loads((Path(__file__).parents[1] / "data" / "offer_phrases.toml").read_text(encoding="utf-8"))["case"]


def _date(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


def test_the_table_is_big_enough() -> None:
    assert len(CASES) >= 60


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:40] for c in CASES])
def test_phrasing(case: dict) -> None:
    text = clean_text(case["text"]) if case.get("clean") else case["text"]
    terms = parse_terms(text)
    got = {
        "kind": terms.kind.value if terms.kind else None,
        "amount": terms.amount,
        "amount_low": terms.amount_low,
        "currency": terms.currency,
        "percent_off": terms.percent_off,
        "min_spend": terms.min_spend,
        "duration_days": terms.duration_days,
        "eligibility": terms.eligibility.value if terms.eligibility else None,
        "valid_from": terms.valid_from,
        "valid_until": terms.valid_until,
    }
    want = {
        "kind": case.get("kind"),
        "amount": Decimal(case["amount"]) if "amount" in case else None,
        "amount_low": Decimal(case["amount_low"]) if "amount_low" in case else None,
        "currency": case.get("currency"),
        "percent_off": Decimal(case["percent_off"]) if "percent_off" in case else None,
        "min_spend": Decimal(case["min_spend"]) if "min_spend" in case else None,
        "duration_days": case.get("duration_days"),
        "eligibility": case.get("eligibility"),
        "valid_from": _date(case.get("valid_from")),
        "valid_until": _date(case.get("valid_until")),
    }
    assert got == want
    time = terms.gpu_time
    stated = case.get("gpu_time")
    want_time = (
        None if stated is None else (Decimal(stated[0]), stated[1], *[v or None for v in [*stated[2:], "", ""][:2]])
    )
    assert (None if time is None else (time.amount, time.unit, time.gpu, time.instance)) == want_time
    if "products" in case:
        assert sorted(terms.products) == sorted(case["products"])


def test_amounts_print_plainly() -> None:
    assert str(parse_terms("$300 in free credits").amount) == "300"
    assert str(parse_terms("1.5万元代金券").amount) == "15000"


@settings(max_examples=examples(400), deadline=None)
@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    parse_terms(text)
    clean_text(text)


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet="0123456789０１２３４５６７８９.,$¥￥元万亿折满减%天个月年 -", max_size=40))
def test_never_raises_on_number_soup(text: str) -> None:
    terms = parse_terms(text)
    if terms.amount is not None:
        assert terms.amount.is_finite()


READINGS = tomllib.loads((Path(__file__).parents[1] / "data" / "offer_phrases.toml").read_text(encoding="utf-8"))[
    "reading"
]


@pytest.mark.parametrize("case", READINGS, ids=[c["text"][:40] for c in READINGS])
def test_reading(case: dict) -> None:
    reading = read_offers(case["text"], default_currency=case.get("currency"))
    assert [got(t) for t in reading.offers] == [want(o) for o in case["offers"]]
    if "conditions" in case:
        assert reading.conditions.phrases() == case["conditions"]
    if not case["offers"]:
        assert reading.why_not


@settings(max_examples=examples(400), deadline=None)
@given(st.text())
def test_reader_never_raises(text: str) -> None:
    reading = read_offers(text, default_currency="CNY")
    assert reading.offers or reading.why_not


_SOUP = "0123456789０１２３４５６７８９.,$¥￥元折满减%天个月年 -、新用户代金券credits off免费试用小时A100free for×"


def _digits(value: Decimal) -> str:
    return format(value, "f")


@settings(max_examples=examples(400), deadline=None)
@given(st.text(alphabet=_SOUP, max_size=60))
def test_reader_never_invents_an_amount(text: str) -> None:
    """Without multipliers (万, 千, k...), every amount, minimum spend and GPU
    time read is written in the text; every percentage comes from a number in it."""
    plain = unicodedata.normalize("NFKC", text).replace(",", "")
    for t in read_offers(text, default_currency="CNY").offers:
        for value in (t.amount, t.min_spend):
            if value is not None:
                assert _digits(value) in plain
        if t.percent_off is not None:
            assert 0 < t.percent_off <= 100
            paid = _digits((Decimal(100) - t.percent_off) / 10).rstrip("0").rstrip(".")
            assert _digits(t.percent_off) in plain or paid in plain or paid.replace(".", "") in plain
        if t.gpu_time is not None and "×" not in plain:
            assert _digits(t.gpu_time.amount) in plain


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(1, 99999), st.integers(1, 99999)), min_size=1, max_size=6))
def test_every_tier_of_a_ladder_is_a_voucher(steps: list[tuple[int, int]]) -> None:
    tiers = sorted({(low + off, off) for low, off in steps}, key=lambda s: s[0])
    tiers = list({low: (low, off) for low, off in tiers}.values())
    text = "、".join(f"满{low}减{off}" for low, off in tiers)
    read = read_offers(text).offers
    assert [(t.min_spend, t.amount) for t in read] == [(Decimal(low), Decimal(off)) for low, off in tiers]
    assert all(t.kind == OfferKind.voucher for t in read)
