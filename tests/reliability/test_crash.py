"""Crashes and a full disk: the store is as it was before the run, the
interrupted run is marked aborted at the next start, and the user reads one
clear line."""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

EARLY = FIXTURES / "azure" / "azure-westeurope-2026-08-03.har"
LATE = FIXTURES / "azure" / "azure-westeurope-2026-09-03.har"


def gpu_tracker(home: Path, *args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "GPU_TRACKER_HOME": str(home)}
    env.pop("GPU_TRACKER_DATABASE_URL", None)
    return subprocess.Popen([sys.executable, "-c", "from tracker.cli import run; run()", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


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
    out, err = listing.communicate(timeout=60)
    statuses = [r["status"] for r in json.loads(out)]
    assert "running" not in statuses
    assert "aborted" in statuses or statuses[0] == "ok"


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))


def one_error(proc: subprocess.Popen) -> str:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


def test_crawler_files_too_large_is_a_clear_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    line = one_error(gpu_tracker(home, "crawl", "azure", "-r", "westeurope", "--replay", str(EARLY),
                                 preexec_fn=_limit_file_size))
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
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_under_the_store_is_a_clear_error(tmp_path: Path, tiny_disk: Path) -> None:
    home = tmp_path / "home"
    env = {"GPU_TRACKER_DATABASE_URL": f"sqlite:///{tiny_disk / 'tracker.db'}"}
    proc = subprocess.Popen([sys.executable, "-c", "from tracker.cli import run; run()", "crawl", "azure",
                             "-r", "westeurope", "--replay", str(EARLY)],
                            env={**os.environ, "GPU_TRACKER_HOME": str(home), **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = one_error(proc)
    assert "full" in line, line
    # The store stays readable and holds nothing half-written.
    prices, changes, _ = snapshot(tiny_disk / "tracker.db")
    assert (prices, changes) == (0, 0)
