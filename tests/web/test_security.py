"""Safe by default: loopback unless told, a token for anything else, read-only,
a strict Content-Security-Policy, secrets masked, one sentence for any failure;
labels in the browser's language; and the daemon serving the same app."""

from __future__ import annotations

import base64
import re
import shutil
import signal
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from tests.helpers.stores import DemoRun
from tests.web.conftest import serving
from tracker.config.web import WebSettings
from tracker.errors import UserError
from tracker.web.labels import choose
from tracker.web.serve import check_bind

TOKEN = "t0ken-for-the-dashboard-7781"
PAGES = ["/", "/prices", "/changes", "/offers", "/recommend", "/sources", "/instances/aws/p5.48xlarge"]


@pytest.fixture
def demo_store(demo_run: DemoRun, tmp_path: Path) -> str:
    shutil.copyfile(demo_run.home / "tracker.db", tmp_path / "tracker.db")
    return f"sqlite:///{tmp_path / 'tracker.db'}"


def test_an_open_bind_needs_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_WEB_TOKEN", raising=False)
    monkeypatch.delenv("GPU_TRACKER_WEB_PASSWORD", raising=False)
    check_bind(WebSettings())  # loopback: no token needed
    check_bind(WebSettings(host="::1"))
    with pytest.raises(UserError, match=r"refusing to serve on 0\.0\.0\.0 without a token"):
        check_bind(WebSettings(host="0.0.0.0"))
    with pytest.raises(UserError, match="without a token"):
        check_bind(WebSettings(host="10.0.0.5", user="ops"))  # a user without a password is no credential
    check_bind(WebSettings(host="0.0.0.0", token=SecretStr(TOKEN)))
    check_bind(WebSettings(host="0.0.0.0", user="ops", password=SecretStr("pw-12345")))
    monkeypatch.setenv("GPU_TRACKER_WEB_TOKEN", TOKEN)
    check_bind(WebSettings(host="0.0.0.0"))


def test_serve_refuses_an_open_bind_in_one_sentence(sqlite_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_WEB_TOKEN", raising=False)
    done = sqlite_cli("serve", "--host", "0.0.0.0", "--port", "0")
    assert done.code == 1
    assert "refusing to serve on 0.0.0.0 without a token" in done.err
    assert "Traceback" not in done.err and len(done.err.strip().splitlines()) <= 2


def test_a_token_guards_every_page_but_health(demo_store: str, tmp_path: Path) -> None:
    with serving(demo_store, tmp_path, token=SecretStr(TOKEN)) as served:
        refused = served.get("/api/prices")
        assert refused.status_code == 401 and "token" in refused.json()["error"]
        assert refused.headers["www-authenticate"].startswith("Basic")
        page = served.get("/")
        assert page.status_code == 401 and TOKEN not in page.text
        assert served.get("/api/prices", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert served.get("/api/prices", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        basic = base64.b64encode(f"anyone:{TOKEN}".encode()).decode()
        assert served.get("/prices", headers={"Authorization": f"Basic {basic}"}).status_code == 200
        assert served.get("/prices", headers={"Authorization": "Basic %%%"}).status_code == 401
        assert served.get("/healthz").status_code == 200
        # The settings page says what guards the server and where from: the token never.
        sources = served.get("/sources", headers={"Authorization": f"Bearer {TOKEN}"})
        assert sources.status_code == 200 and TOKEN not in sources.text and "a token from [web] token" in sources.text


def test_basic_auth_with_a_user(demo_store: str, tmp_path: Path) -> None:
    with serving(demo_store, tmp_path, user="ops", password=SecretStr("pass-4451")) as served:
        good = base64.b64encode(b"ops:pass-4451").decode()
        bad = base64.b64encode(b"ops:nope").decode()
        assert served.get("/", headers={"Authorization": f"Basic {good}"}).status_code == 200
        assert served.get("/", headers={"Authorization": f"Basic {bad}"}).status_code == 401


def test_pages_are_strict_read_only_and_mask_the_store(demo_store: str, tmp_path: Path) -> None:
    with serving(demo_store, tmp_path) as served:
        for path in PAGES:
            page = served.get(path)
            assert page.status_code == 200, (path, page.text[:300])
            csp = page.headers["content-security-policy"]
            assert "script-src 'none'" in csp and "default-src 'none'" in csp
            assert page.headers["x-content-type-options"] == "nosniff"
            assert "<script" not in page.text and "style=" not in page.text, path
            # Its assets are its own: nothing is loaded from another host (works offline).
            assert not re.search(r'<link[^>]+href="(https?:)?//', page.text) and not re.search(
                r'src="(https?:)?//', page.text
            )
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            answer = httpx.request(method, served.base + "/prices")
            assert answer.status_code == 405 and "read-only" in answer.text
        css = served.get("/static/app.css")
        assert css.status_code == 200 and "max-age=86400" in css.headers["cache-control"]


def test_secrets_in_the_store_url_are_masked(demo_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from db.store.engine import make_engine
    from tracker.config.settings import Config, StoreSettings
    from tracker.web.screenshots import free_port
    from tracker.web.serve import build_app, start_in_thread, stop

    monkeypatch.delenv("GPU_TRACKER_DATABASE_URL", raising=False)
    secret = "hunter2-store-password"
    config = Config(
        home=tmp_path,
        store=StoreSettings(url=f"postgresql+psycopg://tracker:{secret}@db.example/gpu"),
        web=WebSettings(port=free_port()),
    )
    running = start_in_thread(build_app(make_engine(demo_store), config), config.web)
    try:
        page = httpx.get(f"http://127.0.0.1:{config.web.port}/sources")
    finally:
        stop(*running)
    assert page.status_code == 200
    assert secret not in page.text and "tracker:***@db.example/gpu" in page.text


def test_bad_parameters_on_pages_are_one_sentence(demo_store: str, tmp_path: Path) -> None:
    with serving(demo_store, tmp_path) as served:
        for path, says in [
            ("/prices?price_model=free", "price_model=&#39;free&#39; is not one of"),
            ("/prices?page=0", "page=&#39;0&#39; must be a whole number"),
            ("/prices?page=99999", "is past the last page"),
            ("/changes?since=someday", "is not a date"),
            ("/recommend?gpus=2.5", "must be a whole number of GPUs"),
            ("/instances/aws/no-such-type", "no prices recorded for aws no-such-type"),
            ("/?currency=euros", "is not a 3-letter currency code"),
        ]:
            page = served.get(path)
            assert page.status_code == 400, path
            assert says in page.text, (path, page.text)
            assert "Traceback" not in page.text
        missing = served.get("/nowhere")
        assert missing.status_code == 404 and "nothing at /nowhere" in missing.text


def test_a_broken_store_is_a_sentence_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "empty.db").write_bytes(b"")
    with serving(f"sqlite:///{tmp_path / 'empty.db'}", tmp_path) as served:
        answer = served.get("/api/prices")
        assert answer.status_code == 500
        assert answer.json() == {"error": "the server could not answer this; its log says why"}
        assert served.get("/healthz").status_code == 503


def test_labels_follow_the_browsers_language(demo_store: str, tmp_path: Path) -> None:
    assert choose("zh-CN,zh;q=0.9,en;q=0.8") == "zh"
    assert choose("en-US,en;q=0.9,zh-CN;q=0.8") == "en"
    assert choose("fr-FR, zh-Hans;q=0.5") == "zh"
    assert choose("fr, de;q=0.5") == "en" and choose(None) == "en" and choose("zh;q=0, en") == "en"
    with serving(demo_store, tmp_path) as served:
        zh = served.get("/prices", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
        assert '<html lang="zh-Hans">' in zh.text and "当前价格" in zh.text and "云厂商" in zh.text
        en = served.get("/prices", headers={"Accept-Language": "en-GB"})
        assert '<html lang="en">' in en.text and "Current prices" in en.text
        assert "Accept-Language" in en.headers["vary"]
        assert zh.headers["etag"] != en.headers["etag"]


@pytest.mark.slow
def test_the_daemon_serves_the_dashboard_with_its_own_health(home: Path) -> None:
    from tests.helpers.daemonutil import daemon, fake_azure, free_port, runs, wait_for

    port = free_port()
    url = f"sqlite:///{home / 'tracker.db'}"
    with fake_azure() as fake:
        (home / "config.toml").write_text(fake.config() + f"\n[web]\nenabled = true\nport = {port}\n")
        with daemon(home) as d:
            base = f"http://127.0.0.1:{port}"
            wait_for(lambda: [r for r in runs(url) if r.status == "ok"], 60, "a first complete run")
            health = httpx.get(base + "/healthz")
            assert (health.status_code, health.text) == d.get("/healthz") == (200, "ok\n")
            sources = httpx.get(base + "/api/sources").json()
            assert [s["source"] for s in sources] == ["azure"] and sources[0]["last_ok_at"]
            assert httpx.get(base + "/prices").status_code == 200
            assert d.stop(signal.SIGTERM, timeout=30) == 0
    with pytest.raises(httpx.ConnectError):
        httpx.get(base + "/healthz", timeout=2)
