"""`gpu-tracker status`, captures kept and pruned, `reprocess`, and `daemon --once`."""

from __future__ import annotations

import csv
import io
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.daemonutil import fake_azure
from tracker.run.captures import prune_captures
from tracker.sources import SOURCES


def test_status_after_the_demo_shows_every_source_the_daemon_crawls(demo_cli) -> None:
    cli = demo_cli
    result = cli("status", "--format", "json")
    assert result.code == 0, result.err
    rows = {r["source"]: r for r in json.loads(result.out)}
    # The default set: every source whose evidence is more than assumed.
    default = {name for name, source in SOURCES.items() if source.crawled_by_default}
    assert set(rows) == default
    azure = rows["azure"]
    assert azure["last_status"] == "ok" and azure["last_ok_at"] and azure["stale"] is False
    assert azure["schedule"] == "every 6h" and azure["open_prices"] > 0
    assert "price rows" in result.err
    table = list(csv.reader(io.StringIO(cli("status", "--format", "csv").out)))
    assert table[0][0] == "source" and len(table) == len(default) + 1
    assert "azure" in cli("status").out


def test_status_shows_the_last_failure_and_its_reason(sqlite_cli, home: Path) -> None:
    (home / "config.toml").write_text(
        '[providers.azure]\napi_url = "http://127.0.0.1:9/api"\n'
        '[crawl]\nretry_times = 0\n[daemon.schedule.azure]\ncron = "0 */6 * * *"\n'
    )
    assert sqlite_cli("crawl", "azure", "-r", "westeurope").code == 1
    row = json.loads(sqlite_cli("status", "-f", "json").out)[0]
    assert row["last_status"] == "failed" and row["last_ok_at"] is None
    assert "127.0.0.1:9" in row["last_failure"] and row["schedule"] == "cron 0 */6 * * *"
    assert row["next_run"].endswith(("00:00Z", "00:00.000000Z")) or ":00:00" in row["next_run"]


def test_old_run_folders_are_pruned(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    for name in ("000001-azure", "000002-azure", "000003-azure"):
        (runs / name).mkdir(parents=True)
        (runs / name / "capture.har.gz").write_bytes(b"x")
    old = time.time() - 31 * 86400
    for name in ("000001-azure", "000002-azure"):
        os.utime(runs / name, (old, old))
    (runs / "notes").mkdir()
    os.utime(runs / "notes", (old, old))
    assert prune_captures(runs, 30) == 2
    assert sorted(p.name for p in runs.iterdir()) == ["000003-azure", "notes"]


@pytest.mark.slow
def test_reprocess_rebuilds_from_kept_captures(cli, home: Path) -> None:
    with fake_azure() as fake:
        (home / "config.toml").write_text(fake.config())
        assert cli("crawl", "azure").code == 0
        fake.bump = 1.0
        second = cli("crawl", "azure", "-f", "json")
        assert second.code == 0
    prices = json.loads(cli("prices", "-f", "json").out)
    changes = json.loads(cli("changes", "-f", "json").out)
    assert [c["kind"] for c in json.loads(second.out)] == [c["kind"] for c in changes] and changes

    result = cli("reprocess", "azure", "-f", "json")
    assert result.code == 0, result.err
    replayed = json.loads(result.out)
    assert [r["status"] for r in replayed] == ["ok", "ok"]
    assert replayed[0]["observed_at"] < replayed[1]["observed_at"]
    assert "runs superseded" in result.err
    key = lambda rows: sorted((r["instance_type"], r["os"], r["price_model"], r["term"], r["price"]) for r in rows)
    assert key(json.loads(cli("prices", "-f", "json").out)) == key(prices)
    again = json.loads(cli("changes", "-f", "json").out)
    strip = lambda rows: [(c["kind"], c["instance_type"], c["old_price"], c["new_price"]) for c in rows]
    assert strip(again) == strip(changes)
    statuses = [r["status"] for r in json.loads(cli("runs", "-f", "json").out)]
    assert sorted(statuses) == ["ok", "ok", "superseded", "superseded"]

    # Only the newer capture: the baseline before it stays as it was.
    since = replayed[1]["observed_at"]
    partial = cli("reprocess", "azure", "--since", since, "-f", "json")
    assert partial.code == 0, partial.err
    assert len(json.loads(partial.out)) == 1
    assert key(json.loads(cli("prices", "-f", "json").out)) == key(prices)
    assert strip(json.loads(cli("changes", "-f", "json").out)) == strip(changes)


def test_reprocess_without_captures_says_where_it_looked(sqlite_cli) -> None:
    result = sqlite_cli("reprocess", "azure")
    assert result.code == 1
    assert "no kept captures of azure" in result.err and "capture_retention_days" in result.err


@pytest.mark.slow
def test_daemon_once_crawls_every_source_and_exits(sqlite_cli, home: Path) -> None:
    with fake_azure() as fake:
        (home / "config.toml").write_text(fake.config())
        result = sqlite_cli("daemon", "--once")
    assert result.code == 0, result.err
    runs = json.loads(sqlite_cli("runs", "-f", "json").out)
    assert [(r["source"], r["status"]) for r in runs] == [("azure", "ok")]


def test_a_source_without_a_complete_run_goes_stale_and_recovers(cli, db_url: str, home: Path) -> None:
    from datetime import UTC, datetime, timedelta

    import sqlalchemy as sa

    from db.store.engine import make_engine
    from db.tables import CrawlRun
    from tests.conftest import DEMO_CAPTURES
    from tracker.config.settings import load_config
    from tracker.daemon.health import check_staleness

    early = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"
    (home / "config.toml").write_text('[daemon]\nsources = ["azure"]\n[daemon.schedule.azure]\nevery = "1h"\n')
    config = load_config(home=home)
    assert cli("crawl", "azure", "-r", "westeurope", "--replay", str(early)).code == 0
    engine = make_engine(db_url)
    runs = CrawlRun.__table__
    with engine.begin() as conn:  # the run was four hours ago
        for run in conn.execute(sa.select(runs.c.id, runs.c.started_at, runs.c.finished_at)).all():
            conn.execute(
                sa.update(runs)
                .where(runs.c.id == run.id)
                .values(
                    started_at=run.started_at - timedelta(hours=4), finished_at=run.finished_at - timedelta(hours=4)
                )
            )
    watching = datetime.now(UTC) - timedelta(hours=5)
    check = lambda: [
        str(c.kind) for c in check_staleness(engine, config, ["azure"], now=datetime.now(UTC), watching_since=watching)
    ]
    assert check() == ["source_stale"]
    assert check() == []  # announced once
    row = json.loads(cli("status", "-f", "json").out)[0]
    assert row["stale"] is True
    assert cli("crawl", "azure", "-r", "westeurope", "--replay", str(early)).code == 0
    assert check() == ["source_recovered"]
    assert json.loads(cli("status", "-f", "json").out)[0]["stale"] is False
    kinds = [c["kind"] for c in json.loads(cli("changes", "-f", "json").out)]
    assert kinds == ["source_stale", "source_recovered"]
    engine.dispose()


@pytest.mark.slow
def test_the_daemon_works_out_the_rates_a_bulk_run_left(sqlite_cli, home: Path, monkeypatch) -> None:
    """A run that changed more instance types than it works out at once marks
    its provider stale; the daemon works its kept rates out right after."""
    import sqlalchemy as sa

    from db.store.reads.connection import engine_db
    from db.store.writes import summary

    monkeypatch.setattr(summary, "TYPES_AT_ONCE", 0)
    marked: list[set[str]] = []
    after_run = summary.after_run

    def after_run_marked(db: Any, types: Any) -> None:
        after_run(db, types)
        marked.append(summary.stale(db))

    monkeypatch.setattr("db.store.writes.run_store.after_run", after_run_marked)
    with fake_azure() as fake:
        (home / "config.toml").write_text(fake.config())
        assert sqlite_cli("daemon", "--once").code == 0
    assert marked == [{"azure"}]
    engine = sa.create_engine(f"sqlite:///{home / 'tracker.db'}")
    try:
        with engine_db(engine) as db:
            assert summary.stale(db) == set()
            kept = db.tuples("SELECT * FROM open_type_rates ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10")
            assert kept
            summary.refresh(db)
            assert db.tuples("SELECT * FROM open_type_rates ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10") == kept
            db.conn.rollback()
    finally:
        engine.dispose()
