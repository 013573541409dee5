"""Stores made once and copied, so that a test starts from a migrated store
(or from the demo's store) without paying for the migrations (or the demo)
again.

- SQLite: a migrated store is a file, made once per worker and copied.
- PostgreSQL: each test still gets a schema of its own in the database `test`
  (the URL ends in `?options=-csearch_path%3D...`, as a user's may). The
  migrations run once per worker, into a scratch schema, with every statement
  they send recorded; a test's schema is then made by sending those statements
  again, in one transaction (no Alembic, no inspection of the schema). A whole
  database copied per test (`CREATE DATABASE ... TEMPLATE`) looked cheaper, but
  dropping a database forces a checkpoint of the whole server: seconds when
  the server is busy, for everyone on it.
- The demo: run once per test run (all workers share it, behind a file lock).
  On PostgreSQL it fills a database of its own, which the few tests that need
  it copy as a template. Databases are named `gputest_<pid>_...` after the
  process that drops them; those whose process is gone (a run that was
  killed) are dropped by the next run on this machine. Nothing else on the
  server is touched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from filelock import FileLock

ROOT = Path(__file__).parents[2]
PREFIX = "gputest_"
_NAME = re.compile(rf"^{PREFIX}(\d+)_")
# The pid of the process that drops what a run's workers share (tests/conftest.py).
OWNER_VARIABLE = "GPU_TRACKER_TEST_OWNER"

Statements = list[tuple[str, Any]]


def migrated_sqlite(path: Path) -> Path:
    """A SQLite store at `path`, migrated, its WAL folded in: one file to copy."""
    from db.store.engine import make_engine, migrate

    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    engine.dispose()
    return path


def with_schema(server_url: str, schema: str) -> str:
    sep = "&" if "?" in server_url else "?"
    return f"{server_url}{sep}options=-csearch_path%3D{schema}"


class PgServer:
    """Schemas in the test database, and whole databases beside it."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.engine = sa.create_engine(server_url)
        maintenance = sa.engine.make_url(server_url).set(database="postgres")
        self.admin = sa.create_engine(maintenance, isolation_level="AUTOCOMMIT")

    @contextmanager
    def schema(self, statements: Statements | None = None) -> Iterator[str]:
        """A fresh schema, holding what `statements` make; its URL. Dropped after."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        with self.engine.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{name}"')
            conn.exec_driver_sql(f'SET LOCAL search_path TO "{name}"')
            for statement, parameters in statements or []:
                conn.exec_driver_sql(statement, parameters)
        try:
            yield with_schema(self.server_url, name)
        finally:
            with self.engine.begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA "{name}" CASCADE')

    def migration_statements(self) -> Statements:
        """Migrate a scratch schema; every statement that changed it, in order."""
        from db.store.engine import make_engine, migrate

        sent: Statements = []

        def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
            assert not many, statement
            if not statement.lstrip().upper().startswith("SELECT"):
                sent.append((statement, parameters or None))

        with self.schema() as url:
            engine = make_engine(url)
            sa.event.listen(engine, "before_cursor_execute", record)
            migrate(engine)
            engine.dispose()
        return sent

    def create_database(self, name: str, template: str | None = None) -> str:
        """Database `name`, a copy of `template`'s; its URL."""
        with self.admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
        return sa.engine.make_url(self.server_url).set(database=name).render_as_string(hide_password=False)

    def drop_database(self, name: str) -> None:
        with self.admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    @contextmanager
    def database_copy(self, template: str) -> Iterator[str]:
        """A copy of database `template`, dropped after; its URL."""
        name = unique_name("copy")
        url = self.create_database(name, template)
        try:
            yield url
        finally:
            self.drop_database(name)

    def sweep(self, owner: int | None = None) -> None:
        """Drop the databases of `owner`, or of this machine's test processes that are gone."""
        host = sa.engine.make_url(self.server_url).host
        if owner is None and host not in (None, "", "127.0.0.1", "localhost", "::1"):
            return  # another machine's processes cannot be seen from here
        with self.admin.connect() as conn:
            names = [r[0] for r in conn.execute(sa.text("SELECT datname FROM pg_database"))]
        for name in names:
            match = _NAME.match(name)
            if not match:
                continue
            pid = int(match.group(1))
            if pid == owner or (owner is None and not Path(f"/proc/{pid}").exists()):
                self.drop_database(name)

    def dispose(self) -> None:
        self.engine.dispose()
        self.admin.dispose()


def unique_name(kind: str, owner: int | None = None) -> str:
    """A database name no other process on this server uses."""
    return f"{PREFIX}{owner or os.getpid()}_{kind}_{uuid.uuid4().hex[:10]}"


def drop_owned(server_url: str, owner: int) -> None:
    """Drop the databases `owner` made."""
    server = PgServer(server_url)
    try:
        server.sweep(owner)
    finally:
        server.dispose()


@dataclass(frozen=True)
class DemoRun:
    """`gpu-tracker demo` run once: its home folder (never written to by a
    test: copy it with `copy_home`), its store's URL and what it printed."""

    home: Path
    url: str
    code: int
    out: str
    err: str


# The demo runs with a browser path that leads nowhere: replaying a capture
# never needs Chromium, so every source must load all the same. The setting
# is removed after, and the home is a plain demo home.
NO_BROWSER = '[crawl]\nbrowser_path = "/nonexistent/chromium-x"\n'


def run_demo(home: Path, database_url: str | None = None) -> DemoRun:
    """`gpu-tracker demo` into `home` (and `database_url`), in a process of its own."""
    home.mkdir(parents=True)
    (home / "config.toml").write_text(NO_BROWSER)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "GPU_TRACKER_HOME": str(home), "HOME": str(home)}
    if database_url:
        env["GPU_TRACKER_DATABASE_URL"] = database_url
    done = subprocess.run(
        [sys.executable, "-m", "tracker.cli", "--home", str(home), "demo"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    (home / "config.toml").unlink()
    url = database_url or f"sqlite:///{home / 'tracker.db'}"
    return DemoRun(home, url, done.returncode, done.stdout, done.stderr)


def shared_demo(folder: Path, database_url: Callable[[], str | None] = lambda: None) -> DemoRun:
    """The demo in `folder/home`, run by the first worker that asks (the
    others wait for it, then read what it left)."""
    folder.mkdir(parents=True, exist_ok=True)
    record = folder / "run.json"
    with FileLock(str(folder / "lock")):
        if not record.exists():
            run = run_demo(folder / "home", database_url())
            record.write_text(json.dumps(asdict(run), default=str))
    data = json.loads(record.read_text())
    return DemoRun(**{**data, "home": Path(data["home"])})


def copy_home(demo: Path, home: Path, store: bool = True) -> Path:
    """A copy of a demo's home folder (without its SQLite store if `store` is false)."""
    skip = shutil.ignore_patterns() if store else shutil.ignore_patterns("tracker.db*")
    shutil.copytree(demo, home, ignore=skip, dirs_exist_ok=True)
    return home
