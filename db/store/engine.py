"""Engines for SQLite and PostgreSQL, and the migrations both run."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa

from db.store.heads import MIGRATIONS_DIR, script_heads

if TYPE_CHECKING:
    from alembic.config import Config


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
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["engine"] = engine
    return cfg


def _stored_heads(engine: sa.Engine) -> set[str] | None:
    """The revisions the store is at; None when it has no version table yet."""
    with engine.connect() as conn:
        if not sa.inspect(conn).has_table("alembic_version"):
            return None
        return {row[0] for row in conn.execute(sa.text("SELECT version_num FROM alembic_version"))}


def migrate(engine: sa.Engine) -> None:
    """Bring the schema to the newest revision; a no-op when it is there."""
    try:
        if _stored_heads(engine) == script_heads():
            return
    except sa.exc.OperationalError as exc:
        raise _unreachable(engine, exc) from exc
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

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
        raise _unreachable(engine, exc) from exc


def _unreachable(engine: sa.Engine, exc: sa.exc.OperationalError) -> StoreError:
    return StoreError(unreachable_message(str(engine.url), exc.orig))


def unreachable_message(url: str, error: BaseException | None) -> str:
    """One sentence: which store, and the driver's reason on one line."""
    reason = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    return f"cannot open the store at {mask_url(url)}: {reason}"
