"""One crawl of a source at a time, across processes and machines.

PostgreSQL: a session-level advisory lock, held on a connection of its own;
the server drops it when that connection dies, so a killed process frees its
sources at once. SQLite: a row in `crawl_locks` with a lease that the holder
renews; a lease that expired, or whose holder on this host no longer exists,
is taken over.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import ClassVar

import sqlalchemy as sa
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Field, SQLModel

from db.store.process import pid_alive
from db.tables import UTCDateTime


class CrawlLock(SQLModel, table=True):
    __tablename__ = "crawl_locks"
    __table__: ClassVar[sa.Table]  # set by SQLModel; declared for the type checker

    name: str = Field(primary_key=True)
    owner: str
    host: str
    pid: int
    acquired_at: datetime = Field(sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime)


class LockBusy(Exception):
    """Another process holds the lock; the message says who, when known."""


@dataclass(frozen=True)
class Holder:
    host: str
    pid: int
    since: datetime | None


# Lease owners of this process. A lease under our pid and host that is not
# here is a previous process's: a restarted container has the same host and
# gives its process the same pid.
_OUR_OWNERS: set[str] = set()


def owner_id() -> str:
    owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    _OUR_OWNERS.add(owner)
    return owner


# Leases whose crawl ended while the store failed, so that their row could
# not be deleted: (engine, name, owner), deleted as soon as the store answers
# (`release_pending`). Their owner is no longer ours: the row is stale to
# this process at once, never "being crawled by process <our own pid>".
_PENDING: set[tuple[sa.Engine, str, str]] = set()
_PENDING_LOCK = threading.Lock()


def pending_locks(engine: sa.Engine | None = None) -> bool:
    """Whether a lease row a failing store kept waits to be deleted."""
    with _PENDING_LOCK:
        return any(engine is None or p[0] is engine for p in _PENDING)


def release_pending(engine: sa.Engine | None = None) -> int:
    """Deletes the lease rows a failing store kept (of `engine`, or of any);
    the number deleted. Raises the store's error while it still fails."""
    with _PENDING_LOCK:
        pending = [p for p in _PENDING if engine is None or p[0] is engine]
    for item in pending:
        _release_lease(*item)
        with _PENDING_LOCK:
            _PENDING.discard(item)
    return len(pending)


def _advisory_key(schema: str, name: str) -> int:
    # Advisory locks are per database; the schema keeps two stores in one database apart.
    digest = hashlib.blake2b(f"gpu-tracker:{schema}:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@contextmanager
def crawl_lock(engine: sa.Engine, name: str, *, wait: float = 0, lease: float = 60) -> Iterator[None]:
    """Hold the lock of `name` for the block; LockBusy if it is not free
    within `wait` seconds."""
    if engine.dialect.name == "postgresql":
        with _pg_lock(engine, name, wait):
            yield
    else:
        with contextlib.suppress(sa.exc.SQLAlchemyError):
            release_pending(engine)  # a lease a failing store kept: gone before it is asked who crawls
        with _lease_lock(engine, name, wait, lease):
            yield


@contextmanager
def _pg_lock(engine: sa.Engine, name: str, wait: float) -> Iterator[None]:
    conn = engine.connect()
    try:
        schema = conn.execute(sa.text("select current_schema()")).scalar_one()
        key = _advisory_key(str(schema), name)
        deadline = time.monotonic() + wait
        while not conn.execute(sa.text("select pg_try_advisory_lock(:k)"), {"k": key}).scalar_one():
            conn.rollback()
            if time.monotonic() >= deadline:
                raise LockBusy(f"{name} is being crawled by another process on this database")
            time.sleep(min(1.0, max(0.05, deadline - time.monotonic())))
        conn.commit()
        try:
            yield
        finally:
            try:
                conn.rollback()  # a crawl that failed mid-statement leaves the connection's transaction aborted
                conn.execute(sa.text("select pg_advisory_unlock(:k)"), {"k": key})
                conn.commit()
            except sa.exc.SQLAlchemyError:
                # The lock lives as long as its session: a connection that
                # cannot say unlock is thrown away, never pooled with it held.
                conn.invalidate()
    finally:
        conn.close()


def _holder_gone(host: str, pid: int, owner: str) -> bool:
    if host != socket.gethostname():
        return False
    if pid == os.getpid():
        return owner not in _OUR_OWNERS
    return not pid_alive(pid)


def _try_lease(engine: sa.Engine, name: str, owner: str, lease: float) -> Holder | None:
    """Take or renew the lease; returns the other holder when it is not ours."""
    t = CrawlLock.__table__
    now = datetime.now(UTC)
    values = {
        "name": name,
        "owner": owner,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "acquired_at": now,
        "expires_at": now + timedelta(seconds=lease),
    }
    with engine.begin() as conn:
        row = conn.execute(sa.select(t).where(t.c.name == name)).first()
        if (
            row is not None
            and row.owner != owner
            and row.expires_at > now
            and not _holder_gone(row.host, row.pid, row.owner)
        ):
            return Holder(row.host, row.pid, row.acquired_at)
        stmt = sqlite_insert(t).values(**values)
        update = {k: stmt.excluded[k] for k in ("owner", "host", "pid", "expires_at")}
        if row is None or row.owner != owner:
            update["acquired_at"] = stmt.excluded.acquired_at
        conn.execute(stmt.on_conflict_do_update(index_elements=["name"], set_=update))
    return None


def _release_lease(engine: sa.Engine, name: str, owner: str) -> None:
    t = CrawlLock.__table__
    with engine.begin() as conn:
        conn.execute(sa.delete(t).where(t.c.name == name, t.c.owner == owner))


@contextmanager
def _lease_lock(engine: sa.Engine, name: str, wait: float, lease: float) -> Iterator[None]:
    owner = owner_id()
    deadline = time.monotonic() + wait
    while (holder := _try_lease(engine, name, owner, lease)) is not None:
        if time.monotonic() >= deadline:
            since = f" since {holder.since:%Y-%m-%d %H:%M:%S} UTC" if holder.since else ""
            raise LockBusy(f"{name} is being crawled by process {holder.pid} on {holder.host}{since}")
        time.sleep(min(1.0, max(0.05, deadline - time.monotonic())))
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(lease / 3):
            try:
                _try_lease(engine, name, owner, lease)
            except sa.exc.OperationalError:
                pass  # a busy database: the next renewal comes well before the lease ends

    renewer = threading.Thread(target=renew, name=f"lease-{name}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join()
        # The crawl has ended, whatever happened: the lease is no longer this
        # process's, even when the store cannot delete its row now.
        _OUR_OWNERS.discard(owner)
        try:
            _release_lease(engine, name, owner)
        except sa.exc.SQLAlchemyError:
            with _PENDING_LOCK:
                _PENDING.add((engine, name, owner))
