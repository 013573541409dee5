"""The reader against real sentences and blocks of the providers' pages
(tests/data/offer_corpus.toml): precision and recall per kind, printed, and
the run fails below 95% of the expected offers found exactly or above 2% of
the blocks that state no offer giving one."""

from __future__ import annotations

from typing import Any

from tests.helpers.offer_score import got, load_cases, score
from tracker.normalize.offer_reader import read_offers

CASES = load_cases()


def read_case(case: dict[str, Any]) -> list[dict[str, Any]]:
    text = " ".join(p for p in (case.get("title"), case["text"]) if p)
    return [got(t) for t in read_offers(text, default_currency=case.get("currency")).offers]


def test_the_corpus_is_real_and_big_enough() -> None:
    assert len(CASES) >= 150
    assert all(c.get("source") and c.get("provider") for c in CASES)
    assert len({c["provider"] for c in CASES}) == 7
    quiet = sum(1 for c in CASES if not c.get("offer"))
    assert quiet >= 60  # headings, FAQ answers, rules, docs: most blocks of a real page


def test_precision_and_recall_per_kind() -> None:
    result = score(CASES, read_case)
    print("\n" + result.table())
    assert result.exact_rate >= 0.95, "\n".join(result.misses)
    assert result.noise_rate <= 0.02, "\n".join(result.misses)
