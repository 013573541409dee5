"""Fault-matrix rows of issue 40: secrets in errors, the web app's edges, caches.

Each row is a `Fault` of `fault_matrix.py`; `rows_for` adds this module's `FAULTS`.

The dashboard is served for real (uvicorn in a thread, `tests/web/conftest.py`)
over the row's store; on PostgreSQL it reaches the server through the row's
TCP proxy, which can cut every connection it holds.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from tests.helpers.localserver import Received, Reply, serve
from tests.reliability.fault_matrix import EARLY, Ctx, Fault
from tests.web.conftest import serving

# --- helpers ------------------------------------------------------------------------


@contextmanager
def environment(**values: str) -> Iterator[None]:
    """These environment variables for the block, the old values after."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Lines(logging.Handler):
    """The log lines of one logger (the web's), as they would be written."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.getMessage()}")

    @contextmanager
    def of(self, name: str) -> Iterator[Lines]:
        logger = logging.getLogger(name)
        logger.addHandler(self)
        try:
            yield self
        finally:
            logger.removeHandler(self)


def _dump(ctx: Ctx, *tables: str) -> str:
    """Every row of these tables as text, as the store holds it."""
    engine = sa.create_engine(ctx.store.direct_url)
    try:
        with engine.connect() as conn:
            return "\n".join(repr(tuple(r)) for t in tables for r in conn.execute(sa.text(f"select * from {t}")))
    finally:
        engine.dispose()


# --- secrets in every output (issue 40.7) -----------------------------------------------

# One secret in each place a URL (or a key that ends up in one) can come from.
AZURE_PASSWORD = "AzPass-7731x"  # the config file: the password of [providers.azure] api_url
AZURE_KEY = "AzKey-5520y"  # the same URL's key=
AZURE_TOKEN = "AzTok-9913z"  # and its token=
GCP_URL_TOKEN = "GcpTok-4471v"  # an environment variable the file names: api_url = "${GCP_PRICES_URL}"
GCP_KEY = "GcpKey-8802u"  # a provider setting from the environment: $GPU_TRACKER_GCP_API_KEY
CHANNEL_TOKEN = "ChanTok-3310w"  # a [[channel]] URL
STORE_PASSWORD = "PgPass-6620t"  # $GPU_TRACKER_DATABASE_URL (PostgreSQL: the server trusts, the URL still has it)
SECRETS = (AZURE_PASSWORD, AZURE_KEY, AZURE_TOKEN, GCP_URL_TOKEN, GCP_KEY, CHANNEL_TOKEN, STORE_PASSWORD)
FAMILIES = ("slack", "wecom", "dingtalk", "feishu", "telegram", "email", "markdown", "text", "json")
WEB_PATHS = (
    "/",
    "/changes",
    "/changes?kind=source_broken",
    "/sources",
    "/api/changes",
    "/api/sources",
    "/feeds/changes.atom",
)


def _echo(req: Received) -> Reply:
    """A price API that refuses the key and quotes the request back, as some do."""
    message = f"API key not valid for {req.path}"
    body = {"error": {"code": 403, "message": message, "status": "PERMISSION_DENIED"}}
    return Reply(403, json.dumps(body).encode())


def _with_password(url: str) -> str:
    if not url.startswith("postgresql"):
        return url  # an SQLite store has no password
    scheme, _, rest = url.partition("://")
    user, _, host = rest.partition("@")
    return f"{scheme}://{user.split(':')[0]}:{STORE_PASSWORD}@{host}"


def secrets_in_every_output(ctx: Ctx) -> None:
    """Crawls fail on URLs that carry secrets; no output of any face holds one."""
    shown: dict[str, str] = {}
    store_url = _with_password(ctx.store.url)
    with serve(_echo) as (api, asked), serve(lambda r: Reply(200, b"{}")) as (hook, delivered):
        port = api.rsplit(":", 1)[1]
        path = ctx.home / "config.toml"
        path.write_text(
            '[crawl]\nretry_times = 0\ndownload_timeout = 5\n[daemon]\nsources = ["azure", "gcp"]\n'
            '[providers.azure]\nregions = ["westeurope"]\n'
            f'api_url = "http://tracker-user:{AZURE_PASSWORD}@127.0.0.1:{port}/prices'
            f'?key={AZURE_KEY}&token={AZURE_TOKEN}"\n'
            '[providers.gcp]\napi_url = "${GCP_PRICES_URL}"\n'
            f'[[channel]]\nname = "ops"\nurl = "json://{hook.removeprefix("http://")}/hook?token={CHANNEL_TOKEN}"\n'
            '[[rule]]\nname = "broken"\nwhen = ["source_broken"]\nchannels = ["ops"]\n',
            encoding="utf-8",
        )
        path.chmod(0o600)
        env = {
            "GCP_PRICES_URL": f"{api}/v1/services/X/skus?access_token={GCP_URL_TOKEN}",
            "GPU_TRACKER_GCP_API_KEY": GCP_KEY,
            "GPU_TRACKER_DATABASE_URL": store_url,
        }
        with environment(**env):
            for args in (
                ("crawl", "azure"),
                ("crawl", "gcp"),
                ("daemon", "--once"),  # the failures' second round: logged, not announced again
                ("daemon", "--once", "--log-format", "json"),
                ("runs",),
                ("runs", "-f", "json"),
                ("changes",),
                ("changes", "-f", "json"),
                ("status",),
                ("status", "-f", "json"),
                ("alerts", "outbox"),
                ("alerts", "deliver"),
                *(("alerts", "preview", "--family", family) for family in FAMILIES),
                ("config", "show"),
            ):
                result = ctx.cli(*args)
                shown[" ".join(args)] = result.out + result.err
        assert GCP_KEY in asked[0].path and GCP_URL_TOKEN in asked[0].path  # really sent: it could have leaked
        shown["the channel received"] = "\n".join(r.body.decode() for r in delivered)
        assert len(delivered) == 2, shown["the channel received"]  # one source_broken each
    shown["the store's rows"] = _dump(ctx, "crawl_runs", "changes", "alert_outbox")
    with Lines().of("gpu_tracker") as log, serving(store_url, ctx.home) as served:
        for web_path in WEB_PATHS:
            page = served.get(web_path)
            assert page.status_code == 200, (web_path, page.text[:300])
            shown[web_path] = page.text
    shown["the web's log"] = "\n".join(log.lines)
    leaks = [(where, secret) for where, text in shown.items() for secret in SECRETS if secret in text]
    assert not leaks, leaks
    # Not vacuous: each failure is shown, masked.
    assert "invalid hostname: tracker-user:***@127.0.0.1" in shown["/sources"], shown["/sources"]
    # Masked by the configuration's rule (***) or already by the crawler's, as its captures write it (REDACTED).
    assert re.search(r"key=(?:\*\*\*|REDACTED)&amp;token=(?:\*\*\*|REDACTED)", shown["/changes"])
    assert (
        re.search(r"access_token=(?:\*\*\*|REDACTED)", shown["changes -f json"]) and "HTTP 403" in shown["runs -f json"]
    )
    assert "tracker-user:***@" in shown["alerts preview --family text"]
    assert "gcp: run" in shown["daemon --once"] and '"level": "error"' in shown["daemon --once --log-format json"]


# --- the web app's edges (issue 40.8) ---------------------------------------------------------


def blank_or_short_token(ctx: Ctx) -> None:
    """`serve` refuses a token of spaces or of fewer than 16 characters, in one sentence."""
    for token, said in (("   ", "is blank"), ("only-15-chars-x", "has 15 characters")):
        with environment(GPU_TRACKER_WEB_TOKEN=token):
            result = ctx.cli("serve", "--host", "0.0.0.0", "--port", "0")
        assert result.code == 1, result.err
        assert f"the dashboard's token ($GPU_TRACKER_WEB_TOKEN) {said}" in result.err, result.err
        assert "at least 16 characters" in result.err and "Traceback" not in result.err
        assert len(result.err.strip().splitlines()) == 1, result.err
    (ctx.home / "config.toml").write_text('[web]\ntoken = "  "\n', encoding="utf-8")
    (ctx.home / "config.toml").chmod(0o600)
    result = ctx.cli("serve", "--port", "0")
    assert result.code == 1 and "the dashboard's token ([web] token) is blank" in result.err, result.err


PATHS_12 = (
    "/",
    "/prices",
    "/changes",
    "/offers",
    "/sources",
    "/recommend?gpus=1",
    "/api/prices",
    "/api/changes",
    "/api/sources",
    "/api/compare?gpu=A100",
    "/feeds/changes.atom",
    "/api/prices?gpu=A100",
)

# Answers asked for the first time (a URL of its own, so none is kept): each asks the store.
ANSWERED_FROM_THE_STORE = tuple(
    f"{path}{n}" for n, path in enumerate(["/api/prices?limit=", "/api/changes?limit=", "/prices?gpu=A1"] * 2, 7)
)


def connections_cut_while_serving(ctx: Ctx) -> None:
    """The store's connections are cut while the dashboard serves (as
    `pg_terminate_backend` or a restarted server does): between requests
    (the pool's connections are dead when taken), at the first statement of
    each of 12 requests (the connection dies in use), and every 50 ms while
    12 run at once. Every request is answered, none is a 500."""
    proxy = ctx.store.proxy
    assert proxy is not None
    assert ctx.cli("crawl", "azure", "-r", "westeurope", "--replay", str(EARLY)).code == 0
    codes: list[tuple[str, int]] = []
    armed = threading.Event()

    def cut() -> None:
        proxy.down()
        proxy.up()

    def cut_in_use(*_: Any) -> None:
        if armed.is_set():
            armed.clear()
            cut()  # this statement's connection too: it fails on a dead socket

    with Lines().of("gpu_tracker.web") as log, serving(ctx.store.url, ctx.home) as served:
        sa.event.listen(served.app.state.answers.engine, "before_cursor_execute", cut_in_use)
        with ThreadPoolExecutor(12) as pool:

            def round_of_12() -> list[tuple[str, int]]:
                return list(zip(PATHS_12, (r.status_code for r in pool.map(served.get, PATHS_12)), strict=True))

            assert all(code == 200 for _, code in round_of_12())  # the pool holds a connection per request
            cut()
            codes += round_of_12()
            before = len(log.lines)
            for path in ANSWERED_FROM_THE_STORE:  # each dies in use at its first statement
                armed.set()
                codes.append((path, served.get(path).status_code))
            # Not vacuous: each met a dead connection, and was asked again.
            assert sum("asked again" in line for line in log.lines[before:]) >= len(ANSWERED_FROM_THE_STORE), (
                codes,
                log.lines[before:],
            )
            stop = threading.Event()

            def cutting() -> None:
                while not stop.wait(0.05):
                    cut()

            cutter = threading.Thread(target=cutting)
            cutter.start()
            try:
                for _ in range(3):
                    codes += round_of_12()
            finally:
                stop.set()
                cutter.join()
    failed = [(p, c) for p, c in codes if c != 200]
    assert not failed, (failed, log.lines)
    assert not [line for line in log.lines if line.startswith("ERROR")], log.lines


# --- caches that miss a change (issue 40.10) -------------------------------------------------------

TAGGED = ("/", "/changes", "/api/changes?order=desc", "/api/sources", "/feeds/changes.atom")


def change_without_a_run(ctx: Ctx) -> None:
    """A source_stale the daemon writes (no run) moves the tag of every answer that shows changes."""
    from db.store.engine import make_engine
    from tracker.config.settings import load_config
    from tracker.daemon.health import check_staleness
    from tracker.web.answers import VERSION_SECONDS

    assert ctx.cli("crawl", "azure", "-r", "westeurope", "--replay", str(EARLY)).code == 0
    with serving(ctx.store.url, ctx.home) as served:
        first = {p: served.get(p) for p in TAGGED}
        for p, answer in first.items():
            assert answer.status_code == 200, p
            again = served.get(p, headers={"If-None-Match": answer.headers["etag"]})
            assert again.status_code == 304, p  # nothing moved: the tag holds
        now = datetime.now(UTC)
        engine = make_engine(ctx.store.direct_url)
        raised = check_staleness(
            engine, load_config(None, home=ctx.home), ["azure"], now=now + timedelta(days=2), watching_since=now
        )
        engine.dispose()
        assert [str(c.kind) for c in raised] == ["source_stale"]
        time.sleep(VERSION_SECONDS + 0.5)  # the store's version is looked up at most that often
        for p, answer in first.items():
            moved = served.get(p, headers={"If-None-Match": answer.headers["etag"]})
            assert moved.status_code == 200 and moved.headers["etag"] != answer.headers["etag"], p
            if p != "/api/sources":  # the one listing without changes: its tag moved all the same
                assert _stale(moved.text) > _stale(answer.text), (p, moved.text[:500])


def _stale(text: str) -> int:
    return text.count("source_stale") + text.count("Source stale")


FAULTS: list[Fault] = [
    Fault(
        "crawls fail on URLs with a password, key= and token= from the file, the environment and provider settings",
        "no secret in any output: the CLI's stdout and stderr, both log formats, runs, changes, status, the outbox, "
        "every family's alert preview, what the channel receives, the store's rows, every page, the API, the feed",
        secrets_in_every_output,
    ),
    Fault(
        "a token of spaces or shorter than 16 characters (environment or file)",
        "serve refuses to start, in one sentence naming where the token comes from",
        blank_or_short_token,
    ),
    Fault(
        "the store's connections are cut while the dashboard serves (between and during requests)",
        "every request answered, none a 500; a failure would log its reason",
        connections_cut_while_serving,
        ("postgres",),
    ),
    Fault(
        "the daemon writes a source_stale (a change without a run)",
        "/, /changes, /api/changes, /api/sources and the feed answer the new list, not 304",
        change_without_a_run,
    ),
]
