"""The web app's edges (issue 40.8, 40.10): a blank or short token refused at
start; /sources shows the settings the server runs with; a failure's reason
on its log line; a connection the store drops while in use asked again; the
ETag moved by every write an answer shows, and by the clock where the answer
follows it."""

from __future__ import annotations

import logging
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from pydantic import SecretStr

from tests.helpers.stores import DemoRun
from tests.web.conftest import serving
from tracker.config.web import WebSettings
from tracker.errors import UserError

TOKEN = "t0ken-for-the-dashboard-7781"


@pytest.fixture
def demo_store(demo_run: DemoRun, tmp_path: Path) -> str:
    shutil.copyfile(demo_run.home / "tracker.db", tmp_path / "tracker.db")
    return f"sqlite:///{tmp_path / 'tracker.db'}"


def _app(tmp_path: Path, web: WebSettings) -> object:
    from db.store.engine import make_engine
    from tracker.config.settings import Config
    from tracker.web.answers import Answers
    from tracker.web.app import create_app

    config = Config(home=tmp_path)
    return create_app(Answers(make_engine(f"sqlite:///{tmp_path / 'none.db'}"), config), web)


@pytest.mark.parametrize(
    ("web", "env", "said"),
    [
        (WebSettings(token=SecretStr("   ")), None, "the dashboard's token ([web] token) is blank"),
        (WebSettings(), "   ", "the dashboard's token ($GPU_TRACKER_WEB_TOKEN) is blank"),
        (WebSettings(), "\t\n", "the dashboard's token ($GPU_TRACKER_WEB_TOKEN) is blank"),
        (WebSettings(host="0.0.0.0"), "only-15-chars-x", "($GPU_TRACKER_WEB_TOKEN) has 15 characters"),
        (WebSettings(token=SecretStr("  padded-short  ")), None, "([web] token) has 12 characters"),
        (WebSettings(user="ops", password=SecretStr("  ")), None, "the dashboard's password ([web] password) is blank"),
    ],
)
def test_a_blank_or_short_token_is_refused_at_start(
    web: WebSettings, env: str | None, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPU_TRACKER_WEB_PASSWORD", raising=False)
    if env is None:
        monkeypatch.delenv("GPU_TRACKER_WEB_TOKEN", raising=False)
    else:
        monkeypatch.setenv("GPU_TRACKER_WEB_TOKEN", env)
    with pytest.raises(UserError) as refused:
        _app(tmp_path, web)
    message = str(refused.value)
    assert said in message and "\n" not in message, message
    assert env is None or not env.strip() or env not in message  # the token itself is never said


def test_a_token_of_16_characters_or_more_serves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_TRACKER_WEB_TOKEN", "sixteen-chars-ok")
    _app(tmp_path, WebSettings(host="0.0.0.0"))
    monkeypatch.delenv("GPU_TRACKER_WEB_TOKEN")
    _app(tmp_path, WebSettings())  # no token on loopback: nothing to refuse
    _app(tmp_path, WebSettings(user="ops", password=SecretStr("pass-4451")))  # a password's length is its owner's


def test_serve_refuses_a_token_of_spaces_in_one_sentence(sqlite_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_TRACKER_WEB_TOKEN", "   ")
    done = sqlite_cli("serve", "--host", "0.0.0.0", "--port", "0")
    assert done.code == 1
    assert "the dashboard's token ($GPU_TRACKER_WEB_TOKEN) is blank" in done.err, done.err
    assert "Traceback" not in done.err and len(done.err.strip().splitlines()) == 1


def test_sources_shows_the_settings_the_server_runs_with(
    demo_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file says [web] host ::1 and port 1; the server runs on 127.0.0.1 and
    another port (as `serve --host --port` or the daemon's --web-host make it),
    with the token from the environment: the page says what is in force."""
    from db.store.engine import make_engine
    from tracker.config.settings import Config, StoreSettings
    from tracker.web.screenshots import free_port
    from tracker.web.serve import build_app, start_in_thread, stop

    monkeypatch.setenv("GPU_TRACKER_WEB_TOKEN", TOKEN)
    config = Config(home=tmp_path, store=StoreSettings(url=demo_store), web=WebSettings(host="::1", port=1))
    port = free_port()
    running = start_in_thread(
        build_app(make_engine(demo_store), config), config.web.model_copy(update={"host": "127.0.0.1", "port": port})
    )
    try:
        page = httpx.get(f"http://127.0.0.1:{port}/sources", headers={"Authorization": f"Bearer {TOKEN}"})
    finally:
        stop(*running)
    assert page.status_code == 200
    assert "<dt>web.host</dt><dd><code>127.0.0.1</code></dd>" in page.text, page.text[-2000:]
    assert f"<dt>web.port</dt><dd><code>{port}</code></dd>" in page.text
    assert "a token from $GPU_TRACKER_WEB_TOKEN" in page.text and TOKEN not in page.text
    assert "::1" not in page.text


def test_a_failure_says_its_reason_on_its_log_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "empty.db").write_bytes(b"")
    with caplog.at_level(logging.INFO, "gpu_tracker.web"), serving(f"sqlite:///{tmp_path / 'empty.db'}", tmp_path) as s:
        answer = s.get("/api/prices")
    assert answer.status_code == 500
    assert answer.json() == {"error": "the server could not answer this; its log says why"}
    failed = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage() for r in failed] == [
        "web: GET /api/prices failed: OperationalError: no such table: price_points"
    ]
    assert not failed[0].exc_info  # the traceback only with --debug


@pytest.mark.postgres
def test_a_connection_the_store_drops_in_use_is_asked_again(
    pg_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Each request's connection is terminated by the server at its first
    statement (`pg_terminate_backend`, as an operator or a restart does):
    the pool's ping before use cannot see it; the read is asked again."""
    from db.store.engine import make_engine, migrate
    from tests.conftest import PG_URL

    migrate(make_engine(pg_url))
    admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    armed: list[bool] = []

    def terminate(conn: sa.Connection, *_: object) -> None:
        if armed:
            armed.pop()
            with admin.connect() as other:
                pid = conn.connection.dbapi_connection.info.backend_pid  # type: ignore[union-attr]
                other.execute(sa.text("select pg_terminate_backend(:pid)"), {"pid": pid})

    paths = [
        "/api/changes?limit=5",
        "/api/prices?limit=5",
        "/changes?provider=x",
        "/prices?gpu=Z",
        "/api/changes?limit=6",
    ]
    with caplog.at_level(logging.INFO, "gpu_tracker.web"), serving(pg_url, tmp_path) as served:
        sa.event.listen(served.app.state.answers.engine, "before_cursor_execute", terminate)
        for path in paths:
            armed.append(True)
            answer = served.get(path)
            assert answer.status_code == 200, (path, answer.text[:300])
            assert not armed, path  # the connection really died under it
    admin.dispose()
    again = [r.getMessage() for r in caplog.records if "asked again" in r.getMessage()]
    assert len(again) == len(paths) and "terminating connection due to administrator command" in again[0], again
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_change_without_a_run_moves_the_tags(demo_store: str, tmp_path: Path) -> None:
    from db.store.engine import make_engine
    from tracker.config.settings import Config
    from tracker.daemon.health import check_staleness
    from tracker.web.answers import VERSION_SECONDS

    paths = ["/", "/changes", "/api/changes?order=desc", "/api/sources", "/feeds/changes.atom"]
    with serving(demo_store, tmp_path) as served:
        first = {p: served.get(p) for p in paths}
        for p, answer in first.items():
            assert served.get(p, headers={"If-None-Match": answer.headers["etag"]}).status_code == 304, p
        now = datetime.now(UTC)
        engine = make_engine(demo_store)
        raised = check_staleness(
            engine, Config(home=tmp_path), ["azure"], now=now + timedelta(days=2), watching_since=now
        )
        engine.dispose()
        assert [str(c.kind) for c in raised] == ["source_stale"]
        time.sleep(VERSION_SECONDS + 0.5)
        for p, answer in first.items():
            moved = served.get(p, headers={"If-None-Match": answer.headers["etag"]})
            assert moved.status_code == 200 and moved.headers["etag"] != answer.headers["etag"], p
        assert "source_stale" in served.get("/api/changes?order=desc&limit=1").json()[0]["kind"]


def test_a_page_that_follows_the_clock_has_a_tag_of_the_minute(
    demo_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source's age and staleness move with the clock, not with the store:
    their tag holds the minute; the prices' does not."""
    import tracker.web.app as web_app

    class Later(datetime):
        @classmethod
        def now(cls, tz: object = None) -> datetime:  # type: ignore[override]
            return datetime.now(UTC) + timedelta(minutes=5)

    with serving(demo_store, tmp_path) as served:
        before = {p: served.get(p).headers["etag"] for p in ("/sources", "/api/sources", "/", "/api/prices")}
        monkeypatch.setattr(web_app, "datetime", Later)
        after = {p: served.get(p).headers["etag"] for p in before}
        week = served.get("/api/changes?since=7d").headers["etag"]
        monkeypatch.setattr(web_app, "datetime", datetime)
        assert served.get("/api/changes?since=7d").headers["etag"] != week  # a span back from now
    assert [p for p in before if before[p] != after[p]] == ["/sources", "/api/sources", "/"]
