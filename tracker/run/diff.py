"""The diff engine: from the previous snapshot and the current one to
changes, and to the writes that move the snapshot forward.

It never reads or writes the store. A run is fed in chunks
(`SnapshotDiff.feed`), so that a million quotes never sit in memory at
once: only each key's value hash does. What it needs of the previous
snapshot beyond that (ids, prices, misses) it asks for, for the few keys
that differ, through a `Lookup`. A current snapshot that looks implausible
(too few rows, prices of zero or a hundredfold jump) raises `Implausible`:
the caller throws the run's writes away and keeps the last good data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from itertools import compress, repeat
from operator import attrgetter, gt, is_, itemgetter, ne
from typing import Any

from db.bulk.encoding import STORED_FIELDS, StagedQuote
from db.schema import Change, ChangeKind, TrackedPrice
from tracker.normalize import NormalizeError

_KEY, _VALUE, _COLUMNS, _INPUT = (attrgetter(name) for name in ("key", "value_hash", "columns", "input_hash"))
_REGION = itemgetter(STORED_FIELDS.index("region"))

# The open rows of the given keys, from wherever the previous snapshot lives.
Lookup = Callable[[Sequence[str]], Mapping[str, TrackedPrice]]


@dataclass(frozen=True)
class DiffPolicy:
    removal_confirmations: int = 2
    min_row_ratio: Decimal = Decimal("0.5")
    max_price_factor: Decimal = Decimal(100)


class Implausible(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class DuplicateQuote(NormalizeError):
    """Two values for one key in one run: ambiguous, an error, never a guess."""


@dataclass
class ChunkWrites:
    inserts: list[StagedQuote] = field(default_factory=list)
    closes: list[int] = field(default_factory=list)  # none when `feed` was given `take`
    # Open rows found unchanged under a file row they did not come from: id -> its hash.
    input_hashes: dict[int, str] = field(default_factory=dict)


def percent_change(old: Decimal, new: Decimal) -> Decimal | None:
    if old == 0:
        return None
    return ((new - old) / old * 100).quantize(Decimal("0.01"))


def quote_change(
    kind: ChangeKind,
    quote: StagedQuote,
    *,
    source: str,
    old: Decimal | None,
    new: Decimal | None,
    observed_at: datetime,
    **detail: str,
) -> Change:
    f = quote.fields
    # Every value is already of its field's type: no validation, for the
    # tens of thousands a big run may change.
    return Change.model_construct(
        kind=kind,
        provider=f["provider"],
        source=source,
        key=quote.key,
        region=f["region"],
        zone=f["zone"],
        instance_type=f["instance_type"],
        gpu_model=f["gpu_model"],
        gpu_count=f["gpu_count"],
        os=f["os"],
        price_model=str(f["price_model"]),
        term=f["term"],
        payment_option=f["payment_option"],
        old_price=old,
        new_price=new,
        percent=percent_change(old, new) if old is not None and new is not None else None,
        currency=f["currency"],
        unit=str(f["unit"]),
        source_url=f["source_url"],
        observed_at=observed_at,
        detail=dict(detail),
    )


def _jump(quote: StagedQuote, before: TrackedPrice, policy: DiffPolicy) -> str | None:
    if before.price <= 0:
        return None
    f = quote.fields
    price: Decimal = f["price"]
    if price <= 0:
        return f"{_what(f)} now costs {price}, was {before.price}"
    ratio = max(price / before.price, before.price / price)
    if ratio >= policy.max_price_factor:
        return f"{_what(f)} moved from {before.price} to {price}, a {ratio:.0f}x jump"
    return None


def _what(f: Mapping[str, Any]) -> str:
    return f"{f['instance_type']} ({f['price_model']}, {f['region']})"


def compact(hex_digest: str) -> int:
    """A key or hash as the bulk diff holds it: an int takes half the memory
    of its hex text, and a million of them are held at once."""
    return int(hex_digest, 16)


def key_text(key: int) -> str:
    return format(key, "032x")


class SnapshotDiff:
    """One run's diff, fed chunk by chunk. With no previous snapshot the
    current one is a baseline: stored, but not announced as hundreds of new
    SKUs. Keys and hashes are held `compact`."""

    def __init__(
        self,
        fingerprints: dict[int, int],
        policy: DiffPolicy,
        *,
        source: str,
        observed_at: datetime,
        missed: Mapping[str, TrackedPrice] | None = None,
        inputs: dict[int, int] | None = None,
    ) -> None:
        self.previous = fingerprints  # key -> value hash; consumed as keys are seen
        self.previous_count = len(fingerprints)
        self.inputs = inputs or {}  # input hash -> key, for rows that came from a file
        self.current: dict[int, int] = {}
        self.policy, self.source, self.observed_at = policy, source, observed_at
        self.missed = {compact(key): price for key, price in (missed or {}).items()}
        self.changes: list[Change] = []
        self.misses: dict[int, int] = {}
        self.regions: set[str] = set()

    def recognize(self, input_hash: int) -> bool:
        """Whether a file row is the very one an open row came from: then its
        quote is that row's, unchanged, and it is counted as seen without
        being validated or hashed again. A row met twice in one run is not
        recognized the second time, so that `feed` judges it."""
        key = self.inputs.get(input_hash)
        if key is None:
            return False
        before = self.previous.pop(key, None)
        if before is None:
            return False
        self.current[key] = before
        if key in self.missed:
            self.misses[self.missed[key].id] = 0
        return True

    def feed(self, quotes: Sequence[StagedQuote], lookup: Lookup, take: Lookup | None = None) -> ChunkWrites:
        """The chunk's writes. `take`, when given, is `lookup` that also ends
        the rows it returns (one statement where the store can): the open
        rows of changed keys, which the chunk's writes then do not close.

        A million quotes pass through here, most of them unchanged: the
        per-quote work is done by whole chunks, in C (map, zip, compress,
        set operations), and only new and changed quotes are looked at one
        by one."""
        writes = ChunkWrites()
        keys = list(map(int, map(_KEY, quotes), repeat(16)))
        values = list(map(int, map(_VALUE, quotes), repeat(16)))
        pairs = dict(zip(keys, values))
        if len(pairs) != len(keys) or not self.current.keys().isdisjoint(pairs):
            quotes, keys, values = self._without_repeats(quotes, keys, values)
            pairs = dict(zip(keys, values))
        self.current.update(pairs)
        self.regions.update(map(_REGION, map(_COLUMNS, quotes)))
        befores = list(map(self.previous.pop, keys, repeat(None)))
        new = list(map(is_, befores, repeat(None)))
        differs = list(map(ne, befores, values))  # new ones too: None differs from any hash
        writes.inserts = list(compress(quotes, new))
        if self.previous_count:
            self.changes.extend(self._change(ChangeKind.new_sku, quote, None) for quote in writes.inserts)
        changed = list(compress(quotes, map(gt, differs, new))) if differs.count(True) > len(writes.inserts) else []
        seen_again = self.missed.keys() & pairs.keys()
        if seen_again:
            unchanged = {key for key, moved in zip(keys, differs) if not moved}
            self.misses.update((self.missed[key].id, 0) for key in seen_again & unchanged)
        if changed:
            befores_of = (take or lookup)([q.key for q in changed])
            for quote in changed:
                reason = _jump(quote, befores_of[quote.key], self.policy)
                if reason:
                    raise Implausible(reason)
            for quote in changed:
                self._changed(quote, befores_of[quote.key], writes)
            if take is None:  # else `take` has closed them
                writes.closes = [befores_of[quote.key].id for quote in changed]
        relearn = []
        if any(map(_INPUT, quotes)):
            relearn = [q for q, moved in zip(quotes, differs) if not moved and q.input_hash is not None]
        if relearn:
            befores_of = lookup([q.key for q in relearn])
            writes.input_hashes = {befores_of[q.key].id: q.input_hash for q in relearn if q.input_hash}
        return writes

    def _without_repeats(
        self, quotes: Sequence[StagedQuote], keys: list[int], values: list[int]
    ) -> tuple[list[StagedQuote], list[int], list[int]]:
        """The chunk less the quotes of keys met before in this run with the
        same value; a key met with another value is a `DuplicateQuote`."""
        kept: tuple[list[StagedQuote], list[int], list[int]] = ([], [], [])
        seen: dict[int, int] = {}
        for quote, key, value in zip(quotes, keys, values):
            before = self.current.get(key, seen.get(key))
            if before is None:
                seen[key] = value
                for column, item in zip(kept, (quote, key, value)):
                    column.append(item)  # type: ignore[attr-defined]
            elif before != value:
                f = quote.fields
                raise DuplicateQuote(
                    f"{f['provider']}: two prices for {f['instance_type']} {f['price_model']} "
                    f"{f['term']} {f['os']} in {f['region']}, one of them {f['price']}"
                )
        return kept

    def _change(self, kind: ChangeKind, quote: StagedQuote, old: Decimal | None, **detail: str) -> Change:
        return quote_change(
            kind, quote, source=self.source, old=old, new=quote.fields["price"], observed_at=self.observed_at, **detail
        )

    def _changed(self, quote: StagedQuote, before: TrackedPrice, writes: ChunkWrites) -> None:
        writes.inserts.append(quote)
        fields = quote.fields
        price, availability = fields["price"], fields["availability"]
        if price != before.price:
            kind = ChangeKind.price_drop if price < before.price else ChangeKind.price_increase
            self.changes.append(self._change(kind, quote, before.price))
        if availability != before.availability:
            change = self._change(
                ChangeKind.availability_changed,
                quote,
                before.price,
                old_availability=before.availability or "",
                new_availability=availability or "",
            )
            # The prices are context here; a percent would read as a price move.
            change.percent = None
            self.changes.append(change)

    def finish(self, lookup: Lookup) -> list[int]:
        """Checks the run as a whole; counts a miss for every previous key
        not seen, and returns the ids of those missed often enough to go."""
        if not self.current:
            raise Implausible("the crawl found no prices")
        if self.previous_count and len(self.current) < self.previous_count * self.policy.min_row_ratio:
            raise Implausible(
                f"the crawl found {len(self.current)} prices, less than {self.policy.min_row_ratio:%} "
                f"of the {self.previous_count} of the last complete run"
            )
        removed = []
        for before in lookup([key_text(key) for key in self.previous]).values():
            missed = before.missed_runs + 1
            if missed >= self.policy.removal_confirmations:
                removed.append(before.id)
            else:
                self.misses[before.id] = missed
        return removed
