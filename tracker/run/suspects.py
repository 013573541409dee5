"""The market check inside a run (tracker/normalize/suspect.py says what is
suspect): the market read once before the run writes, each written price
judged as its chunk goes by, then the marks, the run's note and its one
`price_suspect` change. A suspect price is stored, but it announces no
price move, new price or stock change of its own; nor does the move that
takes a price out of suspicion.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from db.bulk.encoding import STORED_FIELDS, StagedQuote
from db.schema import Change, ChangeKind
from db.store.reads.connection import session_db
from db.store.writes import suspects
from tracker.normalize.suspect import SHOWN, Market, Verdict, summary

_MODEL = STORED_FIELDS.index("gpu_model")
# The stored columns a price is judged by, in `Market.rate_of`'s order (a
# mapping of them per price cost as much as the judging), and named by.
_RATED = tuple(
    STORED_FIELDS.index(name)
    for name in (
        "gpu_model",
        "gpu_count",
        "price",
        "unit",
        "term",
        "upfront_fee",
        "currency",
        "price_model",
        "offer_count",
    )
)
_TYPE, _PRICE_MODEL, _REGION = (STORED_FIELDS.index(name) for name in ("instance_type", "price_model", "region"))
# The kinds of price that are a discount on demand, and the least share of
# the instance's on-demand rate that is still a discount rather than a slip.
DISCOUNTED = ("spot", "committed")
MIN_SHARE_OF_ON_DEMAND = 0.1
# The changes of one price that a suspect price (or its correction) does not announce.
_QUOTE_KINDS = (
    ChangeKind.price_drop,
    ChangeKind.price_increase,
    ChangeKind.new_sku,
    ChangeKind.availability_changed,
)


def _name(columns: Sequence[Any]) -> str:
    """How the run's note names a price: its instance type, price model and region."""
    region = columns[_REGION]
    where = f" in {region}" if region else ""
    return f"{columns[_TYPE]} {columns[_PRICE_MODEL]}{where}"


class _Low:
    """The run's too-low prices, packed: each key and name as bytes in one
    buffer, the rates in an array, the few GPU models, kinds and instance
    types as numbers. Kept as objects, a third of a first import of a
    million prices pinned every block of memory the import's rows had
    passed through (tens of MB of objects held hundreds of MB)."""

    def __init__(self) -> None:
        self.text = bytearray()  # the key and the name of each entry, in turn
        self.ends = array("q")  # where each key and each name ends, two an entry
        self.usd = array("d")
        self.refs = array("q")  # (model, kind, instance type) numbers, three an entry
        self.names: dict[str, int] = {}
        self.values: list[str] = []

    def _ref(self, value: str) -> int:
        found = self.names.get(value)
        if found is None:
            found = self.names[value] = len(self.values)
            self.values.append(value)
        return found

    def append(self, key: str, model: str, kind: str, instance: str, usd: float, name: str) -> None:
        self.text += key.encode()
        self.ends.append(len(self.text))
        self.text += name.encode()
        self.ends.append(len(self.text))
        self.usd.append(usd)
        self.refs.extend((self._ref(model), self._ref(kind), self._ref(instance)))

    def entries(self) -> Iterator[tuple[str, str, str, str, float, str]]:
        """(key, GPU model, kind, instance type, rate, name) of each, in order."""
        text, ends, values, refs = self.text, self.ends, self.values, self.refs
        for i, usd in enumerate(self.usd):
            start = ends[2 * i - 1] if i else 0
            key = text[start : ends[2 * i]].decode()
            name = text[ends[2 * i] : ends[2 * i + 1]].decode()
            yield key, values[refs[3 * i]], values[refs[3 * i + 1]], values[refs[3 * i + 2]], usd, name

    def without(self, keys: set[str]) -> _Low:
        kept = _Low()
        for key, model, kind, instance, usd, name in self.entries():
            if key not in keys:
                kept.append(key, model, kind, instance, usd, name)
        return kept


class SuspectCheck:
    """One run's market check, on the run's session."""

    def __init__(self, session: Any, *, source: str, provider: str, factor: Decimal) -> None:
        db = session_db(session)
        self.source, self.provider = source, provider
        self.market = Market.of(suspects.peer_rates(db, provider), factor=factor)
        self.before = suspects.suspect_keys(db, source)
        # The keys the run wrote a price of that were marked before it: only
        # those have a mark to lose (`suspects.mark`). Every key judged, kept
        # for a first import of a million prices, held its memory to the end.
        self.judged: list[str] = []
        self.verdicts: list[Verdict] = []
        self.names: dict[str, str] = {}
        # Per (GPU model, kind): the run's cheapest rate, and its prices too high to pass.
        self.cheapest: dict[tuple[str, str], float] = {}
        self.dear: dict[tuple[str, str], list[tuple[str, float, str]]] = defaultdict(list)
        # The run's too-low prices (key, GPU model, kind, instance type, rate,
        # name), and its cheapest on-demand rate per instance type, to tell a
        # discount from a slip. A third of a big first import can be too low:
        # they are kept packed (`_Low`), the reason worded again for those held.
        self.low = _Low()
        self.on_demand: dict[str, float] = {}

    def feed(self, inserts: Sequence[StagedQuote]) -> None:
        """Judges the prices a chunk writes: each for being too low; for
        being too high, the run's cheapest of each GPU model and kind (at
        `settle`), so that dear types of a fair catalogue are never held."""
        judged, marked, rate_of, provider = self.judged, self.before, self.market.rate_of, self.provider
        below, above = self.market.below, self.market.above
        cheapest, on_demand = self.cheapest, self.on_demand
        m, c, p, u, t, f, cur, pm, oc = _RATED
        for quote in inserts:
            if marked and quote.key in marked:
                judged.append(quote.key)
            columns = quote.columns
            if not columns[_MODEL]:
                continue
            found = rate_of(
                columns[m],
                columns[c],
                columns[p],
                columns[u],
                columns[t],
                columns[f],
                columns[cur],
                columns[pm],
                columns[oc],
            )
            if found is None:
                continue
            model, kind, usd = found
            slot = (model, kind)
            cheapest[slot] = min(usd, cheapest.get(slot, usd))
            if kind == "on demand":
                instance = columns[_TYPE]
                on_demand[instance] = min(usd, on_demand.get(instance, usd))
            reason = below(model, kind, provider, usd)
            if reason is not None:
                self.low.append(quote.key, model, kind, columns[_TYPE], usd, _name(columns))
            elif above(model, kind, provider, usd) is not None:
                self.dear[slot].append((quote.key, usd, _name(columns)))

    def forget(self, keys: set[str]) -> None:
        """The prices of `keys` were not stored after all (a slip held them at
        their last good value): neither judged nor held."""
        self.judged = [key for key in self.judged if key not in keys]
        self.low = self.low.without(keys)
        for slot, dear in self.dear.items():
            self.dear[slot] = [entry for entry in dear if entry[0] not in keys]

    def _below(self) -> None:
        """The run's low prices held, but a spot or committed price that is
        a fair share of its own instance's on-demand price in this run (which
        passed): a discount the provider states, not a slip."""
        held_on_demand = {i for _, _, kind, i, _, _ in self.low.entries() if kind == "on demand"}
        for key, model, kind, instance, usd, name in self.low.entries():
            base = self.on_demand.get(instance)
            fair = (
                kind in DISCOUNTED
                and base is not None
                and instance not in held_on_demand
                and usd >= base * MIN_SHARE_OF_ON_DEMAND
            )
            if not fair:
                reason = self.market.below(model, kind, self.provider, usd)
                assert reason is not None  # as `feed` found it
                self.verdicts.append(Verdict(key, reason))
                self._name(key, name)

    def _above(self) -> None:
        """The run's dear prices held where even its cheapest of their GPU
        model and kind is too high: the whole catalogue is off, not one type."""
        for (model, kind), dear in self.dear.items():
            if self.market.above(model, kind, self.provider, self.cheapest[(model, kind)]) is None:
                continue
            for key, usd, name in dear:
                reason = self.market.above(model, kind, self.provider, usd)
                if reason is not None:
                    self.verdicts.append(Verdict(key, reason))
                    self._name(key, name)

    def _name(self, key: str, name: str) -> None:
        """The name of the verdict just held, for the run's note, which names the first few only."""
        if len(self.verdicts) <= SHOWN:
            self.names[key] = name

    def settle(self, session: Any, changes: list[Change], *, run_id: int, observed: datetime) -> list[str]:
        """After the run's writes: the marks stored, the changes of suspect
        prices (and of prices leaving suspicion) replaced by one
        `price_suspect` change; the run's notes."""
        self._below()
        self._above()
        held = {v.key: v.reason for v in self.verdicts}
        if not self.judged and not held:
            return []
        suspects.mark(
            session_db(session),
            source=self.source,
            provider=self.provider,
            run_id=run_id,
            observed_at=observed,
            judged=self.judged,
            suspects=held,
            marked=self.before,
        )
        cleared = (self.before & set(self.judged)) - held.keys()
        quiet = held.keys() | cleared
        changes[:] = [c for c in changes if not (c.kind in _QUOTE_KINDS and c.key in quiet)]
        notes = []
        if held:
            note = summary(self.verdicts, self.names)
            notes.append(f"{self.source}: {note}")
            changes.append(
                Change(
                    kind=ChangeKind.price_suspect,
                    provider=self.provider,
                    source=self.source,
                    observed_at=observed,
                    detail={"reason": note, "count": str(len(held))},
                )
            )
        if cleared:
            notes.append(f"{self.source}: {len(cleared)} price(s) no longer suspect, back in the rankings")
        return notes
