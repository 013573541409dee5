"""Engines for SQLite and PostgreSQL, and the migrations both run."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


class StoreError(Exception):
    """The store cannot be opened or used; the message says why."""


def make_engine(url: str) -> sa.Engine:
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"timeout": 30})
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql"):
        return sa.create_engine(url, pool_pre_ping=True)
    raise StoreError(f"unsupported database URL {mask_url(url)!r}: use sqlite:/// or postgresql+psycopg://")


def _sqlite_pragmas(dbapi_conn: object, _record: object) -> None:
    cur = dbapi_conn.cursor()  # type: ignore[attr-defined]
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    # 64 MB of page cache: a re-import that changes 10,000 of a million
    # prices looks them up and closes them twice as fast as with 32 (their
    # index pages stay), and every MB counts in the process's memory.
    cur.execute("PRAGMA cache_size=-65536")
    cur.close()


def mask_url(url: str) -> str:
    try:
        return sa.engine.make_url(url).render_as_string(hide_password=True)
    except sa.exc.ArgumentError:
        return "<unparsable URL>"


def _alembic_config(engine: sa.Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["engine"] = engine
    return cfg


def migrate(engine: sa.Engine) -> None:
    """Bring the schema to the newest revision; a no-op when it is there."""
    cfg = _alembic_config(engine)
    heads = set(ScriptDirectory.from_config(cfg).get_heads())
    try:
        with engine.connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
        if current == heads:
            return
        command.upgrade(cfg, "heads")
        if engine.dialect.name == "sqlite":
            # The migrations' pages would otherwise sit in the WAL file until
            # the next checkpoint: fold them in now and keep the WAL small.
            with engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    except sa.exc.OperationalError as exc:
        reason = " ".join(line.strip() for line in str(exc.orig).splitlines() if line.strip())
        raise StoreError(f"cannot open the store at {mask_url(str(engine.url))}: {reason}") from exc
