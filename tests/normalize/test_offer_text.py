"""The offer text parser, from a table of real-world phrasings, and a
property: no text makes it raise."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.normalize.offer_text import parse_terms
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


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    parse_terms(text)
    clean_text(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789０１２３４５６７８９.,$¥￥元万亿折满减%天个月年 -", max_size=40))
def test_never_raises_on_number_soup(text: str) -> None:
    terms = parse_terms(text)
    if terms.amount is not None:
        assert terms.amount.is_finite()
