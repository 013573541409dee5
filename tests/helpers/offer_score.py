"""Scoring a reader of promotion text against the offer corpus:
tests/data/offer_corpus.toml (sentences and blocks of the providers' pages),
tests/data/offer_pages.toml (whole pages, block by block, issue 39),
tests/data/offer_pages_more.toml (more whole pages, every one tuned) and
tests/data/offer_pages_fresh.toml (more whole pages, every one held out).

A reader turns one case (a block: title, text, the source's currency, and
the context of its page: `context`, derived from the page's blocks and
address as the reader derives it on a live page, for every split alike) into
the offers it reads, each a dict of the compared fields. An expected offer is
found *exactly* when a read offer of the block has every compared field equal,
*partly* when one has its kind and its amount, percentage or GPU time but
differs elsewhere, and is *missed* otherwise; a read offer that matches no
expected one is *noise* when its block states no offer at all, and an *extra*
otherwise. Per kind: recall = exact / expected of that kind, precision =
exact / read of that kind.

The split: a page of offer_pages.toml is held out when
`int(sha1(source), 16) % 3 == 0` (`held_out`); every other case, every case
of offer_corpus.toml (the reader was tuned on those before) and every page of
offer_pages_more.toml (`load_more`: labelled on 2026-12-06 before the reader
was run on it, and open to fixing the reader on) is in the tuned split. Every page of offer_pages_fresh.toml is in a third split,
"fresh" (`load_fresh`): labelled on 2026-12-06 before the reader was run on
it, never read while fixing the reader. The held-out and fresh figures are the
measure; the tuned one is an upper bound, and the only one a test may guard.

`python -m tests.helpers.offer_score` prints the three splits' figures for the
reader of this tree (`-v`: the tuned split's misses, each with its page's
title, section and block title; the held-out and fresh
splits' are never printed; `--tuned`: the tuned split's figure alone, which is
what to run while fixing the reader); with the old tree's `tracker` first on the path
(`PYTHONPATH=/path/to/old`), `--old` scores its `build_offer` instead.
"""

from __future__ import annotations

import hashlib
import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).parents[1] / "data" / "offer_corpus.toml"
PAGES = Path(__file__).parents[1] / "data" / "offer_pages.toml"
FRESH_PAGES = Path(__file__).parents[1] / "data" / "offer_pages_fresh.toml"
MORE_PAGES = Path(__file__).parents[1] / "data" / "offer_pages_more.toml"
FRESH_LABELLED = "2026-12-06"
FIELDS = (
    "kind",
    "amount",
    "amount_low",
    "currency",
    "percent_off",
    "percent_off_low",
    "min_spend",
    "duration_days",
    "eligibility",
    "gpu_time",
)
TUNED, HELD_OUT, FRESH = "tuned", "held-out", "fresh"


def held_out(source: str) -> bool:
    """The fixed rule of the split: a third of the pages, by their address."""
    return int(hashlib.sha1(source.encode("utf-8")).hexdigest(), 16) % 3 == 0


def load_pages(path: Path = PAGES, split_of: Callable[[str], str] | None = None) -> list[dict[str, Any]]:
    """The blocks of a file of pages (offer_pages.toml unless told) as cases,
    each with its page's address, provider, currency and language, and its
    split (by `held_out` unless `split_of` says)."""
    cases = []
    for page in tomllib.loads(path.read_text(encoding="utf-8"))["page"]:
        split = split_of(page["source"]) if split_of else (HELD_OUT if held_out(page["source"]) else TUNED)
        around = _contexts(page)
        for block, context in zip(page["block"], around, strict=True):
            cases.append(
                {
                    "source": page["source"],
                    "provider": page["provider"],
                    "currency": page.get("currency"),
                    "lang": page.get("lang"),
                    "split": split,
                    "title": block.get("title") or "",
                    "text": block.get("text") or "",
                    "offer": block.get("offer", []),
                    "context": context,
                }
            )
    return cases


def _contexts(page: dict[str, Any]) -> list[Any]:
    """Each block's context, derived as the reader derives it on a live page
    without headings of its own (`tracker.normalize.offers.context.contexts`:
    the first block's title as the page's title, the nearest heading-like
    block as the section, the page's address), from the blocks' titles and
    words alone: no label of a block is read. Every split alike; None when
    the tree scored has no such step (`--old`)."""
    try:
        from tracker.normalize.offers.context import contexts
    except ImportError:  # pragma: no cover - an old tree
        return [None] * len(page["block"])
    blocks = [{"title": b.get("title") or "", "text": b.get("text") or ""} for b in page["block"]]
    return list(contexts(blocks, page["source"]))


def load_fresh() -> list[dict[str, Any]]:
    """The blocks of offer_pages_fresh.toml, every one in the fresh split:
    never tuned on, never guarded by a test."""
    return load_pages(FRESH_PAGES, lambda _source: FRESH)


def load_more() -> list[dict[str, Any]]:
    """The blocks of offer_pages_more.toml and of every further
    offer_pages_more_*.toml, every one in the tuned split (no page of them is
    held out, whatever its address)."""
    files = [MORE_PAGES, *sorted(MORE_PAGES.parent.glob("offer_pages_more_*.toml"))]
    return [case for path in files for case in load_pages(path, lambda _source: TUNED)]


def load_cases(split: str | None = None) -> list[dict[str, Any]]:
    """Every case of offer_corpus.toml, offer_pages.toml and
    offer_pages_more.toml, or those of one split (the fresh split is
    `load_fresh`'s alone)."""
    sentences = [{**c, "split": TUNED} for c in tomllib.loads(CORPUS.read_text(encoding="utf-8"))["case"]]
    cases = sentences + load_pages() + load_more()
    return [c for c in cases if split is None or c["split"] == split]


def want(offer: dict[str, Any]) -> dict[str, Any]:
    """An expected offer of a data file as the compared fields."""
    time = offer.get("gpu_time")
    return {
        "kind": offer["kind"],
        "amount": Decimal(offer["amount"]) if "amount" in offer else None,
        "amount_low": Decimal(offer["amount_low"]) if "amount_low" in offer else None,
        "currency": offer.get("currency"),
        "percent_off": Decimal(offer["percent_off"]) if "percent_off" in offer else None,
        "percent_off_low": Decimal(offer["percent_off_low"]) if "percent_off_low" in offer else None,
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
        "amount_low": getattr(terms, "amount_low", None),
        "currency": terms.currency if terms.amount is not None or terms.min_spend is not None else None,
        "percent_off": terms.percent_off,
        "percent_off_low": getattr(terms, "percent_off_low", None),
        "min_spend": terms.min_spend,
        "duration_days": terms.duration_days,
        "eligibility": str(terms.eligibility or "all"),
        "gpu_time": (time.amount, time.unit, time.gpu) if time else None,
    }


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a.get(f) == b.get(f) for f in FIELDS)


def near(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same kind and the same amount, percentage or GPU time: found partly."""
    main = ("amount", "percent_off", "gpu_time")
    return a["kind"] == b["kind"] and any(a.get(f) is not None and a.get(f) == b.get(f) for f in main)


@dataclass
class Score:
    cases: int = 0
    expected: Counter = field(default_factory=Counter)
    read: Counter = field(default_factory=Counter)
    exact: Counter = field(default_factory=Counter)
    partly: Counter = field(default_factory=Counter)
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
        head = f"{'kind':<18}{'expected':>9}{'read':>6}{'exact':>7}{'partly':>8}{'missed':>8}{'recall':>8}{'precision':>11}"
        lines = [head]
        for kind in sorted(set(self.expected) | set(self.read)):
            e, r, x, p = self.expected[kind], self.read[kind], self.exact[kind], self.partly[kind]
            recall = f"{x / e:.0%}" if e else "-"
            precision = f"{x / r:.0%}" if r else "-"
            lines.append(f"{kind:<18}{e:>9}{r:>6}{x:>7}{p:>8}{e - x - p:>8}{recall:>8}{precision:>11}")
        total, exact, partly = sum(self.expected.values()), sum(self.exact.values()), sum(self.partly.values())
        lines.append(
            f"{self.cases} blocks; offers found exactly {exact}/{total} ({self.exact_rate:.1%}), partly {partly}, "
            f"missed {total - exact - partly}; precision {self.precision:.1%}; blocks without an offer that gave one "
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
        unmatched = []
        for offer in want:
            match = next((g for g in left if same(offer, g)), None)
            if match is None:
                unmatched.append(offer)
                continue
            left.remove(match)
            result.exact[offer["kind"]] += 1
        for offer in unmatched:
            match = next((g for g in left if near(offer, g)), None)
            if match is not None:
                left.remove(match)
                result.partly[offer["kind"]] += 1
            result.misses.append(
                f"{'partly' if match else 'missed'} {offer} in {_where(case)}{case['text'][:60]!r}; read {got}"
            )
        if not want:
            result.quiet_blocks += 1
            if got:
                result.noise_blocks += 1
                result.misses.append(f"noise {got} from {_where(case)}{case['text'][:60]!r}")
        else:
            result.extras += len(left)
            if left:
                result.misses.append(f"extra {left} from {_where(case)}{case['text'][:60]!r}")
    return result


def _where(case: dict[str, Any]) -> str:
    """A miss's block as `-v` prints it: its title and context before its words."""
    context = case.get("context")
    around = f"[page {context.page[:40]!r} > {context.section[:40]!r}] " if context else ""
    return f"{around}{case.get('title', '')[:50]!r}: "


def _old_reader(case: dict[str, Any]) -> list[dict[str, Any]]:  # pragma: no cover - the "before" figures
    from datetime import UTC, datetime

    from tracker.normalize.offers import build_offer
    from tracker.normalize.offers.text import parse_terms

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
    tuned = score(load_cases(TUNED), reader)
    print(
        "tuned split (offer_corpus.toml, the pages of offer_pages.toml not held out, and offer_pages_more.toml): "
        f"an upper bound\n{tuned.table()}"
    )
    if "-v" in argv:
        print("\n".join(tuned.misses))
    if "--tuned" in argv:
        return
    held = score(load_cases(HELD_OUT), reader)
    fresh = score(load_fresh(), reader)
    print(f"\nheld-out split (a third of offer_pages.toml's pages, never tuned on): the measure\n{held.table()}")
    print(
        f"\nfresh held-out split (offer_pages_fresh.toml, labeled {FRESH_LABELLED}, never read while fixing the "
        f"reader): the measure\n{fresh.table()}"
    )


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
