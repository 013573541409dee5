"""Maps the value types to tables.

Every function takes a keyword-only `session` and never commits: the caller
owns the transaction, one per crawl or command. The ingest path uses Core
statements with executemany, since ORM objects per row cost ten times more.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import partial
from itertools import chain
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import Session, col, select

from db.schema import DECIMAL_FIELDS, STORED_FIELDS, Change, PriceQuote, RunStatus
from db.tables import ChangeRow, CrawlRun, PricePoint


@dataclass(frozen=True, slots=True)
class TrackedPrice:
    """The part of an open price row that the diff needs."""

    id: int
    value_hash: str
    price: Decimal
    availability: str | None
    missed_runs: int


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else format(value, "f")


def quote_to_row(quote: PriceQuote, *, source: str, run_id: int, valid_from: datetime) -> dict[str, Any]:
    # Attribute reads, not model_dump(): this runs once per stored row.
    row = {name: getattr(quote, name) for name in STORED_FIELDS}
    for name in DECIMAL_FIELDS:
        row[name] = _dec(row[name])
    row["price_model"] = str(quote.price_model)
    row["unit"] = str(quote.unit)
    row.update(
        key=quote.key,
        value_hash=quote.value_hash,
        source=source,
        attrs=json.dumps(quote.attrs, sort_keys=True, ensure_ascii=False),
        valid_from=valid_from,
        valid_to=None,
        first_run_id=run_id,
        missed_runs=0,
    )
    return row


def point_to_dict(point: PricePoint) -> dict[str, Any]:
    """A stored row as a flat dict with Decimals restored."""
    out = point.model_dump()
    for name in DECIMAL_FIELDS:
        out[name] = None if out[name] is None else Decimal(out[name])
    out["attrs"] = json.loads(point.attrs or "{}")
    return out


# --- crawl runs -----------------------------------------------------------


def start_run(
    *,
    session: Session,
    source: str,
    provider: str,
    spider: str,
    mode: str,
    regions: Sequence[str],
    started_at: datetime,
) -> CrawlRun:
    run = CrawlRun(
        source=source,
        provider=provider,
        spider=spider,
        mode=mode,
        regions=",".join(regions),
        started_at=started_at,
        status=RunStatus.running,
        pid=os.getpid(),
    )
    session.add(run)
    session.flush()
    return run


def abort_interrupted_runs(*, session: Session, now: datetime, source: str | None = None) -> list[CrawlRun]:
    """Runs left 'running' by a process that no longer exists were killed.
    With `source`, only that source's runs: its caller holds the source's crawl
    lock, and a run on another machine must not be judged by a local pid."""
    stmt = select(CrawlRun).where(CrawlRun.status == RunStatus.running)
    if source is not None:
        stmt = stmt.where(CrawlRun.source == source)
    stale = session.exec(stmt).all()
    aborted = []
    for run in stale:
        if run.pid is not None and _pid_alive(run.pid):
            continue
        run.status = RunStatus.aborted
        run.finished_at = now
        run.error = "interrupted: the process running it stopped before it finished"
        session.add(run)
        aborted.append(run)
    return aborted


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def last_run(*, session: Session, source: str, statuses: Iterable[str] | None = None) -> CrawlRun | None:
    """The newest finished run; runs still going and refused inputs do not count."""
    stmt = select(CrawlRun).where(CrawlRun.source == source)
    if statuses is not None:
        stmt = stmt.where(col(CrawlRun.status).in_(list(statuses)))
    stmt = stmt.where(col(CrawlRun.status).not_in([RunStatus.running, RunStatus.rejected]))
    return session.exec(stmt.order_by(col(CrawlRun.id).desc()).limit(1)).first()


def list_runs(*, session: Session, limit: int = 20, source: str | None = None) -> list[CrawlRun]:
    stmt = select(CrawlRun)
    if source:
        stmt = stmt.where(CrawlRun.source == source)
    return list(session.exec(stmt.order_by(col(CrawlRun.id).desc()).limit(limit)).all())


# --- price snapshots ------------------------------------------------------


def count_open_prices(*, session: Session, source: str) -> int:
    t = PricePoint.__table__
    stmt = sa.select(sa.func.count()).where(t.c.source == source, t.c.valid_to.is_(None))
    return int(session.connection().execute(stmt).scalar_one())


def insert_prices(*, session: Session, rows: Sequence[dict[str, Any]]) -> None:
    if rows:
        session.connection().execute(sa.insert(PricePoint.__table__), list(rows))


def refresh_statistics(*, session: Session) -> None:
    """After a bulk write on PostgreSQL: until autovacuum gets to it, the
    planner believes the table is as small as before and scans a million
    rows for each key lookup of the next run. (SQLite plans by its indexes
    and would scan the whole table to ANALYZE it.)"""
    conn = session.connection()
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("ANALYZE price_points")


@dataclass
class OpenSnapshot:
    """A source's current snapshot as the bulk diff holds it, keys and
    hashes as ints (half the memory of their hex text): key -> value hash
    (all it keeps per row), the keys of the rows that count misses, and, for
    rows that came from an import, the hash of their file row -> key."""

    fingerprints: dict[int, int]
    missed: list[str]
    inputs: dict[int, int]


def open_fingerprints(*, session: Session, source: str, regions: Sequence[str] | None = None) -> OpenSnapshot:
    """The source's open rows, in one pass."""
    t = PricePoint.__table__
    condition = sa.and_(t.c.source == source, t.c.valid_to.is_(None))
    if regions:
        condition = sa.and_(condition, t.c.region.in_(list(regions)))
    stmt = sa.select(t.c.key, t.c.value_hash, t.c.missed_runs, t.c.input_hash)
    if session.connection().dialect.name == "sqlite":
        # Row by row off the index, SQLite reads the table in the index's
        # order, all over the file; given the ids first, it reads it in
        # order (EXPLAIN QUERY PLAN: LIST SUBQUERY; twice as fast at a million).
        stmt = stmt.where(t.c.id.in_(sa.select(t.c.id).where(condition)))
    else:
        stmt = stmt.where(condition)
    snapshot = OpenSnapshot({}, [], {})
    fingerprints, inputs = snapshot.fingerprints, snapshot.inputs
    result = session.connection().execute(stmt)
    # The driver's own rows, in batches: a result Row a row costs as much as the read.
    for key, value_hash, misses, input_hash in chain.from_iterable(iter(partial(result.cursor.fetchmany, 10_000), [])):
        compact_key = int(key, 16)
        fingerprints[compact_key] = int(value_hash, 16)
        if misses:
            snapshot.missed.append(key)
        if input_hash is not None:
            inputs[int(input_hash, 16)] = compact_key
    result.close()
    return snapshot


def _tracked(session: Session, source: str, condition: sa.ColumnElement[bool]) -> dict[str, TrackedPrice]:
    t = PricePoint.__table__
    stmt = sa.select(t.c.key, t.c.id, t.c.value_hash, t.c.price, t.c.availability, t.c.missed_runs, t.c.source).where(
        t.c.valid_to.is_(None), condition
    )
    return {
        r.key: TrackedPrice(r.id, r.value_hash, Decimal(r.price), r.availability, r.missed_runs)
        for r in session.connection().execute(stmt)
        if r.source == source
    }


def open_tracked(*, session: Session, source: str, keys: Sequence[str]) -> dict[str, TrackedPrice]:
    """The open rows of these keys, in full. The source is checked here, not
    in SQL: given it, SQLite's planner walks the (source, region) index
    instead of the key index, a thousand times slower (EXPLAIN QUERY PLAN)."""
    found: dict[str, TrackedPrice] = {}
    column = PricePoint.__table__.c.key
    for start in range(0, len(keys), IN_LIST):
        found.update(_tracked(session, source, _among(session, column, keys[start : start + IN_LIST])))
    return found


def _among(session: Session, column: sa.Column[Any], values: Sequence[Any]) -> sa.ColumnElement[bool]:
    """`column IN values`; on PostgreSQL as `= ANY(array)`, one parameter
    rather than thousands to bind and plan."""
    if session.connection().dialect.name == "postgresql":
        return column == sa.any_(sa.bindparam("among", list(values), type_=ARRAY(column.type)))
    return column.in_(list(values))


def take_open(keys: Sequence[str], *, session: Session, source: str, valid_to: datetime) -> dict[str, TrackedPrice]:
    """`open_tracked`, and those rows closed at `valid_to`, in one statement
    (UPDATE ... RETURNING) rather than a read and a write."""
    taken: dict[str, TrackedPrice] = {}
    for start in range(0, len(keys), IN_LIST):
        stmt = take_statement(session, source, keys[start : start + IN_LIST], valid_to)
        taken.update(
            (key, TrackedPrice(pid, value_hash, Decimal(price), availability, missed))
            for key, pid, value_hash, price, availability, missed in session.connection().execute(stmt)
        )
    return taken


def take_statement(session: Session, source: str, keys: Sequence[str], valid_to: datetime) -> sa.Update:
    t = PricePoint.__table__
    # On SQLite `source || ''` keeps the planner on the key index (see `open_tracked`).
    of_source = (t.c.source + "" if session.connection().dialect.name == "sqlite" else t.c.source) == source
    return (
        sa.update(t)
        .where(_among(session, t.c.key, keys), of_source, t.c.valid_to.is_(None))
        .values(valid_to=valid_to)
        .returning(t.c.key, t.c.id, t.c.value_hash, t.c.price, t.c.availability, t.c.missed_runs)
    )


# Values in one IN list: one statement does the work of thousands of
# one-row ones (SQLite allows 32,766 variables a statement).
IN_LIST = 5_000


def close_prices(*, session: Session, ids: Sequence[int], valid_to: datetime) -> None:
    t = PricePoint.__table__
    ordered = sorted(ids)  # the table's order: its pages are read and written once, in turn
    for start in range(0, len(ordered), IN_LIST):
        stmt = sa.update(t).where(_among(session, t.c.id, ordered[start : start + IN_LIST])).values(valid_to=valid_to)
        session.connection().execute(stmt)


def set_missed_runs(*, session: Session, missed: dict[int, int]) -> None:
    if not missed:
        return
    t = PricePoint.__table__
    stmt = sa.update(t).where(t.c.id == sa.bindparam("pid")).values(missed_runs=sa.bindparam("n"))
    session.connection().execute(stmt, [{"pid": i, "n": n} for i, n in missed.items()])


def set_input_hashes(*, session: Session, hashes: dict[int, str]) -> None:
    """Rows found unchanged under another file row remember the new one."""
    if not hashes:
        return
    t = PricePoint.__table__
    stmt = sa.update(t).where(t.c.id == sa.bindparam("pid")).values(input_hash=sa.bindparam("h"))
    session.connection().execute(stmt, [{"pid": i, "h": h} for i, h in hashes.items()])


def load_points(*, session: Session, ids: Sequence[int]) -> list[PricePoint]:
    found: list[PricePoint] = []
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        found.extend(session.exec(select(PricePoint).where(col(PricePoint.id).in_(chunk))).all())
    return found


def query_prices(
    *,
    session: Session,
    provider: str | None = None,
    region: str | None = None,
    gpu: str | None = None,
    price_model: str | None = None,
    instance_type: str | None = None,
    current: bool = True,
) -> list[PricePoint]:
    stmt = select(PricePoint)
    if current:
        stmt = stmt.where(col(PricePoint.valid_to).is_(None))
    if provider:
        stmt = stmt.where(PricePoint.provider == provider)
    if region:
        stmt = stmt.where(PricePoint.region == region)
    if gpu:
        stmt = stmt.where(sa.func.lower(PricePoint.gpu_model).contains(gpu.lower()))
    if price_model:
        stmt = stmt.where(PricePoint.price_model == price_model)
    if instance_type:
        stmt = stmt.where(PricePoint.instance_type == instance_type)
    stmt = stmt.order_by(
        PricePoint.provider,
        PricePoint.region,
        PricePoint.instance_type,
        PricePoint.price_model,
        PricePoint.term,
        PricePoint.os,
        PricePoint.valid_from,
    )
    return list(session.exec(stmt).all())


# --- changes --------------------------------------------------------------


_CHANGE_COLUMNS = tuple(name for name in Change.model_fields if name != "detail")
_CHANGE_DECIMALS = frozenset({"gpu_count", "old_price", "new_price", "percent"})
_KIND, _OBSERVED = _CHANGE_COLUMNS.index("kind"), _CHANGE_COLUMNS.index("observed_at")


def add_changes(*, session: Session, run_id: int | None, changes: Sequence[Change]) -> None:
    """Below the ORM, as a bulk write: a run of a million prices may change
    tens of thousands."""
    if not changes:
        return
    conn = session.connection()
    bind_time = ChangeRow.__table__.c.observed_at.type.bind_processor(conn.dialect) or (lambda value: value)
    times: dict[datetime, Any] = {}
    rows = []
    for change in changes:
        values = change.__dict__
        row = [_dec(values[name]) if name in _CHANGE_DECIMALS else values[name] for name in _CHANGE_COLUMNS]
        row[_KIND] = str(change.kind)
        at = change.observed_at
        row[_OBSERVED] = times[at] if at in times else times.setdefault(at, bind_time(at))
        detail = json.dumps(change.detail, sort_keys=True, ensure_ascii=False) if change.detail else "{}"
        rows.append((*row, detail, run_id))
    columns = ", ".join((*_CHANGE_COLUMNS, "detail", "run_id"))
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        if conn.dialect.name == "postgresql":
            with cursor.copy(f"COPY changes ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            cursor.executemany(f"INSERT INTO changes ({columns}) VALUES ({', '.join('?' * len(rows[0]))})", rows)
    finally:
        cursor.close()


def query_changes(
    *,
    session: Session,
    since: datetime | None = None,
    provider: str | None = None,
    kinds: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[ChangeRow]:
    stmt = select(ChangeRow)
    if since:
        stmt = stmt.where(ChangeRow.observed_at >= since)
    if provider:
        stmt = stmt.where(ChangeRow.provider == provider)
    if kinds:
        stmt = stmt.where(col(ChangeRow.kind).in_(list(kinds)))
    stmt = stmt.order_by(col(ChangeRow.observed_at), col(ChangeRow.id))
    if limit:
        stmt = stmt.limit(limit)
    return list(session.exec(stmt).all())


def open_regions(*, session: Session, source: str) -> list[str]:
    """The regions a source's current snapshot covers."""
    t = PricePoint.__table__
    stmt = sa.select(t.c.region).where(t.c.source == source, t.c.valid_to.is_(None)).distinct()
    return sorted(r for (r,) in session.connection().execute(stmt))
