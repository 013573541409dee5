"""Slips of a source: many prices moved by one identical factor.

A provider that moves a decimal point or a unit (x10, /10, x3600) moves
every price it touches by exactly the same factor; a repricing never does.
When more than `common_share` of the prices a run matched moved by one
factor of at least `common_factor`, the whole run is quarantined
(`SnapshotDiff.finish` raises `Implausible`). When fewer did, but still many
(`page_count` of them, or `page_share` of those matched: one page of three
of an answer, one region, one kind of price), only those prices are held:
their last good prices stay, they announce nothing, and one `price_suspect`
change says how many, by which factor and where they came from (the page,
region or kind of price they share), so that the next good crawl announces
nothing either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from db.schema import Change, ChangeKind

if TYPE_CHECKING:
    from tracker.run.diff.policy import DiffPolicy

# Fewer matched prices than this moving together say nothing of a slip.
COMMON_MIN = 3
# The kinds of change a price moved by a slip makes (and that it no longer makes, held).
_MOVES = (ChangeKind.price_drop, ChangeKind.price_increase)
# How many pages, regions or kinds of price a slip's origin names at most.
_NAMED = 3


@dataclass(frozen=True)
class Slip:
    factor: Decimal
    moves: list[Change]  # the price moves by `factor`
    matched: int  # the prices the run matched to a stored one

    @property
    def keys(self) -> set[str]:
        return {c.key for c in self.moves if c.key}

    @property
    def shown(self) -> str:
        if self.factor >= 1:
            return f"x{self.factor:f}"
        return f"/{(1 / self.factor).quantize(Decimal('0.01')).normalize():f}"

    def whole(self) -> str:
        """Why the whole run is quarantined."""
        return (
            f"{len(self.moves)} of the {self.matched} prices seen before moved by the same factor ({self.shown}): "
            "a decimal or unit slip of the source, not a repricing; the last good prices are kept"
        )

    def held(self) -> str:
        """Why these prices, and only these, keep their last good value."""
        return (
            f"{len(self.moves)} of the {self.matched} prices seen before moved by the same factor ({self.shown}), "
            f"{origin(self.moves)}: a decimal or unit slip of the source, not a repricing; "
            "their last good prices are kept, the rest of the run is stored"
        )


def factor_of(change: Change) -> Decimal | None:
    if change.kind not in _MOVES or not change.old_price or change.new_price is None:
        return None
    # Three significant digits: x10 of a price rounded to four decimals is still x10.
    return Decimal(format(change.new_price / change.old_price, ".3g"))


def slips(changes: Iterable[Change], matched: int, policy: DiffPolicy, skip: set[str]) -> list[Slip]:
    """Every group of at least COMMON_MIN price moves sharing one big factor
    (the keys of `skip` left out: prices held as suspect, whose move is a
    correction), most moves first."""
    groups: dict[Decimal, list[Change]] = {}
    for change in changes:
        if change.key in skip:
            continue
        factor = factor_of(change)
        if factor is not None:
            groups.setdefault(factor, []).append(change)
    big = policy.common_factor
    found = [
        Slip(factor, moves, matched)
        for factor, moves in groups.items()
        if len(moves) >= COMMON_MIN and (factor >= big or factor * big <= 1)
    ]
    return sorted(found, key=lambda s: len(s.moves), reverse=True)


def whole_run(found: Sequence[Slip], policy: DiffPolicy) -> Slip | None:
    """The slip that moved more than `common_share` of the matched prices."""
    if found and len(found[0].moves) > found[0].matched * policy.common_share:
        return found[0]
    return None


def of_a_part(found: Sequence[Slip], policy: DiffPolicy) -> list[Slip]:
    """The slips big enough to be held: `page_count` moves, or `page_share` of the matched."""
    return [s for s in found if len(s.moves) >= min(Decimal(policy.page_count), s.matched * policy.page_share)]


def origin(moves: Sequence[Change]) -> str:
    """Where the moved prices came from: the pages (the answer's URLs),
    regions or kinds of price they share, the most specific first."""
    total = len(moves)
    for label, values in (
        ("page", [c.source_url for c in moves]),
        ("region", [c.region for c in moves]),
        ("kind of price", [f"{c.price_model} {c.term}".strip() for c in moves]),
    ):
        counts = Counter(v for v in values if v)
        if not counts or len(counts) > _NAMED or sum(counts.values()) < total:
            continue
        if len(counts) == 1:
            return f"all from {label} {next(iter(counts))}"
        named = ", ".join(f"{value} ({n})" for value, n in counts.most_common())
        return f"from {len(counts)} {label}s: {named}"
    return "from all over the answer"


def hold_change(found: Sequence[Slip], *, provider: str, source: str, observed: datetime) -> Change:
    """The one change that says the run held prices, and why."""
    count = sum(len(s.moves) for s in found)
    return Change(
        kind=ChangeKind.price_suspect,
        provider=provider,
        source=source,
        observed_at=observed,
        detail={"reason": "; ".join(s.held() for s in found), "count": str(count)},
    )
