"""Reading the store through an ORM session, and the writes that are not
one run's. The reads of prices, changes and runs are those of
`db.store.reads.rows` (the one definition of each query, shared with
`db.store.reads.reader`), run on the session's connection; their rows come back
as `Stored` rows, read like the ORM's (exact numbers as the stored text).
One run's own writes go through `db.store.writes.run_store.RunStore`.

Every function takes a keyword-only `session` and never commits: the caller
owns the transaction, one per crawl or command.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from db.bulk.encoding import DECIMAL_FIELDS
from db.bulk.writer import bulk_time, copy_types
from db.schema import Change, RunStatus
from db.store.process import pid_alive
from db.store.reads import rows as answers
from db.store.reads.connection import session_db
from db.store.reads.rows import CHANGE_DECIMALS, ChangeFilter, PriceFilter
from db.tables import ChangeRow, CrawlRun, PricePoint


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else format(value, "f")


class Stored(dict[str, Any]):
    """A stored row as the query read it, its columns also as attributes
    (`row.price`, `row.model_dump()`), as the ORM's rows read."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def model_dump(self) -> dict[str, Any]:
        return dict(self)


def point_to_dict(point: PricePoint | Stored) -> dict[str, Any]:
    """A stored row as a flat dict with Decimals restored."""
    out = point.model_dump()
    for name in DECIMAL_FIELDS:
        out[name] = None if out[name] is None else Decimal(out[name])
    out["attrs"] = json.loads(point.attrs or "{}")
    return out


# --- crawl runs -----------------------------------------------------------


# Runs begun by this process, by id and start (a process may use several
# stores). A 'running' row under our pid that is not here is a previous
# process's: in a container the crawl gets the same pid every time, so the
# crawl after an OOM kill has the killed one's pid.
_OUR_RUNS: set[tuple[int | None, datetime]] = set()


def began_here(run: CrawlRun) -> None:
    _OUR_RUNS.add((run.id, run.started_at))


def _still_running(run: CrawlRun) -> bool:
    if run.pid is None:
        return False
    if run.pid == os.getpid():
        return (run.id, run.started_at) in _OUR_RUNS
    return pid_alive(run.pid)


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
        if _still_running(run):
            continue
        run.status = RunStatus.aborted
        run.finished_at = now
        run.error = "interrupted: the process running it stopped before it finished"
        session.add(run)
        aborted.append(run)
    return aborted


def last_run(*, session: Session, source: str, statuses: Iterable[str] | None = None) -> CrawlRun | None:
    """The newest finished run; runs still going and refused inputs do not count."""
    stmt = select(CrawlRun).where(CrawlRun.source == source)
    if statuses is not None:
        stmt = stmt.where(col(CrawlRun.status).in_(list(statuses)))
    stmt = stmt.where(col(CrawlRun.status).not_in([RunStatus.running, RunStatus.rejected]))
    return session.exec(stmt.order_by(col(CrawlRun.id).desc()).limit(1)).first()


def list_runs(*, session: Session, limit: int = 20, source: str | None = None) -> list[Stored]:
    return [Stored(r) for r in answers.runs(session_db(session), limit=limit, source=source)]


# --- price snapshots ------------------------------------------------------


def count_open_prices(*, session: Session, source: str) -> int:
    t = PricePoint.__table__
    stmt = sa.select(sa.func.count()).where(t.c.source == source, t.c.valid_to.is_(None))
    return int(session.connection().execute(stmt).scalar_one())


def query_prices(
    *,
    session: Session,
    provider: str | None = None,
    region: str | None = None,
    gpu: str | None = None,
    price_model: str | None = None,
    instance_type: str | None = None,
    current: bool = True,
) -> list[Stored]:
    """`db.store.reads.rows.prices`, with the exact numbers and attrs as stored (text)."""
    where = PriceFilter(
        provider=provider, region=region, gpu=gpu, price_model=price_model, instance_type=instance_type, current=current
    )
    return [Stored(row) for row in answers.prices(session_db(session), where, as_stored=True)]


# --- changes --------------------------------------------------------------


_CHANGE_COLUMNS = tuple(name for name in Change.model_fields if name != "detail")
_CHANGE_DECIMALS = frozenset(CHANGE_DECIMALS)
_KIND, _OBSERVED = _CHANGE_COLUMNS.index("kind"), _CHANGE_COLUMNS.index("observed_at")


def add_changes(*, session: Session, run_id: int | None, changes: Sequence[Change]) -> None:
    """Below the ORM, as a bulk write: a run of a million prices may change
    tens of thousands."""
    if not changes:
        return
    conn = session.connection()
    times: dict[datetime, Any] = {}
    rows = []
    for change in changes:
        values = change.__dict__
        row = [_dec(values[name]) if name in _CHANGE_DECIMALS else values[name] for name in _CHANGE_COLUMNS]
        row[_KIND] = str(change.kind)
        at = change.observed_at
        row[_OBSERVED] = times[at] if at in times else times.setdefault(at, bulk_time(session, at))
        detail = json.dumps(change.detail, sort_keys=True, ensure_ascii=False) if change.detail else "{}"
        rows.append((*row, detail, run_id))
    names = (*_CHANGE_COLUMNS, "detail", "run_id")
    columns = ", ".join(names)
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        if conn.dialect.name == "postgresql":
            with cursor.copy(f"COPY changes ({columns}) FROM STDIN") as copy:
                copy.set_types(copy_types(ChangeRow.__table__, names))
                for line in rows:
                    copy.write_row(line)
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
) -> list[Stored]:
    found = answers.changes(session_db(session), ChangeFilter(since=since, provider=provider, kinds=kinds), limit=limit)
    return [Stored(row) for row in found]


def open_regions(*, session: Session, source: str) -> list[str]:
    """The regions a source's current snapshot covers."""
    t = PricePoint.__table__
    stmt = sa.select(t.c.region).where(t.c.source == source, t.c.valid_to.is_(None)).distinct()
    return sorted(r for (r,) in session.connection().execute(stmt))
