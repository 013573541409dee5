"""The reader against real sentences and blocks of the providers' pages
(tests/data/offer_corpus.toml) and real promotion pages block by block
(tests/data/offer_pages.toml, tests/data/offer_pages_more.toml): precision
and recall per kind, printed.

Only the tuned split is guarded here (offer_corpus.toml, the pages of
offer_pages.toml that are not held out, and every page of
offer_pages_more.toml): the held-out pages, and every page of
tests/data/offer_pages_fresh.toml (the fresh split), are measured by
`python -m tests.helpers.offer_score`, never by a test that guides a fix. The
fresh pages are checked here for their form only: the reader is never run on
them in a test."""

from __future__ import annotations

import tomllib
from typing import Any

from db.kinds import Eligibility, OfferKind
from tests.helpers.offer_score import (
    CORPUS,
    FIELDS,
    FRESH,
    HELD_OUT,
    TUNED,
    got,
    held_out,
    load_cases,
    load_fresh,
    load_more,
    load_pages,
    score,
    want,
)
from tracker.normalize.offers.roles import read_offers

CASES = load_cases(TUNED)
SENTENCES = [c for c in CASES if "lang" not in c]


def read_case(case: dict[str, Any]) -> list[dict[str, Any]]:
    reading = read_offers(
        case["text"],
        title=case.get("title") or None,
        default_currency=case.get("currency"),
        context=case.get("context"),
    )
    return [got(t) for t in reading.offers]


def test_the_corpus_is_real_and_big_enough() -> None:
    everything = load_cases()
    assert len(everything) >= 500
    assert all(c.get("source") and c.get("provider") for c in everything)
    pages = load_pages()
    addresses = {c["source"] for c in pages}
    assert len(addresses) >= 60
    langs = [c["lang"] for c in pages]
    assert langs.count("zh") >= 150 and langs.count("en") >= 150
    quiet = sum(1 for c in SENTENCES if not c.get("offer"))
    assert quiet >= 60  # headings, FAQ answers, rules, docs: most blocks of a real page


def test_the_split_is_fixed_by_the_address() -> None:
    pages = load_pages()
    held = {c["source"] for c in pages if c["split"] == HELD_OUT}
    assert held == {c["source"] for c in pages if held_out(c["source"])}
    share = len(held) / len({c["source"] for c in pages})
    assert 0.25 <= share <= 0.45
    assert not any(c["split"] in (HELD_OUT, FRESH) for c in CASES)


OFFER_FIELDS = {*FIELDS, "conditions"}  # the compared fields, and the conditions kept for people
CONDITIONS = {"spend_required", "order_length", "claim_window", "account_age", "company_age"}


def _well_formed(cases: list[dict[str, Any]]) -> None:
    """Every block of a page file: its page's fields, words, and every label
    of known fields and values."""
    for case in cases:
        assert case["source"] and case["provider"] and case["lang"] and case["currency"], case
        assert case["title"] or case["text"], case
        for offer in case["offer"]:
            assert set(offer) <= OFFER_FIELDS, offer
            OfferKind(offer["kind"])
            Eligibility(offer.get("eligibility", "all"))
            assert set(offer.get("conditions", ())) <= CONDITIONS, offer
            if "amount" in offer or "min_spend" in offer:
                assert offer.get("currency"), offer
            if "amount_low" in offer:
                assert "amount" in offer and want(offer)["amount_low"] < want(offer)["amount"], offer
            if "percent_off_low" in offer:
                assert want(offer)["percent_off_low"] < want(offer)["percent_off"], offer
            time = offer.get("gpu_time")
            if time:
                assert time[1] in ("gpu_hour", "day"), offer
            want(offer)  # every number is one


def test_the_fresh_split_is_real_new_and_well_formed() -> None:
    """offer_pages_fresh.toml: its form only (the reader is not run on it).
    Pages of their own (no address of offer_pages.toml, offer_pages_more.toml
    or offer_corpus.toml), every block in the fresh split, every label of
    known fields and values."""
    fresh = load_fresh()
    assert fresh and all(c["split"] == FRESH for c in fresh)
    addresses = {c["source"] for c in fresh}
    assert len(addresses) >= 25 and len(fresh) >= 180
    langs = [c["lang"] for c in fresh]
    assert langs.count("zh") >= 60 and langs.count("en") >= 60
    seen = {c["source"] for c in load_pages()}
    seen |= {c["source"] for c in tomllib.loads(CORPUS.read_text(encoding="utf-8"))["case"]}
    assert not addresses & seen
    assert not addresses & {c["source"] for c in load_cases()}
    _well_formed(fresh)


def test_the_more_pages_are_real_new_tuned_and_well_formed() -> None:
    """offer_pages_more.toml: pages of their own (no address of
    offer_pages.toml, offer_corpus.toml or offer_pages_fresh.toml), every
    block in the tuned split and among the guarded cases, every label of
    known fields and values."""
    more = load_more()
    assert more and all(c["split"] == TUNED for c in more)
    addresses = {c["source"] for c in more}
    assert len(addresses) >= 30 and len(more) >= 200
    langs = [c["lang"] for c in more]
    assert langs.count("zh") >= 150 and langs.count("en") >= 150
    assert sum(1 for c in more if c["offer"]) >= 50  # offers, and most blocks of a page state none
    seen = {c["source"] for c in load_pages()} | {c["source"] for c in load_fresh()}
    seen |= {c["source"] for c in tomllib.loads(CORPUS.read_text(encoding="utf-8"))["case"]}
    assert not addresses & seen
    assert addresses <= {c["source"] for c in CASES}
    _well_formed(more)


def test_precision_and_recall_per_kind() -> None:
    """The sentences of offer_corpus.toml, as before issue 39."""
    result = score(SENTENCES, read_case)
    print("\n" + result.table())
    assert result.exact_rate >= 0.95, "\n".join(result.misses)
    assert result.noise_rate <= 0.02, "\n".join(result.misses)


def test_the_tuned_split_does_not_regress() -> None:
    """The whole tuned split (issue 39): 86.5% exact, no block without an
    offer giving one, when this was written; 62.3% exact and 19 of 739 blocks
    without an offer giving one (2.6%) once offer_pages_more.toml joined it
    (2026-12-06, its pages labelled before the reader was run on them); 85.8%
    and 7 of 739 (0.9%) once the reader was fixed on them. With
    offer_pages_more_noise.toml (628 blocks of billing docs, price tables, SLAs
    and marketplace pages, labelled before the reader was run on them): 82.7%
    exact and 16 of 1,821 (0.9%) when it joined, 85.9% and 5 of 1,821 (0.3%)
    once the reader was fixed on it. With offer_pages_more_zh2.toml (64
    blocks of Chinese activity tiles and a referral page, labelled before the
    reader was run on them): 83.8% exact and 7 of 1,979 (0.4%) when it
    joined, 84.4% once '双方各' was read as a referral; the floor is 0.84
    until its misses (Chinese-numeral and '低至N折' beside a renewal
    voucher, free V100 hours, '双方各 $50' without a credit word) are read.
    With offer_pages_more_en2.toml (140 offer-dense blocks of startup tier
    tables, GPU-cloud credit round-ups and grant terms in roubles, labelled
    before the reader was run on them: 55.0% of its 60 offers exact and 2 of
    83 (2.4%) when it joined, 60.0% and 3 of 83 once roubles, "sixty (60)
    calendar days" and "within the limit (...)" were read), 80.5% and 10 of
    2,062 (0.5%); the floor is 0.80 until its misses (tier rows whose program
    is named only in the page's heading, "credits from $X to $Y") are read.
    With each block read in its page's context (the page's title, the
    heading above it, what the page is about: tracker/normalize/offers/
    context.py, derived by the scorer from the blocks' titles and the page's
    address): 85.3% and 9 of 2,062 (0.4%), startup tier rows and a referral
    page's credits read as theirs; 86.1% once a heading of vouchers and an
    FAQ's question were read as context, 87.4% once "get a maximum of",
    "双方各 $50", "¥300 券" and 新手 were read; 88.0% and 7 of 2,062 (0.3%)
    once a share under a referral program's heading was read as commission,
    and "on signup" and "Education pack" as parties; 88.5% once "新购或续费"
    was read as a discount and a renewal discount, 6 of 2,062 without an
    offer giving one once a prize's worth (价值 8000 元 IPad) was no credit,
    88.8% once days of free quota (30天免费额度) were a trial, 89.0% once
    faculty were no students, 89.3% once a commitment's length ("locking in
    rates for 1 or 3-year periods") was no validity, 89.8% once 中小企业 was
    enterprises and 免费试用赠金 new users, 90.6% once a share listed under a
    loyalty program's heading ("2 years - 2%,") was a discount, 4 of 2,062
    (0.2%) once a grant to spend and a story were no offers, 91.4% once hours
    given on a GPU (送12小时, 20 机时, an 8-Hour Package) were GPU time, 91.7%
    once "2年7折以及3年5折" was one ranged discount, 92.2% once "credits from
    $1000 to $100000" and "12 months of infrastructure credit" were read,
    92.5% once "one hundred and eighty (180) calendar days" was, 3 of 2,062
    once an offer no longer made was none; the floor is 0.92, and at most 0.3% of blocks without an offer may give one.
    An upper bound, not the measure: the held-out splits are
    (tests/helpers/offer_score.py)."""
    result = score(CASES, read_case)
    print("\n" + result.table())
    assert result.exact_rate >= 0.92, "\n".join(result.misses)
    assert result.noise_rate <= 0.003, "\n".join(result.misses)
