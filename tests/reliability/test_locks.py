"""One crawl of a source at a time: the lock on both back ends, stale leases,
and a manual crawl meeting a locked source."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from db.store.engine import make_engine, migrate
from db.store.locks import CrawlLock, LockBusy, crawl_lock
from tests.conftest import DEMO_CAPTURES

EARLY = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"


def test_a_held_lock_refuses_a_second_holder(engine) -> None:
    with crawl_lock(engine, "crawl:azure"):
        with pytest.raises(LockBusy, match="crawl:azure is being crawled by"):
            with crawl_lock(engine, "crawl:azure"):
                pass
        with crawl_lock(engine, "crawl:other"):  # other sources are free
            pass
    with crawl_lock(engine, "crawl:azure"):  # released
        pass


def held_elsewhere(engine, name: str, seconds: float) -> threading.Thread:
    """A thread holding the lock for `seconds`; returns once it holds it."""
    held = threading.Event()

    def hold() -> None:
        with crawl_lock(engine, name):
            held.set()
            time.sleep(seconds)

    worker = threading.Thread(target=hold)
    worker.start()
    held.wait(10)
    return worker


def test_waiting_for_a_lock(engine) -> None:
    worker = held_elsewhere(engine, "crawl:azure", 1.5)
    with crawl_lock(engine, "crawl:azure", wait=30):
        assert not worker.is_alive()
    worker.join()


def _plant(engine, *, host: str, pid: int, expires: datetime) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.insert(CrawlLock.__table__).values(
                name="crawl:azure",
                owner=f"{host}:{pid}:x",
                host=host,
                pid=pid,
                acquired_at=datetime.now(UTC) - timedelta(hours=1),
                expires_at=expires,
            )
        )


def test_stale_leases_are_taken_over_on_sqlite(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    migrate(engine)
    _plant(engine, host="elsewhere", pid=1, expires=datetime.now(UTC) + timedelta(minutes=5))
    with pytest.raises(LockBusy, match="process 1 on elsewhere since"), crawl_lock(engine, "crawl:azure"):
        pass
    with engine.begin() as conn:  # the lease runs out
        conn.execute(sa.update(CrawlLock.__table__).values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
    with crawl_lock(engine, "crawl:azure"):
        pass
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    _plant(engine, host=socket.gethostname(), pid=int(dead.stdout), expires=datetime.now(UTC) + timedelta(hours=1))
    with crawl_lock(engine, "crawl:azure"):  # its holder on this host is gone
        pass
    engine.dispose()


def test_the_lease_is_renewed_while_held(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    migrate(engine)
    t = CrawlLock.__table__
    with crawl_lock(engine, "crawl:azure", lease=6):
        with engine.connect() as conn:
            first = conn.execute(sa.select(t.c.expires_at)).scalar_one()
        time.sleep(2.5)
        with engine.connect() as conn:
            assert conn.execute(sa.select(t.c.expires_at)).scalar_one() > first
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(t)).scalar_one() == 0
    engine.dispose()


def test_a_manual_crawl_of_a_locked_source_refuses_or_waits(cli, db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    with crawl_lock(engine, "azure"):
        refused = cli("crawl", "azure", "-r", "westeurope", "--replay", str(EARLY))
    assert refused.code == 1
    assert "error: azure is being crawled by" in refused.err and "--wait SECONDS" in refused.err
    assert "Traceback" not in refused.err

    worker = held_elsewhere(engine, "azure", 2)
    waited = cli("crawl", "azure", "-r", "westeurope", "--replay", str(EARLY), "--wait", "60")
    worker.join()
    engine.dispose()
    assert waited.code == 0, waited.err
