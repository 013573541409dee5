"""The bulk diff fed in chunks agrees with the plain definition of a diff,
whatever the chunking, repeats and overlaps: new keys inserted once,
changed keys replaced once, a key given two values refused, unseen keys
counted as misses."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from db.bulk.encoding import StagedQuote
from db.bulk.fingerprints import KEY_BYTES, VALUE_BYTES, GrowingFingerprints, PriceFingerprints, byte_array, hex_texts
from db.schema import PriceModel, PriceQuote, TrackedPrice, Unit
from tests.conftest import examples
from tracker.run.diff import DiffPolicy, DuplicateQuote, SnapshotDiff

WHEN = datetime(2026, 9, 1, tzinfo=UTC)
POLICY = DiffPolicy(removal_confirmations=1, min_row_ratio=Decimal(0))


def quote(name: int, price: int) -> StagedQuote:
    return StagedQuote.of(
        PriceQuote(
            provider="p",
            region=f"r{name % 3}",
            instance_type=f"t{name}",
            price_model=PriceModel.on_demand,
            price=Decimal(price),
            currency="USD",
            unit=Unit.hour,
            observed_at=WHEN,
        )
    )


prices = st.integers(min_value=1, max_value=3)
snapshots = st.dictionaries(st.integers(0, 30), prices, max_size=25)
runs = st.lists(st.tuples(st.integers(0, 30), prices), max_size=40)


@settings(max_examples=examples(300), deadline=None)
@given(previous=snapshots, run=runs, cut=st.lists(st.integers(1, 10), min_size=1, max_size=8))
def test_chunked_diff_matches_the_definition(
    previous: dict[int, int], run: list[tuple[int, int]], cut: list[int]
) -> None:
    before = {quote(n, p).key: (i, quote(n, p)) for i, (n, p) in enumerate(previous.items(), start=1)}
    tracked = {
        key: TrackedPrice(i, q.value_hash, Decimal(q.fields["price"]), None, 0) for key, (i, q) in before.items()
    }
    diff = SnapshotDiff(
        PriceFingerprints.of((k, q.value_hash) for k, (_, q) in before.items()), POLICY, source="s", observed_at=WHEN
    )

    def lookup(keys: Sequence[str]) -> dict[str, TrackedPrice]:
        return {k: tracked[k] for k in keys if k in tracked}

    # The definition: the first value of each name; a second, other value is an error.
    first: dict[int, int] = {}
    clash = False
    for name, price in run:
        if first.setdefault(name, price) != price:
            clash = True
    chunks, start = [], 0
    for size in cut * 10:
        chunks.append(run[start : start + size])
        start += size
    chunks.append(run[start:])
    inserted: list[str] = []
    closed: list[int] = []
    try:
        for chunk in chunks:
            writes = diff.feed([quote(n, p) for n, p in chunk], lookup)
            inserted += [q.key for q in writes.inserts]
            closed += writes.closes
        removed = diff.finish(lookup) if first else []
    except DuplicateQuote:
        assert clash
        return
    assert not clash
    current = {quote(n, p).key: quote(n, p) for n, p in first.items()}
    assert sorted(inserted) == sorted(
        k for k, q in current.items() if k not in before or before[k][1].value_hash != q.value_hash
    )
    assert len(inserted) == len(set(inserted))
    assert sorted(closed) == sorted(
        before[k][0] for k, q in current.items() if k in before and before[k][1].value_hash != q.value_hash
    )
    assert diff.count == len(current)
    if first:
        assert sorted(removed) == sorted(i for k, (i, _) in before.items() if k not in current)


@pytest.mark.parametrize("count", [0, 1, 50_000])
def test_fingerprints_find_each_key_exactly(count: int) -> None:
    keys = [f"{i * 7919:032x}" for i in range(count)]
    prints = PriceFingerprints.of((k, f"{i:016x}") for i, k in enumerate(keys))
    probe = PriceFingerprints.of(
        [(k, "0" * 16) for k in keys[::997]] + [("f" * 32, "0" * 16), ("0" * 31 + "1", "0" * 16)]
    )
    found = prints.find(probe.keys)
    assert [(prints.keys[i : i + 1].tobytes().hex() if i >= 0 else None) for i in found] == [
        k if k in set(keys) else None for k in (probe.keys[j : j + 1].tobytes().hex() for j in range(len(probe)))
    ]


@pytest.mark.parametrize("leading", ["0" * 16, None])
def test_growing_fingerprints_find_every_key_added(leading: str | None) -> None:
    """Chunks merged as they pair up, whether keys share their leading word or not."""
    grown = GrowingFingerprints()
    added: dict[str, str] = {}
    for chunk in range(9):
        keys = [
            (leading or f"{(i * 2654435761) % 2**64:016x}") + f"{i:016x}" for i in range(chunk * 50, chunk * 50 + 50)
        ]
        values = [f"{i:016x}" for i in range(len(keys))]
        grown.add(byte_array(keys[::-1], KEY_BYTES), byte_array(values[::-1], VALUE_BYTES))
        added.update(zip(keys, values))
        probe = [*added, "f" * 32]
        found, got = grown.values_of(byte_array(probe, KEY_BYTES))
        assert found.tolist() == [True] * len(added) + [False]
        assert hex_texts(got[: len(added)]) == list(added.values())
