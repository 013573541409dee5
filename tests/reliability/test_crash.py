"""Crashes and a full disk: the store is as it was before the run, the
interrupted run is marked aborted at the next start, a killed migration
completes at the next start, and the user reads one clear line."""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.runtime.migration import MigrationContext

from db.store.engine import make_engine, migrate
from tests.conftest import DEMO_CAPTURES, PG_URL, _require_pg
from tests.helpers.daemonutil import fake_azure, wait_for

EARLY = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"
LATE = DEMO_CAPTURES / "azure" / "2026-09-03-westeurope.har.gz"


def gpu_tracker(home: Path, *args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "GPU_TRACKER_HOME": str(home)}
    env.pop("GPU_TRACKER_DATABASE_URL", None)
    return subprocess.Popen(
        [sys.executable, "-c", "from tracker.cli import run; run()", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def snapshot(db: Path) -> tuple[int, int, list[tuple]]:
    with sqlite3.connect(db) as conn:
        prices = conn.execute("select count(*) from price_points").fetchone()[0]
        changes = conn.execute("select count(*) from changes").fetchone()[0]
        runs = conn.execute("select id, status from crawl_runs order by id").fetchall()
    return prices, changes, runs


@pytest.mark.slow
def test_sigkill_during_crawls_leaves_store_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = gpu_tracker(home, "crawl", "azure", "-r", "westeurope", "--replay", str(EARLY))
    assert first.wait(60) == 0
    db = home / "tracker.db"
    prices_before, changes_before, _ = snapshot(db)
    # Kill the second crawl at different moments: before, during and after its ingest.
    for delay in (0.3, 0.7, 1.0, 1.3):
        proc = gpu_tracker(home, "crawl", "azure", "-r", "westeurope", "--replay", str(LATE), start_new_session=True)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        prices, changes, runs = snapshot(db)
        # Either the whole run landed (3 new rows, 3 changes, an ok run) or none of it.
        assert (prices - prices_before, changes - changes_before) in {(0, 0), (3, 3)}
        if prices != prices_before:
            assert runs[-1][1] == "ok"
            break
    listing = gpu_tracker(home, "runs", "--format", "json")
    out, _err = listing.communicate(timeout=60)
    statuses = [r["status"] for r in json.loads(out)]
    assert "running" not in statuses
    assert "aborted" in statuses or statuses[0] == "ok"


def price_rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("select * from price_points order by id").fetchall()


@pytest.mark.slow
def test_sigkill_while_a_run_is_running_is_recorded_as_aborted(tmp_path: Path) -> None:
    """Killed for certain while its run row says `running` (the source hangs),
    the next command records that run as aborted with its reason, and the
    prices are those of the last good run."""
    home = tmp_path / "home"
    home.mkdir()
    db = home / "tracker.db"
    with fake_azure() as fake:
        # A long crawl timeout: only our SIGKILL ends the hung crawl.
        (home / "config.toml").write_text(fake.config().replace("crawl_timeout = 6", "crawl_timeout = 300"))
        first = gpu_tracker(home, "crawl", "azure")
        assert first.wait(120) == 0, first.communicate()[1]
        prices_before = price_rows(db)
        assert prices_before
        fake.hang.set()
        proc = gpu_tracker(home, "crawl", "azure", start_new_session=True)
        try:
            running = wait_for(lambda: [r for r in snapshot(db)[2] if r[1] == "running"], 60, "a running run")
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        killed_id = running[-1][0]
    listing = gpu_tracker(home, "runs", "--format", "json")
    out, err = listing.communicate(timeout=60)
    assert listing.returncode == 0, err
    killed = next(r for r in json.loads(out) if r["id"] == killed_id)
    assert killed["status"] == "aborted"
    assert killed["error"] == "interrupted: the process running it stopped before it finished"
    assert killed["finished_at"]
    assert price_rows(db) == prices_before


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))


def one_error(proc: subprocess.Popen) -> str:
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.slow
def test_crawler_files_too_large_is_a_clear_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    line = one_error(
        gpu_tracker(home, "crawl", "azure", "-r", "westeurope", "--replay", str(EARLY), preexec_fn=_limit_file_size)
    )
    # Whichever file hits the limit first (the store, or the crawl's own
    # files) is named in one line; nothing is half-stored.
    assert "File too large" in line or "disk I/O error" in line, line
    if (home / "tracker.db").exists():
        prices, _, runs = snapshot(home / "tracker.db")
        assert prices == 0 and (not runs or runs[-1][1] in ("failed", "running"))


@pytest.fixture
def tiny_disk(tmp_path: Path):
    mount = tmp_path / "tiny"
    mount.mkdir()
    if (
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True).returncode
        != 0
    ):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.slow
def test_full_disk_under_the_store_is_a_clear_error(tmp_path: Path, tiny_disk: Path) -> None:
    home = tmp_path / "home"
    env = {"GPU_TRACKER_DATABASE_URL": f"sqlite:///{tiny_disk / 'tracker.db'}"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tracker.cli import run; run()",
            "crawl",
            "azure",
            "-r",
            "westeurope",
            "--replay",
            str(EARLY),
        ],
        env={**os.environ, "GPU_TRACKER_HOME": str(home), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = one_error(proc)
    assert "full" in line, line
    # The store stays readable and holds nothing half-written.
    prices, changes, _ = snapshot(tiny_disk / "tracker.db")
    assert (prices, changes) == (0, 0)


# The child counts the DDL statements migrate() sends and kills itself, with
# no chance to clean up, right after the Nth one has reached the database.
KILL_AFTER_NTH_DDL = """
import os, signal, sys
import sqlalchemy as sa
from db.store.engine import make_engine, migrate

url, nth = sys.argv[1], int(sys.argv[2])
engine = make_engine(url)
seen = 0

def count(conn, cursor, statement, parameters, context, executemany):
    global seen
    if statement.lstrip().split(None, 1)[0].upper() in ("CREATE", "ALTER", "DROP"):
        seen += 1
        if seen == nth:
            os.kill(os.getpid(), signal.SIGKILL)

sa.event.listen(engine, "after_cursor_execute", count)
migrate(engine)
"""

# After the 1st DDL (the version table), the 2nd (the audit's case: crawl_runs
# alone), mid-table-and-indexes, after the last statement of a revision but
# before its version row, and in the middle of a later revision.
CUT_POINTS = (1, 2, 7, 13, 15)


def schema(url: str) -> tuple[dict[str, tuple[list[str], list[str]]], set[str]]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            inspector = sa.inspect(conn)
            tables = {
                name: (
                    sorted(c["name"] for c in inspector.get_columns(name)),
                    sorted(str(i["name"]) for i in inspector.get_indexes(name)),
                )
                for name in inspector.get_table_names()
            }
            heads = set(MigrationContext.configure(conn).get_current_heads())
    finally:
        engine.dispose()
    return tables, heads


@pytest.fixture(scope="module")
def complete_schema(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, set[str]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('reference') / 'store.db'}"
    engine = make_engine(url)
    migrate(engine)
    engine.dispose()
    return schema(url)


@pytest.fixture
def scratch_pg() -> Iterator[str]:
    """A fresh PostgreSQL database (not a schema: the migration must start
    from nothing, as a new deployment does), dropped after."""
    _require_pg()  # skipped where PostgreSQL is not there, a failure where it is required (CI)
    server, name = PG_URL.rsplit("/", 1)
    scratch = f"{name.split('?')[0]}_mig_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{scratch}"')
    yield f"{server}/{scratch}"
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
    admin.dispose()


def kill_migration_after(url: str, nth: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", KILL_AFTER_NTH_DDL, url, str(nth)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def assert_recovers(url: str, complete: tuple[dict, set[str]] | None) -> None:
    engine = make_engine(url)
    try:
        migrate(engine)
    finally:
        engine.dispose()
    if complete is None:
        return
    tables, heads = schema(url)
    ref_tables, ref_heads = complete
    assert heads == ref_heads
    assert tables == ref_tables


@pytest.mark.slow
@pytest.mark.parametrize("nth", CUT_POINTS)
def test_sigkill_during_sqlite_migration_then_migrate_completes(
    nth: int, tmp_path: Path, complete_schema: tuple[dict, set[str]]
) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    kill_migration_after(url, nth)
    assert_recovers(url, complete_schema)


@pytest.mark.slow
@pytest.mark.postgres
def test_sigkill_during_postgres_migration_then_migrate_completes(scratch_pg: str) -> None:
    # PostgreSQL's own clean schema is the reference (it lists the indexes
    # behind unique constraints, SQLite does not); then each round starts
    # from nothing again in the same database.
    assert_recovers(scratch_pg, None)
    complete = schema(scratch_pg)
    for nth in CUT_POINTS:
        engine = sa.create_engine(scratch_pg)
        with engine.begin() as conn:
            conn.exec_driver_sql("DROP SCHEMA public CASCADE")
            conn.exec_driver_sql("CREATE SCHEMA public")
        engine.dispose()
        kill_migration_after(scratch_pg, nth)
        assert_recovers(scratch_pg, complete)


def test_migrate_leaves_the_driver_transactions_as_they_were(tmp_path: Path) -> None:
    # The BEGIN recipe is for the migration connection only: the pooled
    # connection the app gets next has pysqlite's default handling back.
    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    migrate(engine)
    with engine.connect() as conn:
        driver = conn.connection.driver_connection
        assert driver is not None and driver.isolation_level == ""
    engine.dispose()
