"""Scoring a reader of promotion text against tests/data/offer_corpus.toml.

A reader turns one case (a block: title, text, the source's currency) into
the offers it reads, each a dict of the compared fields. An expected offer is
found *exactly* when a read offer of the block has every compared field equal;
a read offer that matches no expected one is *noise* when its block states no
offer at all, and an *extra* otherwise. Per kind: recall = exact / expected of
that kind, precision = exact / read of that kind.

`python -m tests.helpers.offer_score` prints the figures for the reader of
this tree; with the old tree's `tracker` first on the path
(`PYTHONPATH=/path/to/old`), `--old` scores its `build_offer` instead.
"""

from __future__ import annotations

import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).parents[1] / "data" / "offer_corpus.toml"
FIELDS = ("kind", "amount", "currency", "percent_off", "min_spend", "duration_days", "eligibility", "gpu_time")


def load_cases() -> list[dict[str, Any]]:
    return tomllib.loads(CORPUS.read_text(encoding="utf-8"))["case"]


def want(offer: dict[str, Any]) -> dict[str, Any]:
    """An expected offer of a data file as the compared fields."""
    time = offer.get("gpu_time")
    return {
        "kind": offer["kind"],
        "amount": Decimal(offer["amount"]) if "amount" in offer else None,
        "currency": offer.get("currency"),
        "percent_off": Decimal(offer["percent_off"]) if "percent_off" in offer else None,
        "min_spend": Decimal(offer["min_spend"]) if "min_spend" in offer else None,
        "duration_days": offer.get("duration_days"),
        "eligibility": offer.get("eligibility", "all"),
        "gpu_time": (Decimal(time[0]), time[1], time[2] if len(time) > 2 else None) if time else None,
    }


def expected(case: dict[str, Any]) -> list[dict[str, Any]]:
    return [want(offer) for offer in case.get("offer", [])]


def got(terms: Any) -> dict[str, Any]:
    """An offer the reader read (`OfferTerms`) as the compared fields."""
    time = terms.gpu_time
    return {
        "kind": str(terms.kind),
        "amount": terms.amount,
        "currency": terms.currency if terms.amount is not None or terms.min_spend is not None else None,
        "percent_off": terms.percent_off,
        "min_spend": terms.min_spend,
        "duration_days": terms.duration_days,
        "eligibility": str(terms.eligibility or "all"),
        "gpu_time": (time.amount, time.unit, time.gpu) if time else None,
    }


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a.get(f) == b.get(f) for f in FIELDS)


@dataclass
class Score:
    cases: int = 0
    expected: Counter = field(default_factory=Counter)
    read: Counter = field(default_factory=Counter)
    exact: Counter = field(default_factory=Counter)
    noise_blocks: int = 0  # blocks stating no offer that gave one or more
    quiet_blocks: int = 0  # blocks stating no offer
    extras: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def exact_rate(self) -> float:
        total = sum(self.expected.values())
        return sum(self.exact.values()) / total if total else 1.0

    @property
    def noise_rate(self) -> float:
        return self.noise_blocks / self.quiet_blocks if self.quiet_blocks else 0.0

    @property
    def precision(self) -> float:
        total = sum(self.read.values())
        return sum(self.exact.values()) / total if total else 1.0

    def table(self) -> str:
        lines = [f"{'kind':<18}{'expected':>9}{'read':>6}{'exact':>7}{'recall':>8}{'precision':>11}"]
        for kind in sorted(set(self.expected) | set(self.read)):
            e, r, x = self.expected[kind], self.read[kind], self.exact[kind]
            recall = f"{x / e:.0%}" if e else "-"
            precision = f"{x / r:.0%}" if r else "-"
            lines.append(f"{kind:<18}{e:>9}{r:>6}{x:>7}{recall:>8}{precision:>11}")
        lines.append(
            f"{self.cases} blocks; offers found exactly {sum(self.exact.values())}/{sum(self.expected.values())} "
            f"({self.exact_rate:.1%}); precision {self.precision:.1%}; blocks without an offer that gave one "
            f"{self.noise_blocks}/{self.quiet_blocks} ({self.noise_rate:.1%}); extra offers in offer blocks {self.extras}"
        )
        return "\n".join(lines)


def score(cases: Iterable[dict[str, Any]], read: Callable[[dict[str, Any]], list[dict[str, Any]]]) -> Score:
    result = Score()
    for case in cases:
        result.cases += 1
        want, got = expected(case), read(case)
        for offer in want:
            result.expected[offer["kind"]] += 1
        for offer in got:
            result.read[offer["kind"]] += 1
        left = list(got)
        for offer in want:
            match = next((g for g in left if same(offer, g)), None)
            if match is None:
                result.misses.append(f"missed {offer} in {case['text'][:60]!r}; read {got}")
                continue
            left.remove(match)
            result.exact[offer["kind"]] += 1
        if not want:
            result.quiet_blocks += 1
            if got:
                result.noise_blocks += 1
                result.misses.append(f"noise {got} from {case['text'][:60]!r}")
        else:
            result.extras += len(left)
            if left:
                result.misses.append(f"extra {left} from {case['text'][:60]!r}")
    return result


def _old_reader(case: dict[str, Any]) -> list[dict[str, Any]]:  # pragma: no cover - the "before" figures
    from datetime import UTC, datetime

    from tracker.normalize.offer_text import parse_terms
    from tracker.normalize.offers import build_offer

    data = {"title": case.get("title") or "", "text": case["text"]}
    offer = build_offer(
        provider=case["provider"],
        offer_id=f"{case['provider']}:x",
        data=data,
        observed_at=datetime(2026, 8, 3, tzinfo=UTC),
        source_url="https://example.com/",
        default_currency=case.get("currency"),
    )
    time = parse_terms(offer.text).gpu_time
    return [
        {
            "kind": str(offer.kind),
            "amount": offer.amount,
            "currency": offer.currency,
            "percent_off": offer.percent_off,
            "min_spend": offer.min_spend,
            "duration_days": offer.duration_days,
            "eligibility": str(offer.eligibility),
            "gpu_time": (time.amount, time.unit, time.gpu) if time else None,
        }
    ]


def main(argv: list[str]) -> None:  # pragma: no cover
    if "--old" in argv:
        reader = _old_reader
    else:
        from tests.normalize.test_offer_corpus import read_case

        reader = read_case
    result = score(load_cases(), reader)
    print(result.table())
    if "-v" in argv:
        print("\n".join(result.misses))


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
