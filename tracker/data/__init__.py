"""The reference tables shipped with the tracker (CSV files beside this
module, each with its sources in its own columns or in a `.md` beside it)."""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources


@cache
def rows(name: str) -> tuple[dict[str, str], ...]:
    """The rows of the shipped table `name` ('fx_rates.csv'), read once."""
    path = resources.files("tracker") / "data" / name
    with resources.as_file(path) as real, real.open(encoding="utf-8", newline="") as fh:
        return tuple(csv.DictReader(fh))
