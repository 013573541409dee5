"""The bulk write path: one row tuple per quote, below the ORM, at the
driver's own speed (executemany on SQLite, COPY on PostgreSQL).

A quote staged in another process travels as `packed` (its columns as plain
strings, which pickle ten times faster than Decimals, enums and aware
datetimes) and is read back by name only where the diff needs a field.

On PostgreSQL a second thread does the insert: the server does the work, in
its own process, while psycopg waits with the GIL released, so a chunk COPYed
from another thread overlaps the diff of the next chunk. SQLite's insert runs
in our process and needs the GIL to bind every row, so a second thread only
adds contention (measured: 3.3x the raw insert instead of 2.7x); there the
writer writes inline. One lock serializes every use of the session's
connection between the two threads.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from types import TracebackType
from typing import Any, TypeVar

from sqlmodel import Session

from db.schema import StagedQuote
from db.store import DECIMAL_FIELDS, ROW_FIELDS
from db.tables import PricePoint

T = TypeVar("T")
# The stored columns of a quote (its fields, then attrs as JSON), then the row's own.
PRICE_COLUMNS = (*ROW_FIELDS, "attrs", "key", "value_hash", "source", "valid_from", "first_run_id", "missed_runs",
                 "input_hash")
# A staged quote in transit: (key, value hash, its stored columns, input hash).
Packed = tuple[str, str, tuple[Any, ...], str | None]
_DECIMAL_SET = frozenset(DECIMAL_FIELDS)
_POSITION = {name: i for i, name in enumerate(ROW_FIELDS)}


def decimal_text(value: Decimal | None) -> str | None:
    """format "f", faster: str() writes the same digits unless it chose an exponent."""
    if value is None:
        return None
    text = str(value)
    return format(value, "f") if "E" in text else text


# Enums are written as their plain value, whatever the driver makes of a str subclass.
_CONVERT = tuple(decimal_text if name in _DECIMAL_SET else str if name in ("price_model", "unit") else None
                 for name in ROW_FIELDS)


def stored_columns(fields: Mapping[str, Any]) -> tuple[Any, ...]:
    """A quote's fields as the store writes them, attrs last."""
    attrs = fields["attrs"]
    return (*[fields[name] if convert is None else convert(fields[name]) for name, convert in zip(ROW_FIELDS, _CONVERT)],
            json.dumps(attrs, sort_keys=True, ensure_ascii=False) if attrs else "{}")


class PackedFields(Mapping[str, Any]):
    """A packed quote's fields, read by name: Decimals come back as Decimals,
    enums as their values. (No observed_at: the run has one.)"""

    __slots__ = ("columns",)

    def __init__(self, columns: tuple[Any, ...]) -> None:
        self.columns = columns

    def __getitem__(self, name: str) -> Any:
        if name == "attrs":
            return json.loads(self.columns[-1])
        value = self.columns[_POSITION[name]]
        return Decimal(value) if value is not None and name in _DECIMAL_SET else value

    def __iter__(self) -> Iterator[str]:
        return iter((*ROW_FIELDS, "attrs"))

    def __len__(self) -> int:
        return len(ROW_FIELDS) + 1


def pack(quote: StagedQuote) -> Packed:
    columns = quote.columns if quote.columns is not None else stored_columns(quote.fields)
    return quote.key, quote.value_hash, columns, quote.input_hash


def unpack(packed: Packed) -> StagedQuote:
    key, value_hash, columns, input_hash = packed
    return StagedQuote(PackedFields(columns), key, value_hash, input_hash, columns)


def price_row(quote: StagedQuote, *, source: str, run_id: int, valid_from: object) -> tuple[Any, ...]:
    """A quote as a price_points row in PRICE_COLUMNS order; `valid_from` as
    the driver takes it (see `bulk_time`)."""
    columns = quote.columns if quote.columns is not None else stored_columns(quote.fields)
    return (*columns, quote.key, quote.value_hash, source, valid_from, run_id, 0, quote.input_hash)


def bulk_time(session: Session, when: datetime) -> object:
    """`when` as the column type would bind it, done once per run rather
    than once per row."""
    dialect = session.connection().dialect
    process = PricePoint.__table__.c.valid_from.type.bind_processor(dialect)
    value = process(when) if process else when
    if dialect.name == "sqlite" and isinstance(value, datetime):
        value = value.isoformat(" ")  # what sqlite3's default adapter would write for each row
    return value


def insert_price_rows(*, session: Session, rows: Sequence[tuple[Any, ...]]) -> None:
    """Rows from `price_row`, in the session's transaction."""
    if not rows:
        return
    conn = session.connection()
    columns = ", ".join(PRICE_COLUMNS)
    if conn.dialect.name == "postgresql":
        with conn.connection.dbapi_connection.cursor() as cursor:  # type: ignore[union-attr]
            with cursor.copy(f"COPY price_points ({columns}) FROM STDIN") as copy:
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

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
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
