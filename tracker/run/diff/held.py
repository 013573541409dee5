"""The prices of a slip of a part of a run (`slips.py`) held at their last
good value, after the run's writes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from db.store.writes.held import keep_last_good
from tracker.run.diff.slips import hold_change

if TYPE_CHECKING:
    from db.store.writes.run_store import RunStore
    from tracker.run.diff.snapshot import SnapshotDiff
    from tracker.run.suspects import SuspectCheck


def hold_slips(store: RunStore, diff: SnapshotDiff, check: SuspectCheck, *, provider: str) -> None:
    """After the run's writes: the prices of `diff.slips` back at their last
    good value, their changes and market verdicts dropped, and one
    `price_suspect` change and note in their place."""
    if not diff.slips:
        return
    keys = set().union(*(s.keys for s in diff.slips))
    keep_last_good(store, keys, diff.replaced)
    # Seen by this run: a row that counted misses counts none now.
    diff.misses.update((diff.replaced[key], 0) for key in keys & diff.missed.keys() if key in diff.replaced)
    diff.changes = [c for c in diff.changes if c.key not in keys]
    check.forget(keys)
    change = hold_change(diff.slips, provider=provider, source=diff.source, observed=diff.observed_at)
    diff.changes.append(change)
    diff.notes.append(f"{diff.source}: {change.detail['reason']}")
