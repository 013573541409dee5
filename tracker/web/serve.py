"""Serving the app with uvicorn: in the foreground (`gpu-tracker serve`) or in
a thread of the daemon ([web] enabled). A bind to an address other than
loopback needs a token or a user and password, or it does not start."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracker.config.web import PASSWORD_ENV, TOKEN_ENV, WebSettings, is_loopback
from tracker.errors import UserError

if TYPE_CHECKING:
    import sqlalchemy as sa
    import uvicorn
    from fastapi import FastAPI

    from tracker.config.settings import Config

log = logging.getLogger("gpu_tracker.web")


def check_bind(settings: WebSettings) -> None:
    """Refuse an open bind without credentials: one sentence, before anything listens."""
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


def server(app: FastAPI, settings: WebSettings) -> uvicorn.Server:
    import uvicorn

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
    found = uvicorn.Server(config)
    # In a thread (the daemon's) uvicorn listens to no signal: the daemon owns them.
    return found


def start_in_thread(app: FastAPI, settings: WebSettings) -> tuple[uvicorn.Server, threading.Thread]:
    """The server running in a daemon thread, started (or a UserError when it cannot listen)."""
    import time

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
