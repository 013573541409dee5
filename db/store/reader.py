"""Reading the store without the ORM, for the command line's simple queries
(`prices`, `runs`, `changes`): loading SQLAlchemy and SQLModel takes several
times as long as Python and Typer take to start (docs/performance-startup.md).

The DB-API driver itself (sqlite3; psycopg for `postgresql+psycopg://`)
runs the same SQL the ORM would, and rows come back as the ORM reads them:
exact numbers (stored as text) as Decimals, times time-zone aware in UTC,
attrs as a dict. `tests/cli/test_fast_reads.py` holds the two paths to the
same output on SQLite and PostgreSQL.

It only reads a store that is ready. `open_reader` answers None when the
store does not exist yet, is behind the migrations, has a run to settle
(left 'running' by a killed process), or has a URL it does not handle: the
caller then opens it through `db.store.engine`, which creates, migrates or settles
it as before.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from types import TracebackType
from typing import Any, overload
from urllib.parse import quote

from db.store.heads import script_heads

# The text columns that hold exact numbers, by table.
PRICE_DECIMALS = (
    "gpu_count",
    "gpu_memory_gb",
    "vcpu",
    "memory_gb",
    "network_gbps",
    "price",
    "list_price",
    "upfront_fee",
    "median_price",
)
CHANGE_DECIMALS = ("gpu_count", "old_price", "new_price", "percent")
# The time columns, by table: SQLite hands them back as text.
_PRICE_TIMES = ("valid_from", "valid_to")
_RUN_TIMES = ("started_at", "finished_at", "observed_at")
_CHANGE_TIMES = ("observed_at",)
# The order of `db.store.queries.query_prices`: the same SQL, so the same rows in the same order.
_PRICE_ORDER = "provider, region, instance_type, price_model, term, os, valid_from"


class Unreachable(Exception):
    """The store's server does not answer; the message says why, as `db.store.engine` words it."""


# SQLAlchemy 2.0's SQLite DATETIME is text written as
# "%(year)04d-%(month)02d-%(day)02d %(hour)02d:%(minute)02d:%(second)02d.%(microsecond)06d"
# and read with datetime.fromisoformat() (the dialect's documentation of
# sqlalchemy.dialects.sqlite.DATETIME; engine/_processors_cy.py str_to_datetime).
@overload
def utc_time(value: datetime | str) -> datetime: ...
@overload
def utc_time(value: datetime | str | None) -> datetime | None: ...
def utc_time(value: datetime | str | None) -> datetime | None:
    """A stored time as `db.tables.UTCDateTime` reads it: SQLite's text by
    `datetime.fromisoformat` (as SQLAlchemy parses it), then aware in UTC."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def sqlite_time(value: datetime) -> str:
    """A time bound as SQLAlchemy's SQLite dialect writes it (naive UTC, six
    decimals), so that text comparisons in SQL agree with the ORM's."""
    return value.astimezone(UTC).replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")


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
    try:
        ready = reader.is_current()
    except psycopg.Error:
        ready = False
    if not ready:
        reader.close()
        return None
    return reader


class Reader:
    """One DB-API connection to a current store, and the queries the simple
    commands ask. The filters mean what `db.store.queries`'s do."""

    def __init__(self, conn: Any, dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect

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
        if self.dialect == "postgresql":
            sql = sql.replace("?", "%s")
        cur = self.conn.cursor()
        try:
            cur.execute(sql, tuple(params))
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]
        finally:
            cur.close()

    def _time(self, value: datetime) -> datetime | str:
        return sqlite_time(value) if self.dialect == "sqlite" else value

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
        path marks it aborted at start (`db.store.queries.abort_interrupted_runs`)."""
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
        """The current prices as `db.store.queries.point_to_dict` gives them, in `query_prices`' order."""
        where, params = ["valid_to IS NULL"], []
        for column, value in (("provider", provider), ("region", region)):
            if value:
                where.append(f"{column} = ?")
                params.append(value)
        if gpu:
            where.append("lower(gpu_model) LIKE ?")
            params.append(f"%{gpu.lower()}%")
        for column, value in (("price_model", price_model), ("instance_type", instance_type)):
            if value:
                where.append(f"{column} = ?")
                params.append(value)
        sql = f"SELECT * FROM price_points WHERE {' AND '.join(where)} ORDER BY {_PRICE_ORDER}"
        rows = self._rows(sql, params)
        for row in rows:
            _restore(row, PRICE_DECIMALS, _PRICE_TIMES)
            row["attrs"] = json.loads(row["attrs"] or "{}")
        return rows

    def runs(self, *, limit: int = 20, source: str | None = None) -> list[dict[str, Any]]:
        """The newest runs first, as `db.store.queries.list_runs` gives them."""
        where, params = ("WHERE source = ? ", [source]) if source else ("", [])
        rows = self._rows(f"SELECT * FROM crawl_runs {where}ORDER BY id DESC LIMIT ?", [*params, limit])
        for row in rows:
            _restore(row, (), _RUN_TIMES)
        return rows

    def changes(
        self,
        *,
        since: datetime | None = None,
        provider: str | None = None,
        kinds: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Changes oldest first, as `db.store.queries.query_changes` gives them (exact numbers still text)."""
        where: list[str] = []
        params: list[Any] = []
        if since:
            where.append("observed_at >= ?")
            params.append(self._time(since))
        if provider:
            where.append("provider = ?")
            params.append(provider)
        if kinds:
            where.append(f"kind IN ({', '.join('?' * len(kinds))})")
            params.extend(kinds)
        sql = "SELECT * FROM changes" + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY observed_at, id"
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        rows = self._rows(sql, params)
        for row in rows:
            _restore(row, (), _CHANGE_TIMES)
        return rows


def _restore(row: dict[str, Any], decimals: Sequence[str], times: Sequence[str]) -> None:
    for name in decimals:
        if row[name] is not None:
            row[name] = Decimal(row[name])
    for name in times:
        row[name] = utc_time(row[name])
