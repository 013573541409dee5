"""Small words of issue 40 (item 6): what the daemon and `status` say must be
true when it is read. A backoff counts from the failed attempt, not from
the round's start; a channel's answer is text, not a Python bytes literal;
a store from a newer version names the newest revision this one knows; the
store's size is its size, however the store was opened."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from alerts.channels import Channel
from alerts.render import Message
from db.store.engine import make_engine, migrate
from db.store.heads import newest_revision, script_revisions
from tests.alerts.test_alert_outbox import add_changes, config_for, rows
from tests.helpers.localserver import Received, Reply, serve
from tracker.daemon.health import store_size
from tracker.run.alerting import deliver_outbox


def test_a_backoff_counts_from_the_failed_attempt(engine: sa.Engine, tmp_path: Path) -> None:
    """Issue 40: "next attempt 14:03:55" printed when that time had passed: the
    channel took longer to fail than its backoff, counted from the round's start."""

    def slow_failure(req: Received) -> Reply:
        time.sleep(2.5)
        return Reply(500, b'{"error": "down"}')

    with serve(slow_failure) as (base, _):
        config = config_for(tmp_path, f"json://{base.removeprefix('http://')}/hook", retry_base_seconds=1)
        add_changes(engine, config, 1)
        started = datetime.now(UTC)
        report = deliver_outbox(config, engine, now=started)
    assert report.failed == 1
    due = rows(engine)[0].next_attempt_at
    due = due if due.tzinfo else due.replace(tzinfo=UTC)
    assert due >= started + timedelta(seconds=2.5 + 1 - 0.2), due - started  # the failure, then 1 s


def test_a_webhooks_answer_is_logged_as_text(caplog: pytest.LogCaptureFixture) -> None:
    """Apprise logs the body as the repr of its bytes ("Response Details:\\r\\n%r",
    apprise/plugins/custom_json.py); the answer says it as text."""
    with serve(lambda req: Reply(500, '{"error":"nope","note":"café"}'.encode())) as (base, _):
        channel = Channel("team", f"json://{base.removeprefix('http://')}/hook", timeout=5)
        result = channel.send(Message(title="t", body="b", key="k1", row_keys=("k1",)))
    assert not result.ok and result.status == 500
    assert 'answer: {"error":"nope","note":"café"}' in result.answer, result.answer
    assert "b'" not in result.answer


def test_a_newer_store_names_the_newest_revision_this_version_knows(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tracker.db'}"
    engine = make_engine(url)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(sa.text("delete from alembic_version"))
        conn.execute(sa.text("insert into alembic_version (version_num) values ('0999')"))
    with pytest.raises(Exception) as raised:
        migrate(engine)
    engine.dispose()
    newest = max(script_revisions())
    assert newest_revision() == newest
    # Issue 40: "this version knows up to 0003, 0004, 0008, 0013" (the branch heads).
    assert f"(schema revision 0999; this version knows up to {newest})" in str(raised.value), raised.value


def test_the_store_size_is_the_files_also_opened_read_only(tmp_path: Path) -> None:
    db = tmp_path / "tracker.db"
    engine = make_engine(f"sqlite:///{db}")
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(sa.text("create table filler (x blob)"))
        conn.execute(sa.text("insert into filler values (zeroblob(3000000))"))
    with engine.connect() as conn:
        conn.execute(sa.text("pragma wal_checkpoint(TRUNCATE)"))
    size = store_size(engine)
    engine.dispose()
    assert size is not None and size >= 3_000_000
    # How `db.store.engine.sqlite_read_only` opens a store this process may not write (`status` then).
    reading = sa.create_engine(f"sqlite:///file:{db}?mode=ro&uri=true")
    wal = Path(f"{db}-wal")
    # Issue 40: `status` said "0.0 MB" for a 3 MB store.
    assert store_size(reading) == db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    reading.dispose()
