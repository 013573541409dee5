"""One run's writes, owned by one object: `RunStore`.

A run begins (its row, after marking the source's killed runs aborted),
reads the open snapshot it diffs against, applies its prices or offers,
closes the rows it saw go, and finishes with its status and changes. The
diff itself lives above (`tracker/run/`); this is everything it asks of the
store, bound to the run's session, source and times.

Nothing here commits: the caller owns the transaction, one per run.
Prices move below the ORM (Core statements, the driver's executemany or
COPY), since ORM objects per row cost ten times more.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import partial
from itertools import compress
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import Session, col, select

from db.bulk.encoding import STORED_FIELDS, StagedQuote, price_row
from db.bulk.fingerprints import KEY_BYTES, VALUE_BYTES, PriceFingerprints, byte_array
from db.bulk.writer import BulkWriter, bulk_time
from db.schema import Change, ChangeKind, Offer, RunStatus, TrackedPrice
from db.store.reads.connection import session_db
from db.store.reads.reader import utc_time
from db.store.reads.session import last_run
from db.store.writes import bulk_load
from db.store.writes.offers import VALUE_COLUMNS, OfferPoint, TrackedOffer, offer_to_row, stored_text
from db.store.writes.runs import abort_interrupted_runs, add_changes, began_here
from db.store.writes.summary import after_run
from db.tables import ChangeRow, CrawlRun, PricePoint

# Values in one IN list: one statement does the work of thousands of
# one-row ones (SQLite allows 32,766 variables a statement).
IN_LIST = 5_000
# After writing this many price rows, refresh the planner's statistics.
ANALYZE_AFTER = 100_000


@dataclass
class OpenSnapshot:
    """A source's current snapshot as the bulk diff holds it: each key's
    value hash (all it keeps per row), the keys of the rows that count
    misses, and, for rows that came from an import, the hash of their file
    row and their key (hex)."""

    prices: PriceFingerprints
    missed: list[str]
    inputs: PriceFingerprints  # file row hash -> key


_PROVIDER, _TYPE = STORED_FIELDS.index("provider"), STORED_FIELDS.index("instance_type")


class RunStore:
    """The store as one run of `source` sees it, in the caller's session.

    Prices: inside `writing_prices(observed)`, `open_prices`, then per chunk
    `tracked`/`take` (the diff's lookups) and `apply_prices`; then
    `close_prices` for the rows the run saw go. Offers: `open_offers`, then
    `apply_offers`. Last `finish` or `fail`, with the run's changes."""

    def __init__(self, session: Session, *, source: str, run_id: int) -> None:
        self.session = session
        self.source = source
        self.run_id = run_id
        self.rows_written = 0
        self.moved_types: set[tuple[str, str]] = set()  # (provider, instance type) whose open prices moved
        self._observed: datetime | None = None
        self._valid_from: object = None  # `observed` as the driver binds it
        self._writer: BulkWriter | None = None
        self._dropped: bulk_load.DroppedIndexes | None = None  # a bulk load's indexes, built when it ends
        self._postgres = session.get_bind().dialect.name == "postgresql"

    @classmethod
    def begin(
        cls,
        session: Session,
        *,
        source: str,
        provider: str,
        spider: str,
        mode: str,
        regions: Sequence[str],
        now: datetime,
    ) -> RunStore:
        """A new 'running' row. The source's runs left 'running' by a killed
        process are marked aborted first (the caller holds the source's lock)."""
        abort_interrupted_runs(session=session, now=now, source=source)
        run = CrawlRun(
            source=source,
            provider=provider,
            spider=spider,
            mode=mode,
            regions=",".join(regions),
            started_at=now,
            status=RunStatus.running,
            pid=os.getpid(),
        )
        session.add(run)
        session.flush()
        assert run.id is not None
        began_here(run)
        return cls(session, source=source, run_id=run.id)

    def last_run(self, statuses: Iterable[str]) -> CrawlRun | None:
        """The source's newest finished run of these statuses."""
        return last_run(session=self.session, source=self.source, statuses=statuses)

    def broken_announced(self, after: CrawlRun | None) -> bool:
        """Whether a source_broken was recorded for the source after the run `after` (None: ever)."""
        stmt = sa.select(col(ChangeRow.id)).where(
            col(ChangeRow.source) == self.source, col(ChangeRow.kind) == ChangeKind.source_broken
        )
        if after is not None and after.id is not None:
            stmt = stmt.where(col(ChangeRow.run_id) > after.id)
        return self.session.execute(stmt.limit(1)).first() is not None

    # --- prices -----------------------------------------------------------

    @contextmanager
    def writing_prices(self, observed: datetime) -> Iterator[None]:
        """The span of the run's streamed price writes, stamped `observed`.
        On PostgreSQL the inserts go through a second thread (see
        `db.bulk.writer`); every other statement here waits its turn."""
        self._observed = observed
        self._valid_from = bulk_time(self.session, observed)
        with BulkWriter(self.session) as writer:
            self._writer = writer
            try:
                yield
            finally:
                self._writer = None
        if self._dropped is not None:  # every row written (a failed run rolls the drop back)
            dropped, self._dropped = self._dropped, None
            bulk_load.build_indexes(session_db(self.session), dropped)

    def load_in_bulk(self, snapshot: OpenSnapshot, expected_rows: int) -> None:
        """Before the first chunk: a first big load (the source has no open
        price) drops the table's indexes, built once its rows are in (`bulk_load`)."""
        if self._writer is not None and not (len(snapshot.prices) or snapshot.missed or len(snapshot.inputs)):
            with self._turn():
                self._dropped = bulk_load.drop_if_worth_it(session_db(self.session), expected_rows)

    def _turn(self) -> Any:
        return self._writer.lock if self._writer is not None else nullcontext()

    def open_prices(self, regions: Sequence[str] | None = None) -> OpenSnapshot:
        """The source's open rows (of these regions), in one pass."""
        t = PricePoint.__table__
        condition = sa.and_(t.c.source == self.source, t.c.valid_to.is_(None))
        if regions:
            condition = sa.and_(condition, t.c.region.in_(list(regions)))
        stmt = sa.select(t.c.key, t.c.value_hash, t.c.missed_runs, t.c.input_hash)
        if not self._postgres:
            # Row by row off the index, SQLite reads the table in the index's
            # order, all over the file; given the ids first, it reads it in
            # order (EXPLAIN QUERY PLAN: LIST SUBQUERY; twice as fast at a million).
            stmt = stmt.where(t.c.id.in_(sa.select(t.c.id).where(condition)))
        else:
            # Not a server-side cursor: psycopg then holds the whole result
            # (130 MB for a million rows), but its FETCHes took 20% longer and
            # the SQLAlchemy result they come through twice as long.
            stmt = stmt.where(condition)
        keys: list[np.ndarray] = []
        values: list[np.ndarray] = []
        missed: list[str] = []
        input_hashes: list[np.ndarray] = []
        input_keys: list[np.ndarray] = []
        with self._turn():
            result = self.session.connection().execute(stmt)
            # The driver's own rows, in batches, made arrays a batch at a time:
            # a million rows are read here on every run.
            for rows in iter(partial(result.cursor.fetchmany, 50_000), []):
                batch_keys, value_hashes, misses, hashes = zip(*rows)
                keys.append(byte_array(batch_keys, KEY_BYTES))
                values.append(byte_array(value_hashes, VALUE_BYTES))
                if any(misses):
                    missed.extend(compress(batch_keys, misses))
                if hashes.count(None) != len(hashes):
                    known = [h is not None for h in hashes]
                    input_hashes.append(byte_array(list(compress(hashes, known)), VALUE_BYTES))
                    input_keys.append(byte_array(list(compress(batch_keys, known)), KEY_BYTES))
            result.close()
        inputs = PriceFingerprints.empty()
        if input_hashes:
            inputs = PriceFingerprints.sorted(np.concatenate(input_hashes), np.concatenate(input_keys))
        if not keys:
            return OpenSnapshot(PriceFingerprints.empty(), missed, inputs)
        prices = PriceFingerprints.sorted(np.concatenate(keys), np.concatenate(values))
        return OpenSnapshot(prices, missed, inputs)

    def tracked(self, keys: Sequence[str]) -> dict[str, TrackedPrice]:
        """The open rows of these keys, in full. The source is checked here,
        not in SQL: given it, SQLite's planner walks the (source, region)
        index instead of the key index, a thousand times slower."""
        t = PricePoint.__table__
        columns = (*tracked_columns(t), t.c.source)
        found: dict[str, TrackedPrice] = {}
        with self._turn():
            conn = self.session.connection()
            for start in range(0, len(keys), IN_LIST):
                among = _among(self._postgres, t.c.key, keys[start : start + IN_LIST])
                stmt = sa.select(*columns).where(t.c.valid_to.is_(None), among)
                found.update((r[0], tracked_price(r)) for r in conn.execute(stmt) if r.source == self.source)
        return found

    def identify(self, keys: Sequence[str]) -> dict[str, dict[str, str]]:
        """What item each open row of these keys prices (region, instance
        type, price model, term): the diff asks it of the rows a run did not
        see, to tell an item the run held at its last price from one gone."""
        t = PricePoint.__table__
        columns = (t.c.key, t.c.source, t.c.region, t.c.instance_type, t.c.price_model, t.c.term)
        found: dict[str, dict[str, str]] = {}
        with self._turn():
            conn = self.session.connection()
            for start in range(0, len(keys), IN_LIST):
                among = _among(self._postgres, t.c.key, keys[start : start + IN_LIST])
                for r in conn.execute(sa.select(*columns).where(t.c.valid_to.is_(None), among)):
                    if r.source == self.source:
                        found[r.key] = {
                            "region": r.region,
                            "instance_type": r.instance_type,
                            "price_model": str(r.price_model),
                            "term": r.term or "",
                        }
        return found

    def take(self, keys: Sequence[str]) -> dict[str, TrackedPrice]:
        """`tracked`, and those rows closed at the observed time, in one
        statement (UPDATE ... RETURNING) rather than a read and a write."""
        assert self._observed is not None, "take() outside writing_prices()"
        taken: dict[str, TrackedPrice] = {}
        with self._turn():
            conn = self.session.connection()
            for start in range(0, len(keys), IN_LIST):
                stmt = take_statement(self.session, self.source, keys[start : start + IN_LIST], self._observed)
                taken.update((r[0], tracked_price(r)) for r in conn.execute(stmt))
        return taken

    def last_closed(self, keys: Sequence[str]) -> dict[str, datetime]:
        """When the last closed row of each of these keys ended (keys with
        none are left out): whether a marketplace group was seen before."""
        t = PricePoint.__table__
        found: dict[str, datetime] = {}
        with self._turn():
            conn = self.session.connection()
            for start in range(0, len(keys), IN_LIST):
                among = _among(self._postgres, t.c.key, keys[start : start + IN_LIST])
                stmt = (
                    sa.select(t.c.key, sa.func.max(t.c.valid_to))
                    .where(among, t.c.source == self.source, t.c.valid_to.is_not(None))
                    .group_by(t.c.key)
                )
                found.update((key, utc_time(ended)) for key, ended in conn.execute(stmt) if ended is not None)
        return found

    def apply_prices(self, inserts: Sequence[StagedQuote], input_hashes: dict[int, str]) -> None:
        """One chunk's writes: new rows (queued to the writer), and the file
        row hashes of open rows found unchanged under another file row."""
        writer = self._writer
        assert writer is not None, "apply_prices() outside writing_prices()"
        if input_hashes:
            t = PricePoint.__table__
            stmt = sa.update(t).where(t.c.id == sa.bindparam("pid")).values(input_hash=sa.bindparam("h"))
            with writer.lock:
                self.session.connection().execute(stmt, [{"pid": i, "h": h} for i, h in input_hashes.items()])
        source, run_id, valid_from = self.source, self.run_id, self._valid_from
        writer.write([price_row(q, source=source, run_id=run_id, valid_from=valid_from) for q in inserts])
        self.moved_types.update((q.columns[_PROVIDER], q.columns[_TYPE]) for q in inserts)
        self.rows_written += len(inserts)

    def close_prices(self, removed: Sequence[int], misses: dict[int, int]) -> list[PricePoint]:
        """Ends the rows of `removed` ids at the observed time and stores the
        miss counts of the rest; returns the removed rows, as they were."""
        assert self._observed is not None, "close_prices() before writing_prices()"
        if self.rows_written >= ANALYZE_AFTER:
            self._refresh_statistics()
        session, t = self.session, PricePoint.__table__
        points: list[PricePoint] = []
        for start in range(0, len(removed), 500):
            chunk = list(removed[start : start + 500])
            points.extend(session.exec(select(PricePoint).where(col(PricePoint.id).in_(chunk))).all())
        self.moved_types.update((p.provider, p.instance_type) for p in points)
        ordered = sorted(removed)  # the table's order: its pages are read and written once, in turn
        for start in range(0, len(ordered), IN_LIST):
            among = _among(self._postgres, t.c.id, ordered[start : start + IN_LIST])
            session.connection().execute(sa.update(t).where(among).values(valid_to=self._observed))
        if misses:
            stmt = sa.update(t).where(t.c.id == sa.bindparam("pid")).values(missed_runs=sa.bindparam("n"))
            session.connection().execute(stmt, [{"pid": i, "n": n} for i, n in misses.items()])
        return points

    def _refresh_statistics(self) -> None:
        """After a bulk write on PostgreSQL: until autovacuum gets to it, the
        planner believes the table is as small as before and scans a million
        rows for each key lookup of the next run. (SQLite plans by its indexes
        and would scan the whole table to ANALYZE it.)"""
        if self._postgres:
            self.session.connection().exec_driver_sql("ANALYZE price_points")

    # --- offers -----------------------------------------------------------

    def open_offers(self) -> dict[str, TrackedOffer]:
        t = OfferPoint.__table__
        values = [t.c[c] for c in VALUE_COLUMNS]
        stmt = sa.select(t.c.id, t.c.offer_id, t.c.value_hash, t.c.missed_runs, t.c.source_url, *values).where(
            t.c.source == self.source, t.c.valid_to.is_(None)
        )
        found = {}
        for r in self.session.connection().execute(stmt):
            row = r._mapping
            found[r.offer_id] = TrackedOffer(
                r.id,
                r.offer_id,
                r.value_hash,
                r.missed_runs,
                r.source_url,
                {c: stored_text(row[c]) for c in VALUE_COLUMNS},
            )
        return found

    def apply_offers(
        self, *, observed: datetime, inserts: Sequence[Offer], closes: Sequence[int], misses: dict[int, int]
    ) -> None:
        """Ends the `closes` ids at `observed`, opens a row per insert from
        then, and stores the miss counts."""
        t, conn = OfferPoint.__table__, self.session.connection()
        if closes:
            stmt = sa.update(t).where(t.c.id == sa.bindparam("oid")).values(valid_to=observed)
            conn.execute(stmt, [{"oid": i} for i in closes])
        if inserts:
            rows = [offer_to_row(o, source=self.source, run_id=self.run_id, valid_from=observed) for o in inserts]
            conn.execute(sa.insert(t), rows)
        if misses:
            stmt = sa.update(t).where(t.c.id == sa.bindparam("oid")).values(missed_runs=sa.bindparam("n"))
            conn.execute(stmt, [{"oid": i, "n": n} for i, n in misses.items()])
        self.rows_written += len(inserts)

    # --- the end of the run -------------------------------------------------

    def finish(
        self,
        *,
        now: datetime,
        changes: Sequence[Change],
        observed_at: datetime,
        pages: int,
        items: int,
        regions: Sequence[str],
        capture_path: str | None,
    ) -> None:
        """The run is ok: its row says what it saw, its changes are stored."""
        run = self._run()
        run.status, run.finished_at, run.observed_at = RunStatus.ok, now, observed_at
        run.pages, run.items, run.rows_written = pages, items, self.rows_written
        run.changes, run.capture_path, run.regions = len(changes), capture_path, ",".join(regions)
        self.session.add(run)
        add_changes(session=self.session, run_id=self.run_id, changes=changes)
        # The rates per instance type of what moved, in the run's transaction.
        after_run(session_db(self.session), self.moved_types)

    def fail(self, status: RunStatus, reason: str, *, now: datetime, changes: Sequence[Change]) -> None:
        """The run ends without moving the snapshot."""
        run = self._run()
        run.status, run.error, run.finished_at, run.changes = status, reason, now, len(changes)
        self.session.add(run)
        add_changes(session=self.session, run_id=self.run_id, changes=changes)

    def _run(self) -> CrawlRun:
        run = self.session.get(CrawlRun, self.run_id)
        assert run is not None
        return run


def take_statement(session: Session, source: str, keys: Sequence[str], valid_to: datetime) -> sa.Update:
    """Closes the open rows of `keys` in `source`, returning what the diff needs of them."""
    t = PricePoint.__table__
    postgres = session.connection().dialect.name == "postgresql"
    # On SQLite `source || ''` keeps the planner on the key index (see `RunStore.tracked`).
    of_source = (t.c.source if postgres else t.c.source + "") == source
    return (
        sa.update(t)
        .where(_among(postgres, t.c.key, keys), of_source, t.c.valid_to.is_(None))
        .values(valid_to=valid_to)
        .returning(*tracked_columns(t))
    )


def tracked_columns(t: sa.Table) -> tuple[sa.Column[Any], ...]:
    """What the diff needs of an open row, in `tracked_price`'s order."""
    c = t.c
    return (c.key, c.id, c.value_hash, c.price, c.availability, c.missed_runs, c.median_price, c.offer_count)


def tracked_price(row: Any) -> TrackedPrice:
    """A row of `tracked_columns` (the key first) as the diff holds it."""
    _, pid, value_hash, price, availability, missed, median, offers = row[:8]
    return TrackedPrice(
        pid, value_hash, Decimal(price), availability, missed, None if median is None else Decimal(median), offers
    )


def _among(postgres: bool, column: sa.Column[Any], values: Sequence[Any]) -> sa.ColumnElement[bool]:
    """`column IN values`; on PostgreSQL as `= ANY(array)`, one parameter
    rather than thousands to bind and plan."""
    if postgres:
        return column == sa.any_(sa.bindparam("among", list(values), type_=ARRAY(column.type)))
    return column.in_(list(values))
