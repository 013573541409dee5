"""The diff engine: from the previous snapshot and the current one to
changes, and to the writes that move the snapshot forward.

It never reads or writes the store. A run is fed in chunks
(`SnapshotDiff.feed`), so that a million quotes never sit in memory at
once: only each key's value hash does. What it needs of the previous
snapshot beyond that (ids, prices, misses) it asks for, for the few keys
that differ, through a `Lookup`. A current snapshot that looks implausible
(too few rows, prices of zero or a hundredfold jump, most prices moved by
one factor) raises `Implausible`: the caller throws the run's writes away
and keeps the last good data. A slip of a part of the run (`slips.py`) is
left in `SnapshotDiff.slips`, for the caller to hold (`held.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from copy import copy
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from itertools import compress
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np

from db.bulk.encoding import STORED_FIELDS, StagedQuote
from db.bulk.fingerprints import (
    KEY_BYTES,
    VALUE_BYTES,
    GrowingFingerprints,
    PriceFingerprints,
    byte_array,
    hex_texts,
)
from db.schema import Change, ChangeKind, TrackedPrice
from tracker.normalize import Held, NormalizeError
from tracker.run.diff import market, slips
from tracker.run.diff.policy import DiffPolicy

_KEY, _VALUE, _COLUMNS, _INPUT = (attrgetter(name) for name in ("key", "value_hash", "columns", "input_hash"))
_REGION = itemgetter(STORED_FIELDS.index("region"))
_OFFERS = STORED_FIELDS.index("offer_count")  # set on a marketplace aggregate

# The open rows of the given keys, from wherever the previous snapshot lives.
Lookup = Callable[[Sequence[str]], Mapping[str, TrackedPrice]]
# What item each open row of the given keys prices: region, instance_type, price_model, term.
Identify = Callable[[Sequence[str]], Mapping[str, Mapping[str, str]]]


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


# A change is made by copying this one and writing its fields: tens of
# thousands a big run may change, each field already of its type, and a
# copy costs half of `model_construct`, which fills defaults and checks names.
_BLANK_CHANGE = Change.model_construct(
    set(Change.model_fields), kind=ChangeKind.price_drop, provider="", observed_at=datetime.min
)


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
    f = dict(zip(STORED_FIELDS, quote.columns))  # as stored: texts, read once each
    change = copy(_BLANK_CHANGE)
    change.__dict__.update(
        kind=kind,
        provider=f["provider"],
        source=source,
        key=quote.key,
        region=f["region"],
        zone=f["zone"],
        instance_type=f["instance_type"],
        gpu_model=f["gpu_model"],
        gpu_count=None if f["gpu_count"] is None else Decimal(f["gpu_count"]),
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
    return change


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


class SnapshotDiff:
    """One run's diff, fed chunk by chunk. With no previous snapshot the
    current one is a baseline: stored, but not announced as hundreds of new
    SKUs.

    A million quotes pass through here, most of them unchanged: keys and
    value hashes are held as bytes in numpy arrays (`PriceFingerprints`),
    each chunk is judged by whole arrays, and only new and changed quotes
    are looked at one by one. For every previous key it keeps whether this
    run saw it and with which value; the run's new keys are kept sorted."""

    def __init__(
        self,
        previous: PriceFingerprints,
        policy: DiffPolicy,
        *,
        source: str,
        observed_at: datetime,
        missed: Mapping[str, TrackedPrice] | None = None,
        inputs: PriceFingerprints | None = None,
        held: Sequence[Held] = (),
        identify: Identify | None = None,
    ) -> None:
        self.previous = previous
        self.previous_count = len(previous)
        self.seen = np.zeros(len(previous), dtype=bool)
        self.seen_values = previous.values.copy()  # the value this run gave each key it saw
        self.new = GrowingFingerprints()  # keys the previous snapshot lacks
        self.count = 0  # distinct keys seen
        self.policy, self.source, self.observed_at = policy, source, observed_at
        self.missed = dict(missed or {})  # key -> its open row, for keys that count misses
        self.changes: list[Change] = []
        self.misses: dict[int, int] = {}
        self.regions: set[str] = set()
        # File row hashes, sorted, and the position of the key each gave (-1: gone).
        self.inputs = inputs if inputs is not None and len(inputs) else None
        self._input_at = previous.find(self.inputs.values) if self.inputs is not None else None
        # Items the run skipped with a note: their unseen rows stand, counting no miss.
        self.held, self.identify = list(held), identify
        self.held_rows = 0
        self.notes: list[str] = []  # what the run's note adds (the market check's verdicts)
        # Keys whose open price is held as suspect: a move away from it is a
        # correction, never a slip of this run (tracker/run/suspects.py).
        self.suspect_before: set[str] = set()
        # Changed keys -> the id of the open row this run replaced (or closed):
        # a price held as a slip gets that row back (tracker/run/diff/held.py).
        self.replaced: dict[str, int] = {}
        self.slips: list[slips.Slip] = []  # of a part of the run, held (set by `finish`)

    def recognize(self, input_hashes: Sequence[bytes]) -> list[bool]:
        """Whether each file row is the very one an open row came from: then
        its quote is that row's, unchanged, and it is counted as seen without
        being validated or hashed again. A row met twice in one run is not
        recognized the second time, so that `feed` judges it."""
        if self.inputs is None or not input_hashes:
            return [False] * len(input_hashes)
        found = self.inputs.find(np.frombuffer(b"".join(input_hashes), dtype=f"S{VALUE_BYTES}"))
        at = np.where(found >= 0, self._input_at[np.maximum(found, 0)], -1)  # type: ignore[index]  # set whenever inputs are
        candidates = np.flatnonzero(at >= 0)
        candidates = candidates[~self.seen[at[candidates]]]
        _, first = np.unique(at[candidates], return_index=True)
        known = np.zeros(len(at), dtype=bool)
        known[candidates[first]] = True
        seen_at = at[known]
        self.seen[seen_at] = True
        self.count += len(seen_at)
        if self.missed:
            for key in self.missed.keys() & set(hex_texts(self.previous.keys[seen_at])):
                self.misses[self.missed[key].id] = 0
        return known.tolist()

    def feed(self, quotes: Sequence[StagedQuote], lookup: Lookup, take: Lookup | None = None) -> ChunkWrites:
        """The chunk's writes. `take`, when given, is `lookup` that also ends
        the rows it returns (one statement where the store can): the open
        rows of changed keys, which the chunk's writes then do not close."""
        writes = ChunkWrites()
        if not quotes:
            return writes
        keys = byte_array(list(map(_KEY, quotes)), KEY_BYTES)
        values = byte_array(list(map(_VALUE, quotes)), VALUE_BYTES)
        at = self.previous.find(keys)
        first = self._first_sightings(quotes, keys, values, at)
        if first is not None:
            quotes = list(compress(quotes, first))
            keys, values, at = keys[first], values[first], at[first]
        self.count += len(quotes)
        self.regions.update(map(_REGION, map(_COLUMNS, quotes)))
        old = at >= 0
        self.seen[at[old]] = True
        self.seen_values[at[old]] = values[old]
        same = np.zeros(len(keys), dtype=bool)
        same[old] = self.previous.values[at[old]] == values[old]
        if not old.all():
            self.new.add(keys[~old], values[~old])
            writes.inserts = list(compress(quotes, (~old).tolist()))
            if self.previous_count:
                self.changes.extend(self._change(ChangeKind.new_sku, quote, None) for quote in writes.inserts)
        if self.missed:
            unchanged = set(compress(map(_KEY, quotes), same.tolist()))
            self.misses.update((self.missed[key].id, 0) for key in self.missed.keys() & unchanged)
        changed = list(compress(quotes, (old & ~same).tolist()))
        if changed and any(q.columns[_OFFERS] is not None for q in changed):
            changed = self._past_wobbles(changed, lookup)
        if changed:
            befores = (take or lookup)([q.key for q in changed])
            for quote in changed:
                reason = None if quote.key in self.suspect_before else _jump(quote, befores[quote.key], self.policy)
                if reason:
                    raise Implausible(reason)
            for quote in changed:
                self._changed(quote, befores[quote.key], writes)
                self.replaced[quote.key] = befores[quote.key].id
            if take is None:  # else `take` has closed them
                writes.closes = [befores[quote.key].id for quote in changed]
        relearn = (
            [q for q, kept in zip(quotes, same.tolist()) if kept and q.input_hash] if any(map(_INPUT, quotes)) else []
        )
        if relearn:
            befores = lookup([q.key for q in relearn])
            writes.input_hashes = {befores[q.key].id: q.input_hash for q in relearn if q.input_hash}
        return writes

    def _past_wobbles(self, changed: list[StagedQuote], lookup: Lookup) -> list[StagedQuote]:
        """The changed quotes less the marketplace aggregates that only
        wobbled within tolerance: their open rows stay as they are (and are
        never taken, so never closed), seen this run."""
        aggregates = [q for q in changed if q.columns[_OFFERS] is not None]
        befores = lookup([q.key for q in aggregates])
        wobbles = {
            q.key for q in aggregates if q.key in befores and self._move(q.fields, befores[q.key]) is market.Move.wobble
        }
        if self.missed:
            self.misses.update((self.missed[key].id, 0) for key in self.missed.keys() & wobbles)
        return [q for q in changed if q.key not in wobbles]

    def _move(self, fields: Mapping[str, Any], before: TrackedPrice) -> market.Move:
        p = self.policy
        return market.judge(fields, before, tolerance=p.market_tolerance, count_tolerance=p.market_count_tolerance)

    def _first_sightings(
        self, quotes: Sequence[StagedQuote], keys: np.ndarray, values: np.ndarray, at: np.ndarray
    ) -> np.ndarray | None:
        """Which quotes are the first of their key in this run (None: all),
        given where the previous snapshot has their keys (`at`). A key met
        again with another value is a `DuplicateQuote`."""
        again = np.zeros(len(keys), dtype=bool)
        again[at >= 0] = self.seen[at[at >= 0]]
        in_new, new_values = self.new.values_of(keys)
        again |= in_new
        unique, first = np.unique(keys, return_index=True)
        if not again.any() and len(unique) == len(keys):
            return None
        before_value = values
        if len(self.previous):
            before_value = np.where(at >= 0, self.seen_values[np.maximum(at, 0)], values)
        before_value = np.where(in_new, new_values, before_value)
        keep = np.zeros(len(keys), dtype=bool)
        keep[first] = True
        keep &= ~again
        # Within the chunk, a repeat is judged against the key's first sighting in it.
        first_of = first[np.searchsorted(unique, keys)]
        before_value = np.where(again, before_value, values[first_of])
        clash = np.flatnonzero(before_value != values)
        if len(clash):
            f = quotes[int(clash[0])].fields
            raise DuplicateQuote(
                f"{f['provider']}: two prices for {f['instance_type']} {f['price_model']} "
                f"{f['term']} {f['os']} in {f['region']}, one of them {f['price']}"
            )
        return keep

    def _change(
        self,
        kind: ChangeKind,
        quote: StagedQuote,
        old: Decimal | None,
        before: TrackedPrice | None = None,
        **detail: str,
    ) -> Change:
        if quote.columns[_OFFERS] is not None:
            detail = {**market.detail(quote.fields, before), **detail}
        return quote_change(
            kind, quote, source=self.source, old=old, new=quote.fields["price"], observed_at=self.observed_at, **detail
        )

    def _changed(self, quote: StagedQuote, before: TrackedPrice, writes: ChunkWrites) -> None:
        writes.inserts.append(quote)
        fields = quote.fields
        price, availability = fields["price"], fields["availability"]
        if fields["offer_count"] is not None and self._move(fields, before) is not market.Move.move:
            return  # a marketplace row's median or count moved: rewritten, not announced
        if price != before.price:
            kind = ChangeKind.price_drop if price < before.price else ChangeKind.price_increase
            self.changes.append(self._change(kind, quote, before.price, before))
        if availability != before.availability:
            change = self._change(
                ChangeKind.availability_changed,
                quote,
                before.price,
                before,
                old_availability=before.availability or "",
                new_availability=availability or "",
            )
            # The prices are context here; a percent would read as a price move.
            change.percent = None
            self.changes.append(change)

    def _slips(self) -> list[slips.Slip]:
        return slips.slips(self.changes, int(self.seen.sum()), self.policy, self.suspect_before)

    def finish(self, lookup: Lookup) -> list[int]:
        """Checks the run as a whole; counts a miss for every previous key
        not seen (but those of a held item, which keep their miss count), and
        returns the ids of those missed often enough to go. Slips of a part
        of the run are left in `slips`, for the caller to hold."""
        if not self.count:
            raise Implausible("the crawl found no prices")
        found = self._slips()
        whole = slips.whole_run(found, self.policy)
        if whole is not None:
            raise Implausible(whole.whole())
        self.slips = slips.of_a_part(found, self.policy)
        unseen = hex_texts(self.previous.keys[~self.seen])
        if self.held and self.identify is not None and unseen:
            items = self.identify(unseen)
            standing = {key for key, item in items.items() if any(h.covers(item) for h in self.held)}
            unseen = [key for key in unseen if key not in standing]
            self.held_rows = len(standing)
        # Held rows keep their last price but do not make a thin answer
        # plausible: one left-out item is held, most of a catalogue left out
        # is a broken source.
        if self.previous_count and self.count < self.previous_count * self.policy.min_row_ratio:
            held = f" ({self.held_rows} more left out of the answer)" if self.held_rows else ""
            raise Implausible(
                f"the crawl found {self.count} prices{held}, less than {self.policy.min_row_ratio:%} "
                f"of the {self.previous_count} of the last complete run"
            )
        removed = []
        for before in lookup(unseen).values():
            missed = before.missed_runs + 1
            if missed >= self.policy.removal_confirmations:
                removed.append(before.id)
            else:
                self.misses[before.id] = missed
        return removed
