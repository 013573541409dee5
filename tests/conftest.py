"""Shared fixtures: a store on SQLite and on the real PostgreSQL, and the
CLI run in-process with its own home folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.helpers import replayed as replayed_stores
from tests.helpers import stores

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


@pytest.fixture(autouse=True)
def forget_registered_secrets() -> Iterator[None]:
    """Each test starts with no secret learnt by an earlier one: the
    registry of `tracker.logs` lives as long as the process (a daemon's), so
    a URL one test configured would be masked in the next one's output."""
    from tracker import logs

    yield
    logs._REGISTERED.clear()


def pg_problem() -> str | None:
    global _PG_PROBLEM
    if _PG_PROBLEM is False:
        _PG_PROBLEM = _pg_reachable()
    return _PG_PROBLEM  # type: ignore[return-value]


def _require_pg() -> None:
    problem = pg_problem()
    if problem:
        if REQUIRE_PG:
            pytest.fail(f"PostgreSQL is required but unreachable at {PG_URL}: {problem}")
        pytest.skip(f"PostgreSQL unreachable: {problem}")


@pytest.fixture
def pg_url(pg_server: stores.PgServer) -> Iterator[str]:
    """A PostgreSQL URL whose search_path is a fresh, empty schema, dropped
    after: for the tests that migrate from nothing (most take `db_url`)."""
    with pg_server.schema() as url:
        yield url


# Which back ends a test that takes `db_url` (or `demo_cli`) runs on: both,
# unless it is marked `@pytest.mark.backends("sqlite")` (a whole crawl
# replayed end to end tests the spider, which does not depend on the store).
# GPU_TRACKER_TEST_BACKENDS=sqlite (the fast loop) runs them on SQLite only.
BACKENDS = ("sqlite", "postgres")
BACKENDS_ENV = "GPU_TRACKER_TEST_BACKENDS"
FUZZ_SCALE_ENV = "GPU_TRACKER_FUZZ_SCALE"  # the fast loop tries a fifth of the property tests' examples


def examples(n: int) -> int:
    """How many examples a property test tries: n, scaled by $GPU_TRACKER_FUZZ_SCALE."""
    return max(5, round(n * float(os.environ.get(FUZZ_SCALE_ENV, "1"))))


if os.environ.get(FUZZ_SCALE_ENV):  # property tests that keep hypothesis' default of 100
    from hypothesis import settings as _hypothesis

    _hypothesis.register_profile("scaled", max_examples=examples(100))
    _hypothesis.load_profile("scaled")


def _allowed_backends() -> list[str]:
    wanted = [n.strip() for n in os.environ.get(BACKENDS_ENV, ",".join(BACKENDS)).split(",") if n.strip()]
    unknown = set(wanted) - set(BACKENDS)
    if unknown or not wanted:
        raise pytest.UsageError(f"{BACKENDS_ENV} takes a comma-separated list of {', '.join(BACKENDS)}")
    return wanted


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "store_backend" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("backends")
        names = list(marker.args) if marker else list(BACKENDS)
        assert set(names) <= set(BACKENDS), names
        allowed = _allowed_backends()
        names = [n for n in names if n in allowed]
        metafunc.parametrize("store_backend", names, ids=names)


_TERMINAL = ("COLUMNS", "LINES")


def pytest_configure(config: pytest.Config) -> None:
    # The process that drops the databases shared by a run's workers: the
    # xdist controller (its workers inherit the variable), or pytest itself.
    os.environ.setdefault(stores.OWNER_VARIABLE, str(os.getpid()))
    # xdist's workers start with COLUMNS=80 and LINES=24 in their environment,
    # which the CLI's tables obey: give them the terminal pytest was started in.
    if hasattr(config, "workerinput"):
        for name in _TERMINAL:
            os.environ.pop(name, None)
            if config.workerinput.get(name):
                os.environ[name] = config.workerinput[name]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(xdist's controller, before a worker starts.)"""
    node.workerinput.update({name: _STARTED_WITH.get(name) for name in _TERMINAL})


_STARTED_WITH = {name: os.environ.get(name) for name in _TERMINAL}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Under xdist (its workers collect; each the same order): the tests that
    # mostly wait spread among those that compute (tests/helpers/order.py).
    if hasattr(config, "workerinput"):
        from tests.helpers.order import spread

        items[:] = spread(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers more than the cores. Many tests wait on a
    daemon, a browser or a server's timeout more than they compute: on 2
    cores, 3 workers ran the suite in 459 s where 2 took 496 s; with the
    waiting tests spread (tests/helpers/order.py), 4 took 1,001 s where 3
    took 1,283 s, the same CPU time (957-962 s), on a machine other jobs
    kept at a load of about 7 (2026-12-06)."""
    return (os.cpu_count() or 1) + 2


def pytest_unconfigure(config: pytest.Config) -> None:
    owner = not hasattr(config, "workerinput") and os.environ.get(stores.OWNER_VARIABLE) == str(os.getpid())
    if owner and not pg_problem():
        stores.drop_owned(PG_URL, os.getpid())


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder all workers of this run share (and only they)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite store, made once per worker; tests get copies."""
    return stores.migrated_sqlite(tmp_path_factory.mktemp("template") / "store.db")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[stores.PgServer]:
    _require_pg()
    server = stores.PgServer(PG_URL)
    server.sweep()
    yield server
    server.dispose()


@pytest.fixture(scope="session")
def pg_migrations(pg_server: stores.PgServer) -> stores.Statements:
    """What the migrations send to an empty schema, recorded once per worker."""
    return pg_server.migration_statements()


@pytest.fixture
def pg_store_url(pg_server: stores.PgServer, pg_migrations: stores.Statements) -> Iterator[str]:
    """A PostgreSQL URL whose search_path is a migrated schema of its own."""
    with pg_server.schema(pg_migrations) as url:
        yield url


@pytest.fixture
def db_url(store_backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated store of the test's own, on each back end."""
    if store_backend == "sqlite":
        path = tmp_path / "store.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    return request.getfixturevalue("pg_store_url")


@pytest.fixture
def engine(db_url: str) -> Iterator[sa.Engine]:
    """A migrated store on each back end."""
    from db.store.engine import make_engine, migrate

    engine = make_engine(db_url)
    migrate(engine)  # a no-op: the copy is current
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def demo_run(shared_tmp: Path) -> stores.DemoRun:
    """The demo on SQLite, run once per test run (its workers share it).
    Never write to its home: copy it (`stores.copy_home`, or `demo_cli`)."""
    run = stores.shared_demo(shared_tmp / "demo-sqlite")
    assert run.code == 0, run.err
    return run


@pytest.fixture(scope="session")
def pg_demo(shared_tmp: Path, pg_server: stores.PgServer) -> stores.DemoRun:
    """The demo on PostgreSQL, run once per test run into a database of its
    own that tests copy (dropped by the process that started the run)."""
    name = stores.unique_name("demo", int(os.environ[stores.OWNER_VARIABLE]))
    run = stores.shared_demo(shared_tmp / "demo-postgres", lambda: pg_server.create_database(name))
    assert run.code == 0, run.err
    return run


@pytest.fixture
def demo_db_url(store_backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A copy of the demo's store, on each back end."""
    if store_backend == "sqlite":
        path = tmp_path / "store.db"
        shutil.copyfile(request.getfixturevalue("demo_run").home / "tracker.db", path)
        yield f"sqlite:///{path}"
        return
    name = sa.engine.make_url(request.getfixturevalue("pg_demo").url).database or ""
    with request.getfixturevalue("pg_server").database_copy(name) as url:
        yield url


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


@pytest.fixture
def demo_cli(
    home: Path,
    demo_db_url: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Cli:
    """The CLI after `gpu-tracker demo`, on each back end: a copy of the
    demo's store and of its home folder (kept captures, spider state)."""
    run = request.getfixturevalue("demo_run" if demo_db_url.startswith("sqlite") else "pg_demo")
    stores.copy_home(run.home, home, store=False)
    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", demo_db_url)
    return Cli(home, capsys)


@pytest.fixture(scope="session")
def replay_bases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[replayed_stores.Bases]:
    """The stores `replayed` starts tests from, made once per worker."""
    bases = replayed_stores.Bases(tmp_path_factory.mktemp("replayed"))
    yield bases
    bases.close()


Replayed = Callable[..., list[replayed_stores.Printed]]


@pytest.fixture
def replayed(
    store_backend: str,
    db_url: str,
    home: Path,
    replay_bases: replayed_stores.Bases,
    request: pytest.FixtureRequest,
) -> Replayed:
    """`replayed(command, ..., config="")`: fills this test's store (`db_url`,
    which `cli` reads) and `home` with a copy of what those CLI commands
    (`("crawl", "azure", "--replay", ...)`) leave, run once per worker and
    back end (tests/helpers/replayed.py); returns what each printed."""

    def fresh(folder: Path, stack: ExitStack) -> str:
        if store_backend == "sqlite":
            shutil.copyfile(request.getfixturevalue("sqlite_template"), folder / "store.db")
            return f"sqlite:///{folder / 'store.db'}"
        server: stores.PgServer = request.getfixturevalue("pg_server")
        return stack.enter_context(server.schema(request.getfixturevalue("pg_migrations")))

    def fill(*commands: tuple[str, ...], config: str = "") -> list[replayed_stores.Printed]:
        made = replay_bases.get(store_backend, tuple(commands), config, fresh)
        return replayed_stores.copy_made(made, home, db_url)

    return fill
