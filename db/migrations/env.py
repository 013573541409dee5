from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import context
from sqlmodel import SQLModel

import db.alert_tables
import db.spot_risk
import db.store.writes.offers
import db.tables  # noqa: F401

target_metadata = SQLModel.metadata


def _begin_immediate(conn: sa.Connection) -> None:
    # IMMEDIATE takes the write lock up front, so a second process migrating
    # at the same time waits (busy_timeout) instead of failing on upgrade.
    conn.exec_driver_sql("BEGIN IMMEDIATE")


@contextmanager
def _transactional_ddl(connection: sa.Connection) -> Iterator[None]:
    """pysqlite sends no BEGIN before DDL, so each CREATE commits on its own
    and a kill mid-revision leaves half a schema. SQLAlchemy's documented
    recipe (the "Serializable isolation / Savepoints / Transactional DDL"
    section of its SQLite dialect): turn the driver's own transaction
    handling off and emit BEGIN on SQLAlchemy's begin event. Done on this one
    connection only, and undone before it returns to the pool, so normal use
    keeps the driver's default behaviour."""
    if connection.dialect.name != "sqlite":
        yield
        return
    driver = connection.connection.driver_connection
    saved = driver.isolation_level  # type: ignore[union-attr]  # a live connection has its driver's
    driver.isolation_level = None  # type: ignore[union-attr]  # a live connection has its driver's
    sa.event.listen(connection, "begin", _begin_immediate)
    try:
        yield
    finally:
        sa.event.remove(connection, "begin", _begin_immediate)
        if connection.in_transaction():
            connection.rollback()
        driver.isolation_level = saved  # type: ignore[union-attr]  # a live connection has its driver's


def run_migrations_online() -> None:
    engine = context.config.attributes["engine"]
    with engine.connect() as connection, _transactional_ddl(connection):
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            # One transaction per revision: a crash loses at most the
            # revision in progress, schema and version row together.
            transaction_per_migration=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
