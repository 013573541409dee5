"""The writes of the store that are not one run's own (those go through
`db.store.writes.run_store.RunStore`): runs left 'running' by a process that
no longer exists marked aborted, and changes written in bulk (a run's, and the
daemon's own, such as source_stale).

Every function takes a keyword-only `session` and never commits: the caller
owns the transaction, one per crawl or command.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlmodel import Session, select

from db.bulk.writer import bulk_time, copy_types
from db.schema import Change, RunStatus
from db.store.process import pid_alive
from db.store.reads.rows import CHANGE_DECIMALS
from db.tables import ChangeRow, CrawlRun


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else format(value, "f")


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
