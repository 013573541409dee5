"""The diff engine, from the table in data/diff_cases.toml."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from db.bulk.encoding import StagedQuote
from db.bulk.fingerprints import PriceFingerprints
from db.schema import Change, PriceModel, PriceQuote, TrackedPrice, Unit
from tracker.run.diff import DiffPolicy, Implausible, SnapshotDiff

CASES = tomllib.loads((Path(__file__).parents[1] / "data" / "diff_cases.toml").read_text())["case"]
WHEN = datetime(2026, 9, 1, tzinfo=UTC)


def quote(spec: str) -> PriceQuote:
    parts = spec.split()
    availability = next((p for p in parts[2:] if not p.startswith("missed=")), None)
    return PriceQuote(
        provider="test",
        region="r1",
        instance_type=parts[0],
        price_model=PriceModel.on_demand,
        price=Decimal(parts[1]),
        currency="USD",
        unit=Unit.hour,
        availability=availability,
        observed_at=WHEN,
    )


def tracked(specs: list[str]) -> tuple[dict[str, TrackedPrice], dict[int, str]]:
    previous, names = {}, {}
    for n, spec in enumerate(specs, start=1):
        q = quote(spec)
        missed = next((int(p.split("=")[1]) for p in spec.split() if p.startswith("missed=")), 0)
        previous[q.key] = TrackedPrice(n, q.value_hash, q.price, q.availability, missed)
        names[n] = q.instance_type
    return previous, names


@dataclass
class Outcome:
    changes: list[Change] = field(default_factory=list)
    inserts: list[PriceQuote] = field(default_factory=list)
    closes: list[int] = field(default_factory=list)
    misses: dict[int, int] = field(default_factory=dict)
    removed: list[int] = field(default_factory=list)
    broken: str | None = None


def diff_prices(previous: dict[str, TrackedPrice], current: dict[str, PriceQuote], policy: DiffPolicy) -> Outcome:
    """The two snapshots through the run's diff, as one chunk."""
    diff = SnapshotDiff(
        PriceFingerprints.of((k, p.value_hash) for k, p in previous.items()),
        policy,
        source="test",
        observed_at=WHEN,
        missed={k: p for k, p in previous.items() if p.missed_runs},
    )

    def lookup(keys: Sequence[str]) -> dict[str, TrackedPrice]:
        return {k: previous[k] for k in keys}

    try:
        writes = diff.feed([StagedQuote.of(q) for q in current.values()], lookup)
        removed = diff.finish(lookup)
    except Implausible as exc:
        return Outcome(broken=exc.reason)
    inserts = [current[q.key] for q in writes.inserts]
    return Outcome(diff.changes, inserts, writes.closes, diff.misses, removed)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_diff_case(case: dict[str, Any]) -> None:
    previous, names = tracked(case["previous"])
    current = {q.key: q for q in map(quote, case["current"])}
    policy = DiffPolicy(removal_confirmations=case.get("removal_confirmations", 2))
    result = diff_prices(previous, current, policy)
    if "broken" in case:
        assert result.broken is not None and case["broken"] in result.broken
        assert not result.changes and not result.inserts and not result.closes
        return
    assert result.broken is None
    assert sorted(f"{c.kind} {c.instance_type}" for c in result.changes) == sorted(case["expect"])
    if "percents" in case:
        assert [str(c.percent) for c in result.changes] == case["percents"]
    assert sorted(names[i] for i in result.removed) == sorted(case.get("removed", []))
    assert sorted(f"{names[i]}={n}" for i, n in result.misses.items()) == sorted(case.get("misses", []))
    if "inserts" in case:
        assert sorted(q.instance_type for q in result.inserts) == case["inserts"]
    for change in result.changes:
        assert change.observed_at == WHEN


def test_changed_rows_close_their_interval() -> None:
    previous, _ = tracked(["a 1.00", "b 2.00"])
    current = {q.key: q for q in map(quote, ["a 1.10", "b 2.00"])}
    result = diff_prices(previous, current, DiffPolicy())
    assert result.closes == [1]
    assert [q.instance_type for q in result.inserts] == ["a"]
