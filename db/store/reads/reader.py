"""Reading the store without the ORM, for the command line's simple queries
(`prices`, `runs`, `changes`): loading SQLAlchemy and SQLModel takes several
times as long as Python and Typer take to start (docs/performance-startup.md).

The DB-API driver itself (sqlite3; psycopg for `postgresql+psycopg://`)
runs the reads of `db.store.reads.rows`, the one definition of each, which
`db.store.reads.session` runs on an ORM session too: rows come back as the ORM
reads them, exact numbers (stored as text) as Decimals, times time-zone
aware in UTC, attrs as a dict. `tests/cli/test_fast_reads.py` holds the
two paths to the same output on SQLite and PostgreSQL; `compare` and `tco`
rank on this connection too (`db.store.reads.connection.open_db`).

It only reads a store that is ready. `open_reader` answers None when the
store does not exist yet, is behind the migrations, has a run to settle
(left 'running' by a killed process), or has a URL it does not handle: the
caller then opens it through `db.store.engine`, which creates, migrates or settles
it as before.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote

from db.store.heads import script_heads
from db.store.reads import rows as answers
from db.store.reads.connection import Db
from db.store.reads.connection import sqlite_time as sqlite_time
from db.store.reads.connection import utc_time as utc_time
from db.store.reads.rows import CHANGE_DECIMALS as CHANGE_DECIMALS
from db.store.reads.rows import PRICE_DECIMALS as PRICE_DECIMALS
from db.store.reads.rows import ChangeFilter, PriceFilter

T = TypeVar("T")


class Unreachable(Exception):
    """The store's server does not answer; the message says why, as `db.store.engine` words it."""


def open_reader(url: str) -> Reader | None:
    """The store at `url`, open for reading, when it is there and current;
    None when the ORM path must open it. Raises Unreachable when a
    PostgreSQL server does not answer."""
    if url.startswith("sqlite:///"):
        return _open_sqlite(url.removeprefix("sqlite:///"))
    if url.startswith("postgresql+psycopg://"):
        return _open_postgresql(url)
    return None


def _open_sqlite(path: str) -> Reader | None:
    import sqlite3

    # Query strings and %-escapes are SQLAlchemy's to interpret.
    if not path or "?" in path or "%" in path or not Path(path).is_file():
        return None
    try:
        if os.access(path, os.W_OK):
            conn = sqlite3.connect(path, timeout=30)
        else:  # a read-only store: as `db.store.engine.sqlite_read_only` opens it
            folder_writable = os.access(os.path.dirname(os.path.abspath(path)), os.W_OK)
            immutable = "" if folder_writable or os.path.exists(path + "-shm") else "&immutable=1"
            conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro{immutable}", timeout=30, uri=True)
    except sqlite3.Error:
        return None
    reader = Reader(conn, "sqlite")
    try:
        ready = reader.is_current() and not reader.has_runs_to_settle()
    except sqlite3.Error:
        ready = False
    if not ready:
        reader.close()
        return None
    return reader


def _open_postgresql(url: str) -> Reader | None:
    import psycopg

    try:
        # The URL less its driver is a libpq connection URI (percent-encoded
        # parts, `?options=-csearch_path%3D...`: PostgreSQL's libpq manual,
        # "Connection URIs"); a query key libpq does not know is a
        # ProgrammingError, and the ORM path is left to interpret it.
        conn = psycopg.connect("postgresql://" + url.split("://", 1)[1])
    except psycopg.OperationalError as exc:
        # The engine module loads SQLAlchemy: only a server that does not answer pays for it.
        from db.store.engine import unreachable_message

        raise Unreachable(unreachable_message(url, exc)) from exc
    except psycopg.Error:
        return None
    reader = Reader(conn, "postgresql")
    reader.url = url
    try:
        ready = reader.is_current()
    except psycopg.Error:
        ready = False
    if not ready:
        reader.close()
        return None
    return reader


class Reader(Db):
    """One DB-API connection to a current store, and the queries the simple
    commands ask: those of `db.store.reads.rows`, as the analytics ask them."""

    # The store's URL, for a second connection (`ahead`): PostgreSQL's only.
    url: str | None = None

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        # Nothing was written: end the read transaction PostgreSQL opened.
        if self.dialect == "postgresql":
            self.conn.rollback()
        self.conn.close()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self.rows(sql, params)

    def is_current(self) -> bool:
        """Whether the store is at the newest migrations (False without a version table)."""
        if self.dialect == "sqlite":
            found = self._rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'")
        else:
            found = self._rows("SELECT to_regclass('alembic_version') AS name")
        if not found or found[0]["name"] is None:
            return False
        return {r["version_num"] for r in self._rows("SELECT version_num FROM alembic_version")} == script_heads()

    def has_runs_to_settle(self) -> bool:
        """A run left 'running' by a process that no longer exists: the ORM
        path marks it aborted at start (`db.store.writes.runs.abort_interrupted_runs`)."""
        from db.store.process import pid_alive

        running = self._rows("SELECT pid FROM crawl_runs WHERE status = 'running'")
        return any(r["pid"] is None or not pid_alive(r["pid"]) for r in running)

    def prices(
        self,
        *,
        provider: str | None = None,
        region: str | None = None,
        gpu: str | None = None,
        price_model: str | None = None,
        instance_type: str | None = None,
    ) -> list[dict[str, Any]]:
        """The current prices, as `db.store.reads.rows.prices` reads them."""
        where = PriceFilter(
            provider=provider, region=region, gpu=gpu, price_model=price_model, instance_type=instance_type
        )
        return list(answers.prices(self, where))

    def runs(self, *, limit: int = 20, source: str | None = None) -> list[dict[str, Any]]:
        """The newest runs first."""
        return answers.runs(self, limit=limit, source=source)

    def changes(
        self,
        *,
        since: datetime | None = None,
        provider: str | None = None,
        kinds: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Changes oldest first (exact numbers still text)."""
        return answers.changes(self, ChangeFilter(since=since, provider=provider, kinds=kinds), limit=limit)


def ahead(store: Any, work: Callable[[Db], T]) -> Callable[[], T]:
    """`work` run on the store, and the way to its result. On a PostgreSQL
    store read without the ORM it starts at once, on a connection of its own
    in a thread, so that the server works on it while the answer runs its
    own queries (the held prices' count and list, 0.4 to 0.8 s each at a
    million prices with 29,000 marks; issue 41); elsewhere, or when that
    connection fails, it runs on `store` when its result is asked for.
    Read-only work, in a transaction of its own (PostgreSQL's reads see what
    was committed when each statement starts, on any connection)."""
    from db.store.reads.connection import open_db

    def here() -> T:
        with open_db(store) as db:
            return work(db)

    if not isinstance(store, Reader) or store.url is None:
        return here
    found: list[T] = []
    thread = threading.Thread(target=_apart, args=(store.url, work, found), daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        return found[0] if found else here()

    return result


def _apart(url: str, work: Callable[[Db], T], found: list[T]) -> None:
    """`work` on a PostgreSQL connection of its own, into `found` (left empty when it fails)."""
    import psycopg

    try:
        with psycopg.connect("postgresql://" + url.split("://", 1)[1]) as conn:
            db = Db(conn, "postgresql")
            with db.scanning():
                found.append(work(db))
            conn.rollback()
    except psycopg.Error:
        return
