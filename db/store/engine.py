"""Engines for SQLite and PostgreSQL, and the migrations both run."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import sqlalchemy as sa

from db.store.heads import MIGRATIONS_DIR, newest_revision, script_heads, script_revisions

if TYPE_CHECKING:
    from alembic.config import Config


class StoreError(Exception):
    """The store cannot be opened or used; the message says why."""


def make_engine(url: str) -> sa.Engine:
    if url.startswith("sqlite"):
        read_only = sqlite_read_only(url)
        if read_only is not None:
            engine = sa.create_engine(read_only, connect_args={"timeout": 30})
            sa.event.listen(engine, "connect", _sqlite_read_pragmas)
            return engine
        engine = sa.create_engine(url, connect_args={"timeout": 30})
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql"):
        return sa.create_engine(url, pool_pre_ping=True)
    raise StoreError(f"unsupported database URL {mask_url(url)!r}: use sqlite:/// or postgresql+psycopg://")


def _sqlite_pragmas(dbapi_conn: Any, _record: object) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    # 64 MB of page cache: a re-import that changes 10,000 of a million
    # prices looks them up and closes them twice as fast as with 32 (their
    # index pages stay), and every MB counts in the process's memory.
    cur.execute("PRAGMA cache_size=-65536")
    cur.close()


def sqlite_read_only(url: str) -> str | None:
    """For an SQLite store this process may read but not write (a read-only
    file, folder or mount): the URL that opens it read-only; else None.
    SQLite reads a WAL store read-only as long as it can make the WAL's
    shared-memory file beside it; in a folder it cannot write to, only as an
    immutable file (SQLite's "WAL mode on read-only databases")."""
    path = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else ""
    if not path or "?" in path or not os.path.isfile(path) or os.access(path, os.W_OK):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    shm = path + "-shm"
    immutable = not os.access(folder, os.W_OK) and not os.path.exists(shm)
    return f"sqlite:///file:{quote(os.path.abspath(path))}?mode=ro{'&immutable=1' if immutable else ''}&uri=true"


def _sqlite_read_pragmas(dbapi_conn: Any, _record: object) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA query_only=1")
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
        stored = _stored_heads(engine)
    except sa.exc.OperationalError as exc:
        raise _unreachable(engine, exc) from exc
    if stored == script_heads():
        return
    newer = sorted((stored or set()) - script_revisions())
    if newer:
        raise StoreError(
            f"the store at {mask_url(str(engine.url))} was upgraded by a newer gpu-tracker (schema revision "
            f"{', '.join(newer)}; this version knows up to {newest_revision()}): install that "
            "version (pip install --upgrade gpu-offer-tracker), or point [store] url at another store"
        )
    if engine.url.query.get("mode") == "ro":
        raise StoreError(
            f"the store at {mask_url(str(engine.url))} is read-only and older than this gpu-tracker: "
            "open it once where it can be written, so that it is upgraded"
        )
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


def damaged_message(path: str, finding: str) -> str:
    """One sentence for a store SQLite finds damaged: which file, and the way out."""
    return (
        f"the store {path} is damaged ({finding}); nothing more is written to it: restore it from a backup, or "
        f"save what it holds with `sqlite3 {path} .recover | sqlite3 recovered.db` and point [store] url at that"
    )


def check_integrity(engine: sa.Engine) -> None:
    """SQLite's quick check of the whole file (seconds for a large store);
    StoreError naming the file and the way out when it finds damage.
    PostgreSQL keeps its own checksums: nothing to do here."""
    if engine.dialect.name != "sqlite":
        return
    try:
        with engine.connect() as conn:
            found = [str(row[0]) for row in conn.exec_driver_sql("PRAGMA quick_check")]
    except sa.exc.DatabaseError as exc:
        found = [str(exc.orig or exc).splitlines()[0]]
    if found != ["ok"]:
        raise StoreError(damaged_message(str(engine.url.database), f"SQLite's quick check: {found[0]}"))


def _unreachable(engine: sa.Engine, exc: sa.exc.OperationalError) -> StoreError:
    return StoreError(unreachable_message(str(engine.url), exc.orig))


def unreachable_message(url: str, error: BaseException | None) -> str:
    """One sentence: which store, and the driver's reason on one line."""
    reason = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    return f"cannot open the store at {mask_url(url)}: {reason}"
