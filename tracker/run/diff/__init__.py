"""The diff of a run against the stored snapshot: what changed, and whether
the run is plausible at all.

- `snapshot.py`: the diff engine (`SnapshotDiff`), fed chunk by chunk;
- `policy.py`: what it takes for plausible (`DiffPolicy`, `[diff]`);
- `slips.py`: many prices moved by one identical factor, a slip of the
  source: the whole run quarantined, or only the part that slipped held;
- `held.py`: that part held at its last good prices, after the writes;
- `market.py`: what a change of a marketplace row is;
- `offers.py`: the offer diff, the open offers against those just seen;
- `spot_risk.py`: a spot-risk run's bands against the open ones.
"""

from tracker.run.diff.policy import DiffPolicy
from tracker.run.diff.snapshot import (
    ChunkWrites,
    DuplicateQuote,
    Identify,
    Implausible,
    Lookup,
    SnapshotDiff,
    percent_change,
    quote_change,
)

__all__ = [
    "ChunkWrites",
    "DiffPolicy",
    "DuplicateQuote",
    "Identify",
    "Implausible",
    "Lookup",
    "SnapshotDiff",
    "percent_change",
    "quote_change",
]
