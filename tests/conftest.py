"""Shared fixtures: a store on SQLite and on the real PostgreSQL, and the
CLI run in-process with its own home folder."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pytest
import sqlalchemy as sa

FIXTURES = Path(__file__).parent / "fixtures"
# The demo's bundled captures are the replay fixtures of their sources too:
# each capture is kept once (tests/run/test_captures_once.py checks it).
DEMO_CAPTURES = Path(str(resources.files("tracker") / "demo_captures"))
PG_URL = os.environ.get("GPU_TRACKER_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REQUIRE_PG = os.environ.get("GPU_TRACKER_REQUIRE_POSTGRES") == "1"


def _pg_reachable() -> str | None:
    try:
        engine = sa.create_engine(PG_URL, connect_args={"connect_timeout": 3})
        with engine.connect() as conn:
            conn.execute(sa.text("select 1"))
        engine.dispose()
        return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".splitlines()[0]


_PG_PROBLEM: str | bool | None = False


@pytest.fixture(autouse=True, scope="session")
def private_files() -> Iterator[None]:
    """Files the tests write are private (0600), as a user's config with
    secrets should be: otherwise every CLI call warns about it."""
    old = os.umask(0o077)
    yield
    os.umask(old)


def pg_problem() -> str | None:
    global _PG_PROBLEM
    if _PG_PROBLEM is False:
        _PG_PROBLEM = _pg_reachable()
    return _PG_PROBLEM  # type: ignore[return-value]


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose search_path is a fresh schema, dropped after."""
    problem = pg_problem()
    if problem:
        if REQUIRE_PG:
            pytest.fail(f"PostgreSQL is required but unreachable at {PG_URL}: {problem}")
        pytest.skip(f"PostgreSQL unreachable: {problem}")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(sa.text(f'create schema "{schema}"'))
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(sa.text(f'drop schema "{schema}" cascade'))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def engine(db_url: str) -> Iterator[sa.Engine]:
    """A migrated store on each back end."""
    from db.store.engine import make_engine, migrate

    engine = make_engine(db_url)
    migrate(engine)
    yield engine
    engine.dispose()


@dataclass
class CliResult:
    code: int
    out: str
    err: str


class Cli:
    def __init__(self, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.home = home
        self.capsys = capsys

    def __call__(self, *args: str) -> CliResult:
        from tracker.cli import main

        self.capsys.readouterr()
        code = main(["--home", str(self.home), *args])
        captured = self.capsys.readouterr()
        return CliResult(code, captured.out, captured.err)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("GPU_TRACKER_HOME", str(folder))
    monkeypatch.delenv("GPU_TRACKER_DATABASE_URL", raising=False)
    return folder


@pytest.fixture
def cli(home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI against a fresh store, on each back end."""
    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", db_url)
    return Cli(home, capsys)


@pytest.fixture
def sqlite_cli(home: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The CLI against the default SQLite store in its home folder."""
    return Cli(home, capsys)
