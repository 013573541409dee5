"""Notations of offer_pages_more_en2.toml's pages (issue 39): sums in roubles,
a length written in words and digits ("sixty (60) calendar days") after a
validity phrase, and a sum that bounds a rule ("within the limit (100,000
rubles)"). Each test sets a read offer beside a near-identical block that
states none."""

from __future__ import annotations

from decimal import Decimal

from tracker.normalize.offers import read_offers


def _read(text: str, currency: str = "RUB") -> list[tuple[str, Decimal | None, str | None, int | None]]:
    return [
        (str(o.kind and o.kind.value), o.amount, o.currency, o.duration_days)
        for o in read_offers(text, default_currency=currency).offers
    ]


def test_a_grant_in_rubles_is_read_in_roubles() -> None:
    text = "6.2. The Program offers the Customer an opportunity to receive an additional Grant of up to 800 000 rubles (including VAT)."
    assert _read(text, currency="USD") == [("free_credit", Decimal("800000"), "RUB", None)]


def test_a_length_in_words_and_digits_after_a_validity_phrase_is_the_validity() -> None:
    text = "An Applicant is provided with an extended Grant of up to 200,000 rubles, including VAT. The duration of the Grant is sixty (60) calendar days."
    assert _read(text) == [("free_credit", Decimal("200000"), "RUB", 60)]


def test_a_sum_within_the_limit_bounds_a_rule() -> None:
    assert (
        _read(
            "The exact amount of a starting grant within the limit (100,000 rubles) is determined by the Organizer individually."
        )
        == []
    )
    assert _read("The Program provides a grant of up to 100,000 rubles for computing resources.") == [
        ("free_credit", Decimal("100000"), "RUB", None)
    ]
