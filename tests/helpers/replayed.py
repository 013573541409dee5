"""Stores that CLI commands (crawl replays, mostly) have filled, made once
per worker and back end, and copied for each test that starts from them.

A test of what a second capture changes, or of how a broken capture keeps
the last good data, need not replay the first capture again: the crawls
that lead to its starting point run once (`gpu-tracker crawl --replay ...`,
the real CLI with its spider's child process), and the test gets a copy of
the store and of the home folder (runs, spider state, config), with what
each of those commands printed.

- SQLite: the store file copied with SQLite's backup API (its WAL included).
- PostgreSQL: the test's own migrated schema (`pg_store_url`), the rows of
  every table copied into it in the order of their foreign keys, and each
  sequence set to where the original's stands.

The tests use the `replayed` fixture (tests/conftest.py): it fills the
test's `db_url` and `home`, which `cli` then reads.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa

Command = tuple[str, ...]
# A new, migrated store in a folder (its URL); what must be closed at the end goes on the stack.
Fresh = Callable[[Path, ExitStack], str]


@dataclass(frozen=True)
class Printed:
    """What one command said (the fields of tests/conftest.py's CliResult)."""

    code: int
    out: str
    err: str


@dataclass(frozen=True)
class Made:
    """A store the commands filled, its home folder, and what each printed."""

    url: str
    home: Path
    results: tuple[Printed, ...]


def run_cli(home: Path, url: str, command: Command) -> Printed:
    """The CLI in-process, on `home` and the store at `url`, outside any test's capsys."""
    from tracker.cli import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GPU_TRACKER_HOME", str(home))
        mp.setenv("GPU_TRACKER_DATABASE_URL", url)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--home", str(home), *command])
    return Printed(code, out.getvalue(), err.getvalue())


class Bases:
    """The stores made so far in this worker, by back end, config and commands."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.made: dict[tuple[str, str, tuple[Command, ...]], Made] = {}
        self.stack = ExitStack()

    def get(self, backend: str, commands: tuple[Command, ...], config: str, fresh: Fresh) -> Made:
        """The store `commands` fill (after `config` is written to the home
        folder), made on first use in a `fresh(folder, stack)` store: a copy
        of the one its first commands fill, and the last run on it."""
        key = (backend, config, commands)
        if key in self.made:
            return self.made[key]
        # The one its first commands fill, made (or found) before this one's folder.
        parent = self.get(backend, commands[:-1], config, fresh) if len(commands) > 1 else None
        folder = self.folder / f"{len(self.made)}"
        home = folder / "home"
        home.mkdir(parents=True)
        if config:
            (home / "config.toml").write_text(config, encoding="utf-8")
        url = fresh(folder, self.stack)
        done = copy_made(parent, home, url) if parent else []
        self.made[key] = Made(url, home, (*done, run_cli(home, url, commands[-1])))
        return self.made[key]

    def close(self) -> None:
        self.stack.close()


def copy_store(source_url: str, target_url: str) -> None:
    """The rows of the store at `source_url` into the migrated, empty store at
    `target_url`, on the same back end (and, for PostgreSQL, database)."""
    if source_url.startswith("sqlite"):
        source = sqlite3.connect(sa.engine.make_url(source_url).database or "")
        target = sqlite3.connect(sa.engine.make_url(target_url).database or "")
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        return
    _copy_schema(source_url, target_url)


def _copy_schema(source_url: str, target_url: str) -> None:
    engine = sa.create_engine(source_url)
    try:
        with engine.connect() as conn:
            source = conn.exec_driver_sql("select current_schema()").scalar_one()
    finally:
        engine.dispose()
    engine = sa.create_engine(target_url)
    try:
        with engine.begin() as conn:
            target = conn.exec_driver_sql("select current_schema()").scalar_one()
            assert source != target, source
            tables = _tables_in_key_order(conn, source)
            for table in reversed(tables):  # what it held (an earlier copy), rows that refer to others first
                conn.exec_driver_sql(f'DELETE FROM "{target}"."{table}"')
            for table in tables:
                columns = ", ".join(f'"{c}"' for c in _columns(conn, source, table))
                conn.exec_driver_sql(
                    f'INSERT INTO "{target}"."{table}" ({columns}) SELECT {columns} FROM "{source}"."{table}"'
                )
            for (sequence,) in conn.execute(_SEQUENCES, {"schema": source}):
                last, called = conn.exec_driver_sql(f'SELECT last_value, is_called FROM "{source}"."{sequence}"').one()
                conn.execute(
                    sa.text("SELECT setval(:seq, :last, :called)"),
                    {
                        "seq": f'"{target}"."{sequence}"',
                        "last": last,
                        "called": called,
                    },
                )
    finally:
        engine.dispose()


_SEQUENCES = sa.text(
    "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
    " WHERE n.nspname = :schema AND c.relkind = 'S' ORDER BY c.relname"
)


def _columns(conn: sa.Connection, schema: str, table: str) -> list[str]:
    rows = conn.execute(
        sa.text(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = :schema AND table_name = :table AND is_generated = 'NEVER'"
            " ORDER BY ordinal_position"
        ),
        {"schema": schema, "table": table},
    )
    return [r[0] for r in rows]


def _tables_in_key_order(conn: sa.Connection, schema: str) -> list[str]:
    """The schema's tables, each after those its foreign keys point to."""
    tables = [
        r[0]
        for r in conn.execute(
            sa.text(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = :schema AND c.relkind IN ('r', 'p') ORDER BY c.relname"
            ),
            {"schema": schema},
        )
    ]
    refers: dict[str, set[str]] = {t: set() for t in tables}
    for child, parent in conn.execute(
        sa.text(
            "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c"
            " JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = :schema AND c.contype = 'f'"
        ),
        {"schema": schema},
    ):
        child, parent = _bare(child), _bare(parent)
        if child != parent and child in refers:
            refers[child].add(parent)
    ordered: list[str] = []
    while refers:
        ready = sorted(t for t, parents in refers.items() if not parents - set(ordered))
        assert ready, f"foreign keys in a cycle: {refers}"
        ordered.extend(ready)
        for t in ready:
            del refers[t]
    return ordered


def _bare(name: str) -> str:
    return name.rsplit(".", 1)[-1].strip('"')


def copy_made(made: Made, home: Path, url: str) -> list[Printed]:
    """`made` copied into the test's `home` and its migrated store at `url`; what its commands printed."""
    copy_store(made.url, url)
    shutil.copytree(made.home, home, dirs_exist_ok=True)
    return list(made.results)
