"""One DB-API connection and its dialect: how every read of the store runs
its SQL, whether the connection came from `db.store.reads.reader` (sqlite3 or
psycopg, without SQLAlchemy) or from an engine or ORM session.

The queries themselves are written once, in `db.store.reads.rows` (rows) and
`db.store.reads.rankings` (aggregates), with `?` placeholders; PostgreSQL's
driver is handed `%s`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    import sqlalchemy as sa

# Rows fetched at a time by `Db.stream`: a large answer never sits in memory whole.
BATCH = 2000
# KB of SQLite page cache while an aggregate scans the store (`Db.scanning`).
SCAN_CACHE_KB = 8192
# MB a PostgreSQL sort or grouping of an aggregate may hold in memory (`Db.scanning`).
WORK_MEM_MB = 64


class Db:
    """A DB-API connection to the store, and the dialect its SQL is written in."""

    def __init__(self, conn: Any, dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return list(self.stream(sql, params))

    def stream(self, sql: str, params: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
        """The rows as dicts, fetched in batches."""
        cur = self.conn.cursor()
        try:
            cur.execute(self._sql(sql), tuple(params))
            names = [d[0] for d in cur.description]
            while batch := cur.fetchmany(BATCH):
                for row in batch:
                    yield dict(zip(names, row))
        finally:
            cur.close()

    def tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cur = self.conn.cursor()
        try:
            cur.execute(self._sql(sql), tuple(params))
            return list(cur.fetchall())
        finally:
            cur.close()

    def execute(self, sql: str, params: Sequence[Any] = (), *, many: Sequence[Sequence[Any]] | None = None) -> None:
        """A statement that returns no rows (`many`: once per row of parameters)."""
        cur = self.conn.cursor()
        try:
            if many is not None:
                cur.executemany(self._sql(sql), [tuple(p) for p in many])
            else:
                cur.execute(self._sql(sql), tuple(params))
        finally:
            cur.close()

    @contextmanager
    def scanning(self, cache_kb: int = SCAN_CACHE_KB) -> Iterator[Db]:
        """For aggregates over the whole store: on SQLite a small page cache
        while they run (a scan reads each page once, and SQLite's sorter
        keeps as much in memory as the cache may hold), the store's own after;
        on PostgreSQL room to sort and group in memory for the rest of the
        transaction (the server's default, 4 MB, spills a grouping of a
        tenth of a million prices to disk), and no JIT compilation: the
        hourly rate's long CASE made the server compile 63 functions for
        1.7 s before a scan that then took 0.2 s (`tco` at a million prices,
        issue 41)."""
        if self.dialect != "sqlite":
            self.execute(f"SET LOCAL work_mem = '{int(WORK_MEM_MB)}MB'")
            self.execute("SET LOCAL jit = off")
            yield self
            return
        (before,) = self.tuples("PRAGMA cache_size")[0]
        self.execute(f"PRAGMA cache_size=-{int(cache_kb)}")
        try:
            yield self
        finally:
            self.execute(f"PRAGMA cache_size={int(before)}")

    def temp_tables(self) -> bool:
        """Whether this connection may make temporary tables: not in a
        read-only transaction (a PostgreSQL hot standby, a role whose
        transactions default to read-only), not without the TEMP privilege,
        not on an SQLite store opened query-only. The answers that rank in a
        temporary table read otherwise without one."""
        if self.dialect == "sqlite":
            return not self.tuples("PRAGMA query_only")[0][0]
        sql = "SELECT current_setting('transaction_read_only') = 'off' AND has_database_privilege(current_database(), 'TEMP')"
        return bool(self.tuples(sql)[0][0])

    def time(self, value: datetime) -> datetime | str:
        """A time as a parameter compared with stored times."""
        return sqlite_time(value) if self.dialect == "sqlite" else value

    def number(self, column: str) -> str:
        """A text column holding an exact number, as a float for ranking (never for a shown figure)."""
        kind = "REAL" if self.dialect == "sqlite" else "double precision"
        return f"CAST(NULLIF({column}, '') AS {kind})"

    def whole_number(self, column: str, suffix: str) -> str:
        """The digits before `suffix` in a text column ('3yr' -> 3), NULL unless all digits."""
        if self.dialect == "sqlite":
            test = f"{column} GLOB '[0-9]*{suffix}' AND substr({column}, 1, length({column}) - {len(suffix)}) NOT GLOB '*[^0-9]*'"
            return f"CASE WHEN {test} THEN CAST(substr({column}, 1, length({column}) - {len(suffix)}) AS INTEGER) END"
        test = f"{column} ~ '^[0-9]+{suffix}$'"
        return f"CASE WHEN {test} THEN CAST(substr({column}, 1, length({column}) - {len(suffix)}) AS integer) END"


@contextmanager
def engine_db(engine: sa.Engine) -> Iterator[Db]:
    """The engine's DB-API connection, for the length of a read."""
    raw = engine.raw_connection()
    try:
        yield Db(raw.driver_connection, engine.dialect.name)
    finally:
        raw.rollback()
        raw.close()


@contextmanager
def open_db(store: Db | sa.Engine) -> Iterator[Db]:
    """`store` itself when it is a connection already (`db.store.reads.reader`'s:
    no SQLAlchemy loaded), else its engine's connection for the length of a read."""
    if isinstance(store, Db):
        yield store
        return
    with engine_db(store) as db:
        yield db


def session_db(session: Any) -> Db:
    """The DB-API connection under an ORM session's transaction (not to be closed)."""
    conn = session.connection()
    return Db(conn.connection.driver_connection, conn.dialect.name)


# SQLAlchemy 2.0's SQLite DATETIME is text written as
# "%(year)04d-%(month)02d-%(day)02d %(hour)02d:%(minute)02d:%(second)02d.%(microsecond)06d"
# and read with datetime.fromisoformat() (the dialect's documentation of
# sqlalchemy.dialects.sqlite.DATETIME; engine/_processors_cy.py str_to_datetime).
@overload
def utc_time(value: datetime | str) -> datetime: ...
@overload
def utc_time(value: None) -> None: ...
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
