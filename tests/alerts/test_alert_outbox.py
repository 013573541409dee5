"""The outbox against real Apprise and a server on 127.0.0.1, on SQLite and
PostgreSQL: retries with backoff, dead letters, rate limits, two workers,
and a worker killed mid-send."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from apprise.plugins.wecombot import NotifyWeComBot
from sqlmodel import Session

from alerts.outbox import enqueue, list_rows
from alerts.rules import MemoryReferences, compile_rules, route
from db.alert_tables import OutboxRow
from db.store.engine import make_engine
from tests.helpers.alert_samples import price
from tests.helpers.localserver import Received, Reply, serve
from tracker.config.settings import Config, load_config
from tracker.run.alerting import deliver_outbox, release_stuck

T0 = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)


def config_for(tmp_path: Path, url: str, **alerts: object) -> Config:
    settings = "".join(f"{k} = {json.dumps(v)}\n" for k, v in alerts.items())
    path = tmp_path / "config.toml"
    path.write_text(
        f'[alerts]\n{settings}\n[[channel]]\nname = "hook"\nurl = "{url}"\n'
        '[[rule]]\nname = "all"\nchannels = ["hook"]\n',
        encoding="utf-8",
    )
    return load_config(path, home=tmp_path)


def add_changes(engine: sa.Engine, config: Config, n: int, *, at: datetime = T0) -> list[str]:
    rules = compile_rules(config.rule)
    changes = [price(key=f"sku-{i}", instance=f"Standard_ND{i}") for i in range(n)]
    with Session(engine) as session:
        enqueue(session, route(rules, changes, MemoryReferences(), at), at)
        session.commit()
        return [r.idempotency_key for r in sorted(list_rows(session, limit=None), key=lambda r: r.id or 0)]


def rows(engine: sa.Engine) -> list[OutboxRow]:
    with Session(engine) as session:
        return sorted(list_rows(session, limit=None), key=lambda r: r.id or 0)


def ok_keys(received: list[Received], statuses: dict[int, int]) -> list[str]:
    return [r.headers["Idempotency-Key"] for i, r in enumerate(received) if statuses.get(i) == 200]


def test_a_flaky_channel_gets_every_message_exactly_once(engine, tmp_path: Path) -> None:
    statuses: dict[int, int] = {}

    def flaky(req: Received) -> Reply:
        n = len(statuses)
        statuses[n] = 500 if n < 3 else 200
        return Reply(statuses[n], b'{"error": "down"}' if n < 3 else b"{}")

    with serve(flaky) as (base, received):
        config = config_for(tmp_path, f"json://{base.removeprefix('http://')}/hook")
        keys = add_changes(engine, config, 3)
        now, waits = T0, []
        for _ in range(10):
            report = deliver_outbox(config, engine, now=now)
            if report.failed:
                waits.append(int((rows(engine)[0].next_attempt_at - now).total_seconds()))
            now += timedelta(minutes=5)
    assert waits == [30, 60, 120]  # retry_base_seconds doubled after each failure
    assert sorted(ok_keys(received, statuses)) == sorted(keys)
    assert Counter(ok_keys(received, statuses)).most_common(1)[0][1] == 1
    assert all(r.path == "/hook" for r in received)
    final = rows(engine)
    assert [r.state for r in final] == ["sent"] * 3
    assert final[0].attempts == 4 and final[0].last_error and "500" in final[0].last_error


def test_dead_letters_and_retry(engine, tmp_path: Path) -> None:
    answer = {"status": 500}
    with serve(lambda req: Reply(answer["status"], b"{}")) as (base, received):
        config = config_for(
            tmp_path, f"json://{base.removeprefix('http://')}/hook", max_attempts=3, retry_base_seconds=1
        )
        add_changes(engine, config, 1)
        reports = [deliver_outbox(config, engine, now=T0 + timedelta(minutes=i)) for i in range(4)]
        assert [(r.failed, r.dead) for r in reports] == [(1, 0), (1, 0), (0, 1), (0, 0)]
        assert rows(engine)[0].state == "dead" and len(received) == 3
        from alerts.outbox import retry

        assert retry(engine, now=T0 + timedelta(hours=1)) == 1
        answer["status"] = 200
        report = deliver_outbox(config, engine, now=T0 + timedelta(hours=1))
    assert report.sent == 1 and rows(engine)[0].state == "sent"


def test_wecom_takes_20_messages_a_minute(engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(lambda req: Reply(200, b'{"errcode":0,"errmsg":"ok"}')) as (base, received):
        monkeypatch.setattr(NotifyWeComBot, "notify_url", f"{base}/wecom?key={{key}}")
        config = config_for(tmp_path, "wecombot://robotkey42")
        add_changes(engine, config, 25)
        first = deliver_outbox(config, engine, now=T0)
        assert (first.sent, first.deferred, len(received)) == (20, 5, 20)
        assert deliver_outbox(config, engine, now=T0 + timedelta(seconds=30)).sent == 0
        assert deliver_outbox(config, engine, now=T0 + timedelta(seconds=62)).sent == 5
    assert len({json.loads(r.body)["markdown"]["content"] for r in received}) == 25


def test_wecom_errcode_backs_off(engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(lambda req: Reply(200, b'{"errcode":45009,"errmsg":"api freq out of limit"}')) as (base, _):
        monkeypatch.setattr(NotifyWeComBot, "notify_url", f"{base}/wecom?key={{key}}")
        config = config_for(tmp_path, "wecombot://robotkey42")
        add_changes(engine, config, 1)
        report = deliver_outbox(config, engine, now=T0)
    row = rows(engine)[0]
    assert report.failed == 1 and row.state == "pending" and "45009" in (row.last_error or "")


def test_two_workers_never_send_one_message_twice(engine, db_url: str, tmp_path: Path) -> None:
    lock = threading.Lock()
    with serve(lambda req: Reply(200, b"{}")) as (base, received):
        config = config_for(tmp_path, f"json://{base.removeprefix('http://')}/hook", batch_size=7)
        keys = add_changes(engine, config, 120)
        reports = []

        def worker(name: str) -> None:
            own = make_engine(db_url)
            report = deliver_outbox(config, own, now=T0, worker=name)
            with lock:
                reports.append(report)
            own.dispose()

        threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    sent = [r.headers["Idempotency-Key"] for r in received]
    assert sorted(sent) == sorted(keys)
    assert sum(r.sent for r in reports) == 120
    assert all(r.state == "sent" for r in rows(engine))


CHILD = """
import sys
from tracker.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_worker_killed_mid_send_loses_nothing(engine, db_url: str, tmp_path: Path) -> None:
    in_flight = threading.Event()
    release = threading.Event()

    def slow_third(req: Received) -> Reply:
        if len(received) == 3 and not release.is_set():
            in_flight.set()
            release.wait(30)
        return Reply(200, b"{}")

    with serve(slow_third) as (base, received):
        config = config_for(tmp_path, f"json://{base.removeprefix('http://')}/hook")
        keys = add_changes(engine, config, 6, at=datetime.now(UTC) - timedelta(minutes=1))
        env = dict(os.environ, GPU_TRACKER_DATABASE_URL=db_url)
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, "--home", str(tmp_path), "alerts", "deliver"],
            env=env,
            cwd=Path(__file__).parents[2],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert in_flight.wait(60), child.communicate()
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        release.set()
        states = Counter(r.state for r in rows(engine))
        # One message is claimed at a time: the kill strands the one in flight, not a batch.
        assert states == {"sent": 2, "sending": 1, "pending": 3}
        assert release_stuck(engine, config) == 1
        report = deliver_outbox(config, engine)
    sent = [r.headers["Idempotency-Key"] for r in received]
    counts = Counter(sent)
    assert set(sent) == set(keys)
    again = [k for k, n in counts.items() if n > 1]
    assert again == [keys[2]] and counts[keys[2]] == 2  # only the one in flight, with its own key
    assert report.sent == 4 and all(r.state == "sent" for r in rows(engine))
