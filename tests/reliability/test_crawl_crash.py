"""A crawl killed (SIGKILL) at any point of its store step, on SQLite and on
PostgreSQL: the store stays exactly as it was (prices, changes, the alert
outbox and the rules' references), the killed run stays 'running' until the
next run marks it aborted, and a re-run stores the crawl once, with exactly
its changes; killed just after its commit, the crawl is complete.

The child is the real CLI with checkpoints (tests/helpers/crash_child.py),
forked from a process that imported it once; it stores what the spider's
child process wrote when it replayed each capture once for the module, so
that a kill costs a fork rather than a crawl. The re-run that completes the
killed crawl is the plain CLI, spider and all."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.conftest import DEMO_CAPTURES, PG_URL
from tests.helpers.harutil import page_json, set_page_json, shifted

REPO = Path(__file__).parents[2]
EARLY = DEMO_CAPTURES / "aws" / "2026-08-06-us-east-1.har.gz"
LATE = DEMO_CAPTURES / "aws" / "2026-09-06-us-east-1.har.gz"
LATE_AT = datetime(2026, 9, 6, 6, 0, tzinfo=UTC)
# Dropped from the later capture's Linux table: one miss, not yet a removal
# (removal_confirmations = 2), whatever runs were killed before.
GONE = "g4dn 8xlarge US East N. Virginia Linux"
# 283 prices in chunks of 40: eight chunks, five or six of them with rows to write.
CHUNK = "40"
CONFIG = """\
[[channel]]
name = "ops"
url = "json://127.0.0.1:9/hook"

[[rule]]
name = "everything"
channels = ["ops"]
"""
# The README's four changes of the later capture (tracker/demo_captures/aws/README.md).
README_CHANGES = {
    ("new_sku", "p5e.48xlarge", "linux", "on_demand"),
    ("price_drop", "p5.48xlarge", "linux", "on_demand"),
    ("price_increase", "g6e.xlarge", "linux", "on_demand"),
    ("price_drop", "g5.xlarge", "linux", "spot"),
}
# Before the snapshot transaction commits, in the order a run passes them.
BEFORE_COMMIT = [
    "begun#1",
    "opened#1",
    "chunk#1",
    "writing:price_points:1#2",
    "chunk#4",
    "writing:price_points:2#5",
    "chunk#8",
    "closed#1",
    "writing:changes:1#10",
    "finished#1",
    "enqueued#1",
    "committing#1",
]
TABLES = ("price_points", "changes", "alert_outbox", "alert_notified")
# Columns that differ between two stores holding the same data.
LOCAL_COLUMNS = {"id", "first_run_id", "run_id", "created_at", "next_attempt_at", "notified_at"}


@dataclass
class Later:
    capture: Path
    dearer: set[str]  # Windows GPU sizes made 3% dearer


def edited_late(dst: Path) -> Later:
    """The later capture with every priced Windows GPU size 3% dearer and
    one Linux size gone."""
    dearer: set[str] = set()

    def edit(_i: int, entry: dict[str, Any]) -> None:
        url = entry["request"]["url"]
        if not url.endswith(("/Windows/index.json", "/Linux/index.json")):
            return
        page = page_json(entry)
        rows = next(iter(page["regions"].values()))
        if url.endswith("/Linux/index.json"):
            del rows[GONE]
        for row in rows.values():
            if url.endswith("/Windows/index.json") and row["Instance Family"] == "GPU instance":
                price = Decimal(row["price"])
                if price > 0:
                    row["price"] = str((price * Decimal("1.03")).quantize(Decimal("1E-10")))
                    dearer.add(row["Instance Type"])
        set_page_json(entry, page)

    shifted(LATE, dst, LATE_AT, edit)
    return Later(dst, dearer)


@pytest.fixture(scope="module")
def later(tmp_path_factory: pytest.TempPathFactory) -> Later:
    return edited_late(tmp_path_factory.mktemp("captures") / "2026-09-06-us-east-1.har.gz")


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory, later: Later) -> dict[str, Path]:
    """Both captures replayed once, by the spider's child process: what the
    killed children store."""
    from tracker.config.settings import Config
    from tracker.run.crawl import replay_crawls
    from tracker.run.service import crawl_request
    from tracker.sources import SOURCES

    folder = tmp_path_factory.mktemp("replayed")
    config = Config(home=folder)
    captures = {"early": EARLY, "later": later.capture}
    requests = [
        crawl_request(config, SOURCES["aws"], out_dir=folder / name, regions=["us-east-1"], replay=capture)
        for name, capture in captures.items()
    ]
    for result in replay_crawls(requests, folder / "batch"):
        assert result.error is None, result.error
    return {name: folder / name for name in captures}


@contextmanager
def second_store(db_url: str, tmp_path: Path) -> Iterator[str]:
    """Another empty store on the same back end."""
    if db_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'second.db'}"
        return
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(PG_URL)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'create schema "{schema}"')
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'drop schema "{schema}" cascade')
        admin.dispose()


class Forks:
    """tests/helpers/crash_child.py serving: a CLI run per request, each a
    fork of one process that imported the tracker once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.crash_child", "serve"],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.runs = 0

    def start(self, argv: list[str], env: dict[str, str]) -> tuple[int, Path]:
        self.runs += 1
        err = self.folder / f"{self.runs}.err"
        request = {"argv": argv, "env": env, "out": str(self.folder / f"{self.runs}.out"), "err": str(err)}
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self.said("pid"), err

    def said(self, key: str, timeout: float = 60) -> Any:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        assert line, f"the fork server said nothing for {timeout:g} s"
        message = json.loads(line)
        if key not in message:
            return message
        return message[key]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture(scope="module")
def forks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Forks]:
    server = Forks(tmp_path_factory.mktemp("forks"))
    yield server
    server.close()


class Store:
    """A store, its home folder, and the CLI run against it."""

    def __init__(self, url: str, home: Path, forks: Forks) -> None:
        self.url = url
        self.home = home
        self.forks = forks
        home.mkdir()
        (home / "config.toml").write_text(CONFIG, encoding="utf-8")
        self.engine = sa.create_engine(url)

    def env(self, **extra: str) -> dict[str, str]:
        return {"GPU_TRACKER_HOME": str(self.home), "GPU_TRACKER_DATABASE_URL": self.url, **extra}

    def crawl(self, capture: Path, *, replayed: Path | None = None) -> list[dict[str, Any]]:
        """A complete crawl; its changes as `crawl --format json` lists them."""
        args = ["crawl", "aws", "-r", "us-east-1", "--replay", str(capture), "--format", "json"]
        if replayed is None:  # the plain CLI, its spider in a child process
            argv = [sys.executable, "-c", "from tracker.cli import run; run()", *args]
            done = subprocess.run(argv, env={**os.environ, **self.env()}, capture_output=True, text=True)
            code, out, err = done.returncode, done.stdout, done.stderr
        else:
            _pid, err_file = self.forks.start(args, self.env(CRASH_CRAWL=str(replayed), CRASH_CHUNK=CHUNK))
            code = self.forks.said("exit")
            out, err = err_file.with_suffix(".out").read_text(), err_file.read_text()
        assert code == 0, err
        assert "Traceback" not in err
        return json.loads(out)

    def kill_at(self, label: str, capture: Path, replayed: Path) -> None:
        """Crawl until `label`, then SIGKILL."""
        args = ["crawl", "aws", "-r", "us-east-1", "--replay", str(capture)]
        pid, err = self.forks.start(args, self.env(CRASH_AT=label, CRASH_CRAWL=str(replayed), CRASH_CHUNK=CHUNK))
        try:
            said = self.forks.said("reached")
            if said == label and label.startswith("writing:") and self.postgres:
                table, rows = label.split(":")[1], int(label.split("#")[1])
                assert self.copied(table, rows), f"no COPY into {table} with {rows} rows in flight"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        if said != label:
            exit_code = said.get("exit") if isinstance(said, dict) else self.forks.said("exit")
            pytest.fail(f"the crawl never reached {label} (exit {exit_code}): {err.read_text()}")
        # Reaped before the next run, or its pid would still look alive.
        assert self.forks.said("exit") == -signal.SIGKILL

    @property
    def postgres(self) -> bool:
        return self.url.startswith("postgresql")

    def copied(self, table: str, rows: int, wait: float = 10) -> bool:
        """Whether the server is inside a COPY into `table` of this store and
        has taken `rows` rows of it (pg_stat_progress_copy, PostgreSQL 14+)."""
        progress = sa.text(
            "select p.tuples_processed from pg_stat_progress_copy p"
            " join pg_class c on c.oid = p.relid join pg_namespace n on n.oid = c.relnamespace"
            " where p.command = 'COPY FROM' and c.relname = :table and n.nspname = current_schema()"
        )
        deadline = time.monotonic() + wait
        with self.engine.connect() as conn:
            while time.monotonic() < deadline:
                if any(n >= rows for n in conn.execute(progress, {"table": table}).scalars()):
                    return True
                conn.rollback()  # a new snapshot of the statistics
                time.sleep(0.05)
        return False

    def contents(self) -> dict[str, list[dict[str, Any]]]:
        out = {}
        meta = sa.MetaData()
        meta.reflect(self.engine, only=TABLES)
        with self.engine.connect() as conn:
            for name in TABLES:
                t = meta.tables[name]
                out[name] = [dict(r._mapping) for r in conn.execute(sa.select(t).order_by(t.c.id))]
        return out

    def runs(self) -> list[tuple[int, str, str | None]]:
        with self.engine.connect() as conn:
            rows = conn.exec_driver_sql("select id, status, error from crawl_runs order by id").all()
        return [tuple(r) for r in rows]

    def locks(self) -> list[tuple]:
        if not self.url.startswith("sqlite"):
            return []
        with self.engine.connect() as conn:
            return [tuple(r) for r in conn.exec_driver_sql("select name, pid from crawl_locks").all()]


def comparable(contents: dict[str, list[dict[str, Any]]]) -> dict[str, list[tuple]]:
    """The rows without the columns that are this store's own (ids, wall-clock times)."""
    return {
        name: sorted(tuple(sorted((k, str(v)) for k, v in row.items() if k not in LOCAL_COLUMNS)) for row in rows)
        for name, rows in contents.items()
    }


def change_keys(changes: list[dict[str, Any]]) -> Counter[tuple[str, str, str, str]]:
    return Counter((c["kind"], c["instance_type"], c["os"], c["price_model"]) for c in changes)


@pytest.mark.slow
def test_a_crawl_killed_anywhere_in_its_store_step_loses_nothing(
    db_url: str, tmp_path: Path, later: Later, replayed: dict[str, Path], forks: Forks
) -> None:
    expected = Counter(README_CHANGES | {("price_increase", t, "windows", "on_demand") for t in later.dearer})
    assert len(later.dearer) > 40  # the Windows rows changed fill several chunks

    a = Store(db_url, tmp_path / "a", forks)
    a.crawl(EARLY, replayed=replayed["early"])
    before = a.contents()
    assert before["price_points"] and not before["changes"] and not before["alert_outbox"]

    killed: list[int] = []
    for label in BEFORE_COMMIT:
        a.kill_at(label, later.capture, replayed["later"])
        assert a.contents() == before, label
        runs = a.runs()
        assert runs[-1][1] == "running", label  # the killed run
        if killed:  # the one killed before it was aborted when this one began
            assert {i: s for i, s, _ in runs}[killed[-1]] == "aborted", label
        killed.append(runs[-1][0])

    changes = a.crawl(later.capture)
    assert change_keys(changes) == expected
    runs = a.runs()
    assert [s for _, s, _ in runs] == ["ok"] + ["aborted"] * len(BEFORE_COMMIT) + ["ok"]
    assert {e for _, s, e in runs if s == "aborted"} == {
        "interrupted: the process running it stopped before it finished"
    }
    after = a.contents()
    # Stored once: the run's changes and one message each, nothing else new.
    assert len(after["changes"]) == len(expected)
    assert {c["run_id"] for c in after["changes"]} == {runs[-1][0]}
    assert len(after["alert_outbox"]) == len(expected)
    assert len({m["idempotency_key"] for m in after["alert_outbox"]}) == len(expected)
    # The size gone from the capture counts one miss, and is still open.
    gone = [p for p in after["price_points"] if p["instance_type"] == "g4dn.8xlarge" and p["os"] == "linux"]
    gone = [p for p in gone if p["price_model"] == "on_demand"]
    assert [(p["valid_to"], p["missed_runs"]) for p in gone] == [(None, 1)]
    assert a.locks() == []

    # The same capture again changes nothing.
    assert a.crawl(later.capture, replayed=replayed["later"]) == []
    assert a.contents() == after

    # Killed just after its commit, the crawl is complete: store B holds what A does.
    with second_store(db_url, tmp_path) as url:
        b = Store(url, tmp_path / "b", forks)
        assert b.crawl(EARLY, replayed=replayed["early"]) == []
        b.kill_at("committed#1", later.capture, replayed["later"])
        assert b.runs()[-1][1] == "ok"
        assert comparable(b.contents()) == comparable(after)
        # The lock the killed process held does not stop the next crawl.
        assert b.crawl(later.capture, replayed=replayed["later"]) == []
        assert comparable(b.contents()) == comparable(after)
        assert [s for _, s, _ in b.runs()] == ["ok", "ok", "ok"]
        assert b.locks() == []
        b.engine.dispose()
    a.engine.dispose()


@pytest.mark.slow
def test_a_killed_run_under_the_pid_of_the_next_crawl_is_aborted(
    db_url: str,
    tmp_path: Path,
    later: Later,
    replayed: dict[str, Path],
    forks: Forks,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In a container the crawl is tini's one child, with the same pid every
    time (deploy/k8s/cronjobs.yaml): the next crawl after an OOM kill has
    the pid of the killed one. That run is still over, and on SQLite the
    lease it left (same host, same pid) is free at once."""
    from tracker.cli import main

    a = Store(db_url, tmp_path / "a", forks)
    a.crawl(EARLY, replayed=replayed["early"])
    before = a.contents()
    a.kill_at("chunk#4", later.capture, replayed["later"])
    killed = a.runs()[-1][0]
    # This process plays the next container's crawl, the killed one's pid its own.
    with a.engine.begin() as conn:
        conn.execute(sa.text("update crawl_runs set pid = :pid where id = :id"), {"pid": os.getpid(), "id": killed})
        if not a.postgres:  # PostgreSQL's advisory lock went with the killed connection
            assert conn.execute(sa.text("update crawl_locks set pid = :pid"), {"pid": os.getpid()}).rowcount == 1
    assert a.contents() == before

    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", a.url)
    capsys.readouterr()
    args = [
        "--home",
        str(a.home),
        "crawl",
        "aws",
        "-r",
        "us-east-1",
        "--replay",
        str(later.capture),
        "--format",
        "json",
    ]
    assert main(args) == 0
    changes = json.loads(capsys.readouterr().out)
    assert len(changes) == len(later.dearer) + len(README_CHANGES)
    runs = a.runs()
    assert [(i, s) for i, s, _ in runs] == [(1, "ok"), (killed, "aborted"), (killed + 1, "ok")]
    a.engine.dispose()
