"""The real daemon in a subprocess, crawling a local fake of the Azure API on
a schedule of seconds."""

from __future__ import annotations

import itertools
import re
import signal
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.helpers.daemonutil import daemon, fake_azure, runs, wait_for

pytestmark = pytest.mark.slow


def ok_runs(url: str) -> list:
    return [r for r in runs(url) if r.status == "ok"]


def change_kinds(url: str) -> list[str]:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        kinds = [k for (k,) in conn.execute(sa.text("select kind from changes order by id"))]
    engine.dispose()
    return kinds


def test_daemon_crawls_on_schedule_serves_metrics_and_stops_on_sigterm(home: Path) -> None:
    url = f"sqlite:///{home / 'tracker.db'}"
    with fake_azure() as fake:
        (home / "config.toml").write_text(fake.config())
        with daemon(home, "--log-format", "json") as d:
            assert d.get("/healthz") == (200, "ok\n")
            wait_for(lambda: len(ok_runs(url)) >= 1, 60, "a first complete run")
            fake.bump = 0.5
            wait_for(
                lambda: "price_increase" in change_kinds(url) or "price_drop" in change_kinds(url), 60, "a price change"
            )
            wait_for(lambda: len(ok_runs(url)) >= 3, 60, "three complete runs")
            status, metrics = d.get("/metrics")
            assert status == 200
            count = re.search(r'gpu_tracker_crawls_total\{source="azure",status="ok"\} (\d+)', metrics)
            assert count and int(count.group(1)) >= 3, metrics
            assert 'gpu_tracker_crawl_duration_seconds_count{source="azure",status="ok"}' in metrics
            assert "gpu_tracker_crawl_items_bucket" in metrics
            assert re.search(r'gpu_tracker_changes_total\{kind="price_(increase|drop)"\} [1-9]', metrics)
            assert d.get("/nowhere")[0] == 404
            assert d.stop(signal.SIGTERM, timeout=30) == 0
        log = d.output()
    assert d.get("/healthz")[0] == 0  # the server is gone with the scheduler
    assert all(r.status != "running" for r in runs(url))
    lines = [line for line in log.splitlines() if line.startswith("{")]
    assert any('"status": "ok"' in line and '"source": "azure"' in line for line in lines), log
    assert '"message": "daemon stopped"' in log


def test_hung_source_is_killed_at_the_timeout_and_recovers(home: Path) -> None:
    url = f"sqlite:///{home / 'tracker.db'}"
    with fake_azure() as fake:
        (home / "config.toml").write_text(fake.config())
        with daemon(home) as d:
            wait_for(lambda: ok_runs(url), 60, "a first complete run")
            fake.hang.set()
            failed = wait_for(lambda: [r for r in runs(url) if r.status == "failed"], 60, "a failed run")
            assert "did not finish within 6 s" in failed[0].error
            assert d.get("/healthz")[0] == 200  # the daemon goes on
            fake.hang.clear()
            wait_for(
                lambda: any(r.status == "ok" and r.id > failed[0].id for r in runs(url)),
                60,
                "a complete run after the failure",
            )
            wait_for(lambda: "source_recovered" in change_kinds(url), 20, "source_recovered")
            assert d.stop() == 0
    kinds = change_kinds(url)
    assert kinds.index("source_broken") < kinds.index("source_recovered")


def test_sigterm_during_a_crawl_ends_it_and_records_it(home: Path) -> None:
    url = f"sqlite:///{home / 'tracker.db'}"
    with fake_azure() as fake:
        fake.hang.set()
        (home / "config.toml").write_text(fake.config(every='"1h"'))
        with daemon(home) as d:
            wait_for(lambda: any(r.status == "running" for r in runs(url)), 30, "a crawl in progress")
            assert d.stop(signal.SIGTERM, timeout=30) == 0
    last = runs(url)[-1]
    assert last.status == "aborted" and "shutting down" in last.error
    assert "source_broken" not in change_kinds(url)  # an interruption is not the source's fault


def test_two_daemons_never_crawl_one_source_at_once(tmp_path: Path, pg_url: str) -> None:
    homes = [tmp_path / "a", tmp_path / "b"]
    env = {"GPU_TRACKER_DATABASE_URL": pg_url}
    with fake_azure() as fake:
        for h in homes:
            h.mkdir()
            (h / "config.toml").write_text(fake.config(every='"2s"'))
        with daemon(homes[0], env=env) as first, daemon(homes[1], env=env) as second:
            wait_for(lambda: len(ok_runs(pg_url)) >= 4, 90, "four complete runs")
            victim = wait_for(
                lambda: next((r.pid for r in runs(pg_url) if r.status == "running"), None), 30, "a crawl in progress"
            )
            killed, survivor = (first, second) if victim == first.proc.pid else (second, first)
            killed.stop(signal.SIGKILL, timeout=10)
            last_id = runs(pg_url)[-1].id
            wait_for(
                lambda: [r for r in runs(pg_url) if r.id > last_id and r.status == "ok" and r.pid == survivor.proc.pid],
                60,
                "the survivor to take over",
            )
            assert survivor.stop() == 0
    rows = runs(pg_url)
    assert not [r for r in rows if r.status == "running"]
    for before, after in itertools.pairwise(rows):
        assert before.finished_at is not None
        assert after.started_at >= before.finished_at, (before, after)
    assert {first.proc.pid, second.proc.pid} == {r.pid for r in rows}


def test_daemon_delivers_a_change_to_a_channel(home: Path) -> None:
    """The whole path, unattended: scheduled crawl, change, rule, outbox,
    delivery on its own interval, to a chat channel on 127.0.0.1."""
    from tests.helpers.localserver import Reply, serve

    url = f"sqlite:///{home / 'tracker.db'}"
    with serve(lambda req: Reply(body=b"{}")) as (hook, received), fake_azure() as fake:
        host = hook.removeprefix("http://")
        (home / "config.toml").write_text(
            fake.config()
            + f"""
[alerts]
retry_base_seconds = 1

[[channel]]
name = "team"
url = "json://{host}/hook"

[[rule]]
name = "moves"
when = ["price_drop", "price_increase"]
channels = ["team"]
"""
        )
        with daemon(home) as d:
            wait_for(lambda: len(ok_runs(url)) >= 1, 60, "a first complete run")
            fake.bump = 0.5
            wait_for(lambda: [r for r in received if r.path == "/hook"], 90, "a message on the channel")
            assert d.stop(signal.SIGTERM, timeout=30) == 0
    bodies = [r.body.decode() for r in received if r.path == "/hook"]
    assert any("price_increase" in b or "price increase" in b.lower() or "Standard_" in b for b in bodies), bodies
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        states = [s for (s,) in conn.execute(sa.text("select state from alert_outbox"))]
    engine.dispose()
    assert states and "sending" not in states
