"""The bulk insert: row tuples from `db.bulk.encoding`, below the ORM, at the
driver's own speed (executemany on SQLite, COPY on PostgreSQL).

On PostgreSQL a second thread does the insert: the server does the work, in
its own process, while psycopg waits with the GIL released, so a chunk COPYed
from another thread overlaps the diff of the next chunk. SQLite's insert runs
in our process and needs the GIL to bind every row, so a second thread only
adds contention (measured: 3.3x the raw insert instead of 2.7x); there the
writer writes inline. One lock serializes every use of the session's
connection between the two threads.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache
from types import TracebackType
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlmodel import Session

from db.bulk.encoding import PRICE_COLUMNS
from db.tables import PricePoint

T = TypeVar("T")


def bulk_time(session: Session, when: datetime) -> object:
    """`when` as the column type would bind it, done once per run rather
    than once per row."""
    dialect = session.connection().dialect
    # Every time column is a UTCDateTime: any of them binds alike.
    process = PricePoint.__table__.c.valid_from.type.bind_processor(dialect)
    value = process(when) if process else when
    if isinstance(value, datetime):
        # As text: what sqlite3's default adapter would write for each row, and
        # what COPY reads for a timestamptz with no per-row dumper (twice as fast).
        value = value.isoformat(" ")
    return value


@cache
def copy_types(table: sa.Table, columns: tuple[str, ...]) -> list[str]:
    """The COPY type of each column as the bulk path spells its values: text
    (times and exact numbers included: the server parses them) but for the
    integers. Told up front, psycopg skips choosing a dumper per value, which
    halves its cost per row."""
    return ["int4" if isinstance(table.c[name].type, sa.Integer) else "text" for name in columns]


def insert_price_rows(*, session: Session, rows: Sequence[tuple[Any, ...]]) -> None:
    """Rows from `encoding.price_row`, in the session's transaction."""
    if not rows:
        return
    conn = session.connection()
    columns = ", ".join(PRICE_COLUMNS)
    if conn.dialect.name == "postgresql":
        with conn.connection.dbapi_connection.cursor() as cursor:  # type: ignore[union-attr]  # a checked-out connection has its DB-API one
            with cursor.copy(f"COPY price_points ({columns}) FROM STDIN") as copy:
                copy.set_types(copy_types(PricePoint.__table__, PRICE_COLUMNS))
                for row in rows:
                    copy.write_row(row)
        return
    marks = ", ".join("?" * len(PRICE_COLUMNS))
    conn.exec_driver_sql(f"INSERT INTO price_points ({columns}) VALUES ({marks})", list(rows))


class BulkWriter:
    def __init__(self, session: Session, *, depth: int = 2) -> None:
        self.session = session
        self.threaded = session.connection().dialect.name == "postgresql"
        self.lock = threading.Lock()
        self._queue: queue.Queue[Sequence[tuple[Any, ...]] | None] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="bulk-writer", daemon=True)

    def __enter__(self) -> BulkWriter:
        if self.threaded:
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.threaded:
            self._queue.put(None)
            self._thread.join()
        if kind is None:
            self._raise()

    def _run(self) -> None:
        while (rows := self._queue.get()) is not None:
            if self._error is not None:
                continue  # drain: the run is lost anyway, its transaction rolls back
            try:
                with self.lock:
                    insert_price_rows(session=self.session, rows=rows)
            except BaseException as exc:  # re-raised on the caller's thread
                self._error = exc

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def write(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Queue rows for insert; waits while `depth` chunks are pending."""
        self._raise()
        if not rows:
            return
        if self.threaded:
            self._queue.put(rows)
        else:
            insert_price_rows(session=self.session, rows=rows)

    def locked(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn` on this thread's turn at the connection."""
        with self.lock:
            return fn(*args, **kwargs)
