"""Serving the app with uvicorn: in the foreground (`gpu-tracker serve`), in a
process of its own that the daemon starts and stops ([web] enabled), or in a
thread (tests, screenshots). A bind to an address other than loopback needs
a token or a user and password, or it does not start.

The daemon's dashboard runs in its own process so that no page, however
many are asked at once, takes CPU time or the interpreter's lock from a
crawl or a delivery: the daemon shares with it only its health (a number
in shared memory) and stops it when it stops; the process ends by itself
when the daemon dies."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tracker.config.web import PASSWORD_ENV, TOKEN_ENV, WebSettings, is_loopback
from tracker.errors import UserError

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess
    from multiprocessing.sharedctypes import Synchronized
    from multiprocessing.synchronize import Event

    import sqlalchemy as sa
    import uvicorn
    from fastapi import FastAPI

    from tracker.config.settings import Config

log = logging.getLogger("gpu_tracker.web")


# The dashboard's libraries (pyproject.toml's dependencies): without them it cannot start.
LIBRARIES = ("fastapi", "uvicorn", "jinja2")


def check_libraries() -> None:
    """One sentence naming what to install when a library of the dashboard is missing."""
    import importlib.util

    missing = [name for name in LIBRARIES if importlib.util.find_spec(name) is None]
    if missing:
        raise UserError(
            f"the dashboard needs {', '.join(missing)}, which this Python lacks: "
            f"pip install {' '.join(LIBRARIES)} installs its libraries (a clone's pip install -e . does too)"
        )


def check_bind(settings: WebSettings) -> None:
    """Refuse an open bind without credentials, or credentials that guard
    nothing (a blank or short token): one sentence, before anything listens."""
    problem = settings.credential_problem()
    if problem is not None:
        raise UserError(problem)
    if not is_loopback(settings.host) and settings.secret() is None and settings.basic() is None:
        raise UserError(
            f"refusing to serve on {settings.host} without a token: set [web] token (or ${TOKEN_ENV}), "
            f"or [web] user and password (or ${PASSWORD_ENV}), or bind to 127.0.0.1"
        )


# Page cache per SQLite connection of the server: a page of answers reads little,
# and each of the pool's connections would otherwise keep the store's 64 MB.
READ_CACHE_KB = 8192


def read_engine(engine: sa.Engine) -> sa.Engine:
    """An engine of its own on the same store for the app's reads (the daemon's
    writes keep theirs), with a smaller SQLite page cache."""
    import sqlalchemy as sa

    from db.store.engine import make_engine

    found = make_engine(engine.url.render_as_string(hide_password=False))
    if found.dialect.name == "sqlite":

        def smaller_cache(dbapi_conn: object, _record: object) -> None:
            cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
            cur.execute(f"PRAGMA cache_size=-{READ_CACHE_KB}")
            cur.close()

        sa.event.listen(found, "connect", smaller_cache)
    return found


def build_app(engine: sa.Engine, config: Config, healthy: Callable[[], bool] | None = None) -> FastAPI:
    from tracker.web.answers import Answers
    from tracker.web.app import create_app

    return create_app(Answers(read_engine(engine), config), config.web, healthy)


# Answers worked out at once, each in a thread (the routes are synchronous);
# more wait their turn. On two cores more threads only contend for the
# interpreter's lock, and each holds one of the store pool's 15 connections.
# An answer kept per ETag (tracker/web/cache.py) needs no thread.
THREADS = 8


def server(app: FastAPI, settings: WebSettings) -> uvicorn.Server:
    import socket

    import anyio.to_thread
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            anyio.to_thread.current_default_thread_limiter().total_tokens = THREADS
            await super().startup(sockets)

    check_bind(settings)
    app.state.settings = settings  # what the app checks and shows: the host and port it runs with
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,  # our logging (tracker/logs.py) is in force
        access_log=False,
        server_header=False,
        proxy_headers=False,
        lifespan="off",
    )
    found = Server(config)
    # In a thread (the daemon's) uvicorn listens to no signal: the daemon owns them.
    return found


def start_in_thread(app: FastAPI, settings: WebSettings) -> tuple[uvicorn.Server, threading.Thread]:
    """The server running in a daemon thread, started (or a UserError when it cannot listen)."""
    found = server(app, settings)
    thread = threading.Thread(target=found.run, name="web", daemon=True)
    thread.start()
    while not found.started and thread.is_alive():
        time.sleep(0.05)
    if not found.started:
        raise UserError(
            f"cannot serve the dashboard on {settings.host}:{settings.port}: the address is in use or not ours"
        )
    log.info("dashboard on http://%s:%d/", settings.host, settings.port)
    return found, thread


def stop(found: uvicorn.Server, thread: threading.Thread) -> None:
    found.should_exit = True
    thread.join(timeout=10)


# --- the daemon's dashboard, in a process of its own ----------------------------

# The daemon writes its health here this often; older than HEALTH_TTL, the
# dashboard's /healthz says the scheduler is not running.
HEALTH_EVERY = 1.0
HEALTH_TTL = 5.0
# The dashboard's CPU priority below the daemon's (nice 10): when the cores
# are busy, the crawls and deliveries run first and the pages wait.
NICENESS = 10
START_SECONDS = 120.0
STOP_SECONDS = 10.0


@dataclass(frozen=True)
class Logs:
    """The daemon's logging, set up again in the dashboard's process."""

    fmt: str
    level: int
    secrets: tuple[str, ...] = ()


class WebProcess:
    """The dashboard served by a child process; `stop()` ends it."""

    def __init__(self, process: BaseProcess, health: Synchronized[float], healthy: Callable[[], bool]) -> None:
        self.process = process
        self._health = health
        self._healthy = healthy
        self._done = threading.Event()
        self._beat = threading.Thread(target=self._report, name="web-health", daemon=True)
        self._beat.start()

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def _report(self) -> None:
        while not self._done.is_set():
            try:
                alive = self._healthy()
            except Exception:  # the scheduler's state could not be read: not healthy
                alive = False
            self._health.value = time.monotonic() if alive else 0.0
            self._done.wait(HEALTH_EVERY)

    def stop(self) -> None:
        """SIGTERM (uvicorn finishes the requests in flight), then SIGKILL after STOP_SECONDS."""
        self._done.set()
        self._health.value = 0.0
        if self.process.is_alive():
            self.process.terminate()
        self.process.join(STOP_SECONDS)
        if self.process.is_alive():
            log.warning("the dashboard did not stop in %d s: killed", STOP_SECONDS)
            self.process.kill()
            self.process.join(STOP_SECONDS)


def start_process(url: str, config: Config, logs: Logs, healthy: Callable[[], bool]) -> WebProcess:
    """The dashboard over the store at `url` in a process of its own, listening
    (or a UserError when it cannot listen); /healthz answers `healthy()` of
    this process. A spawned process: nothing of the daemon's threads, locks
    or connections is copied into it."""
    import multiprocessing as mp

    check_bind(config.web)
    ctx = mp.get_context("spawn")
    health = ctx.Value("d", 0.0, lock=False)
    started = ctx.Event()
    process = ctx.Process(
        target=_serve_in_child, args=(url, config, logs, health, started), name="gpu-tracker-web", daemon=True
    )
    process.start()
    running = WebProcess(process, health, healthy)
    deadline = time.monotonic() + START_SECONDS
    while not started.wait(0.1):
        if not process.is_alive() or time.monotonic() > deadline:
            running.stop()
            settings = config.web
            raise UserError(
                f"cannot serve the dashboard on {settings.host}:{settings.port}: "
                "the address is in use or not ours (the log above says more)"
            )
    log.info("dashboard on http://%s:%d/ (process %d)", config.web.host, config.web.port, process.pid)
    return running


def _serve_in_child(url: str, config: Config, logs: Logs, health: Synchronized[float], started: Event) -> None:
    """The dashboard process: serves until SIGTERM, or until the daemon is gone."""
    import multiprocessing as mp

    from db.store.engine import make_engine
    from tracker.logs import setup_logging

    os.nice(NICENESS)
    without_pyarrow()
    setup_logging(logs.fmt, logs.level, logs.secrets)

    def healthy() -> bool:
        return time.monotonic() - health.value < HEALTH_TTL

    engine = make_engine(url)
    found = server(build_app(engine, config, healthy), config.web)
    parent = mp.parent_process()
    assert parent is not None and parent.sentinel is not None  # a spawned child has one

    def watch(sentinel: int) -> None:
        # The daemon gone (even killed with SIGKILL): stop serving, at once.
        while not found.started:
            if _gone(sentinel, 0.05):
                os._exit(0)
        started.set()
        _gone(sentinel, None)
        log.info("the daemon is gone: the dashboard stops")
        found.should_exit = True
        time.sleep(STOP_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, args=(parent.sentinel,), name="web-watch", daemon=True).start()
    warm_up()
    found.run()  # in the main thread: uvicorn ends on SIGTERM and SIGINT
    if not found.started:
        sys.exit(3)


def _gone(sentinel: int, timeout: float | None) -> bool:
    from multiprocessing.connection import wait

    return bool(wait([sentinel], timeout))


# What the pages load on their first asking (pandas, the analytics): loaded
# in the background as the server starts, so that the first page asked of
# a new process does not wait seconds for them.
WARM = (
    "pandas",
    "sqlmodel",
    "tracker.analytics.history",
    "tracker.analytics.compare",
    "tracker.analytics.points",
    "tracker.analytics.recommend.store",
    "tracker.config.masking",
    "db.store.writes.offers",
)


def warm_up() -> None:
    """Load WARM in a thread of its own."""
    import importlib

    def load() -> None:
        for name in WARM:
            try:
                importlib.import_module(name)
            except Exception:  # its page says what is wrong when asked
                log.debug("warming: %s did not load", name, exc_info=True)

    threading.Thread(target=load, name="web-warm", daemon=True).start()


def without_pyarrow() -> None:
    """The server writes no Parquet: pandas without pyarrow (which pandas 3
    loads when it can, for its string columns) keeps 35 MB out of the
    process; strings are then held by Python, with the same values."""
    if "pandas" not in sys.modules:
        sys.modules.setdefault("pyarrow", None)  # type: ignore[arg-type]
