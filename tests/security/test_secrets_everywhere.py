"""A secret in every place a URL can come from, and no output that shows it
(issue 40.7): crawls fail on an `api_url` with a password, `key=` and
`token=` in the file, on one an environment variable gives, with a provider
key from the environment and a channel URL with a token; then every face is
read: the CLI's stdout and stderr, the daemon's log in both formats, runs,
changes, status, the outbox, the alert preview of every family, what the
channel receives, the store's rows, the dashboard's pages, the API and the
feed. The fault matrix runs the same check on PostgreSQL, with a password in
$GPU_TRACKER_DATABASE_URL too (tests/reliability/faults_web.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.helpers.faults import Store
from tests.reliability.fault_matrix import Ctx
from tests.reliability.faults_web import secrets_in_every_output


def test_no_output_shows_a_secret(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{home / 'tracker.db'}"
    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", url)
    secrets_in_every_output(Ctx(Store("sqlite", url, url, db=home / "tracker.db"), home, tmp_path, Cli(home, capsys)))


def test_an_error_names_a_url_masked_by_the_configurations_rule() -> None:
    """The rule `config show` masks with masks a run's error too: a URL's
    password also where a client names the host without the scheme."""
    from pydantic import BaseModel

    from tracker.config.masking import masked, masked_detail, masked_text
    from tracker.logs import secret_values

    class Section(BaseModel):
        api_url: str

    section = Section(api_url="http://user:PASS-1234@host/prices?key=KEY-5678&token=TOK-9012")
    assert masked(section) == {"api_url": "http://user:***@host/prices?key=***&token=***"}
    assert sorted(secret_values(section)) == ["KEY-5678", "PASS-1234", "TOK-9012"]
    error = "invalid hostname: user:PASS-1234@host (http://user:PASS-1234@host/prices?key=KEY-5678&token=TOK-9012)"
    shown = masked_text(error)
    assert shown == "invalid hostname: user:***@host (http://user:***@host/prices?key=***&token=***"
    # Known, a secret is masked wherever it turns up again, outside any URL too.
    assert masked_text("the server said: KEY-5678 is not valid", secret_values(section)) == (
        "the server said: *** is not valid"
    )
    assert masked_detail({"reason": error, "attempts": 3})["reason"] == shown
    assert masked_text("at 12:30, git@github.com:org/repo") == "at 12:30, git@github.com:org/repo"


def test_an_error_recorded_before_masking_is_shown_masked(sqlite_cli, home: Path, tmp_path: Path) -> None:
    """A store written by an older version holds a reason in clear: every face masks it when it shows it."""
    from tests.web.conftest import serving

    password, key = "OldPass-4410q", "OldKey-2290r"
    error = f"invalid hostname: user:{password}@host (http://user:{password}@host/prices?key={key})"
    assert sqlite_cli("runs").code == 0  # the store, migrated
    url = f"sqlite:///{home / 'tracker.db'}"
    from datetime import UTC, datetime

    from sqlmodel import Session

    from db.schema import Change, ChangeKind, RunStatus
    from db.store.engine import make_engine
    from db.store.writes.runs import add_changes
    from db.tables import CrawlRun

    engine = make_engine(url)
    at = datetime(2026, 12, 1, 10, tzinfo=UTC)
    with Session(engine) as session:  # as an older version wrote it: below the pipeline, in clear
        run = CrawlRun(
            source="azure",
            provider="azure",
            spider="azure",
            mode="live",
            regions="",
            started_at=at,
            status=RunStatus.failed,
        )
        run.error, run.finished_at, run.changes = error, at, 1
        session.add(run)
        session.flush()
        broken = Change(kind=ChangeKind.source_broken, provider="azure", source="azure", observed_at=at)
        broken.detail = {"reason": error}
        add_changes(session=session, run_id=run.id, changes=[broken])
        session.commit()
    engine.dispose()
    shown = {
        " ".join(args): (lambda r: r.out + r.err)(sqlite_cli(*args))
        for args in (
            ("runs",),
            ("runs", "-f", "json"),
            ("changes", "-f", "json"),
            ("status",),
            ("alerts", "preview", "--family", "text"),
            ("alerts", "preview", "--family", "slack"),
        )
    }
    with serving(url, tmp_path) as served:
        for path in ("/", "/changes", "/sources", "/api/changes", "/api/sources", "/feeds/changes.atom"):
            page = served.get(path)
            assert page.status_code == 200, path
            shown[path] = page.text
    leaks = [where for where, text in shown.items() if password in text or key in text]
    assert not leaks, leaks
    assert "user:***@host" in shown["changes -f json"] and "key=***" in shown["alerts preview --family text"]
