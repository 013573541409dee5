"""The dashboard served for real: uvicorn on a free loopback port in a thread,
over a copy of the demo's store, and an HTTP client against it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import stores


@dataclass
class Served:
    base: str
    url: str
    app: Any = None  # the FastAPI app: its answers, its store's engine

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(self.base + path, timeout=30, **kw)


@contextmanager
def serving(url: str, home: Path, settings: dict[str, Any] | None = None, **web: Any) -> Iterator[Served]:
    """The app over the store at `url`, listening until the block ends; `settings`:
    more of the configuration ([[rule]], [[channel]]...), `web`: its [web] keys."""
    from db.store.engine import make_engine
    from tracker.config.settings import Config, StoreSettings
    from tracker.config.web import WebSettings
    from tracker.web.screenshots import free_port
    from tracker.web.serve import build_app, start_in_thread, stop

    healthy = web.pop("healthy", None)
    config = Config.model_validate(
        {**(settings or {}), "home": home, "store": StoreSettings(url=url), "web": WebSettings(port=free_port(), **web)}
    )
    engine = make_engine(url)
    app = build_app(engine, config, healthy)
    running = start_in_thread(app, config.web)
    try:
        yield Served(f"http://127.0.0.1:{config.web.port}", url, app)
    finally:
        stop(*running)
        engine.dispose()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The dashboard over a copy of the demo's store, once per module and back end."""
    home = tmp_path_factory.mktemp("web-home")
    if request.param == "sqlite":
        run: stores.DemoRun = request.getfixturevalue("demo_run")
        shutil.copyfile(run.home / "tracker.db", home / "tracker.db")
        with serving(f"sqlite:///{home / 'tracker.db'}", home) as found:
            yield found
        return
    pg = request.getfixturevalue("pg_demo")
    server = request.getfixturevalue("pg_server")
    import sqlalchemy as sa

    with server.database_copy(sa.engine.make_url(pg.url).database or "") as url, serving(url, home) as found:
        yield found
