"""A bulk load of prices into a table that holds few: its secondary indexes
dropped before the rows go in and each built once after, in the run's own
transaction (SQLite and PostgreSQL both undo DDL on rollback, so a run that
fails leaves the table, indexes and all, as it was).

Fourteen indexes (the table's own and the listings' partial ones,
migrations 0011 and 0013) put each inserted row in fourteen B-trees, each
at a random page: a million rows took 5.8x a plain insert (issue 41). One
sort per index after the load costs a fraction of that.

A run takes this path only when nothing it does while loading needs an
index: its source has no open price (the diff looks nothing up in the
table) and the table holds under a quarter as many rows as the run brings
(rebuilding the others' entries costs less than inserting the run's). On
PostgreSQL the indexes' absence locks the table for the run's transaction,
so readers wait for the load: what they would otherwise read is an empty
or a nearly empty table.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from db.store.reads.connection import Db

# Below this many rows, inserting into the indexes costs less than building them.
BULK_ROWS = 50_000
# The load is bulk when the table holds fewer than the run's rows / OTHERS_SHARE.
OTHERS_SHARE = 4
TABLE = "price_points"
# Room to sort an index in on PostgreSQL (its default, 64 MB, spills a million rows to disk).
PG_MAINTENANCE_MB = 256
# KB of SQLite page cache (and so of its sorter) while the indexes are built.
SQLITE_SORT_KB = 16384


@dataclass
class DroppedIndexes:
    """What `drop_indexes` took away: each index's name and its DDL."""

    indexes: list[tuple[str, str]]


def drop_if_worth_it(db: Db, expected_rows: int) -> DroppedIndexes | None:
    """The indexes dropped when `worth_it`, in the caller's transaction."""
    return drop_indexes(db) if worth_it(db, expected_rows) else None


def worth_it(db: Db, expected_rows: int) -> bool:
    """Whether `expected_rows` would load faster with the indexes built after:
    enough rows, into a table that holds under a quarter as many."""
    if expected_rows < BULK_ROWS:
        return False
    limit = expected_rows // OTHERS_SHARE
    (held,) = db.tuples(f"SELECT count(*) FROM (SELECT 1 FROM {TABLE} LIMIT {int(limit)}) AS held")[0]
    return int(held) < limit


def secondary_indexes(db: Db) -> list[tuple[str, str]]:
    """(name, DDL) of each index of the prices table but its primary key's."""
    if db.dialect == "sqlite":
        sql = (
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL "
            "ORDER BY name"
        )
        return [(str(name), str(ddl)) for name, ddl in db.tuples(sql, [TABLE])]
    sql = (
        "SELECT i.indexname, i.indexdef FROM pg_indexes AS i WHERE i.schemaname = current_schema() "
        "AND i.tablename = ? AND NOT EXISTS (SELECT 1 FROM pg_constraint AS c "
        "WHERE c.conname = i.indexname AND c.conrelid = to_regclass(i.tablename)) ORDER BY i.indexname"
    )
    return [(str(name), str(ddl)) for name, ddl in db.tuples(sql, [TABLE])]


def drop_indexes(db: Db) -> DroppedIndexes:
    """The prices table's secondary indexes dropped, in the caller's transaction."""
    found = secondary_indexes(db)
    if db.dialect == "sqlite" and not db.conn.in_transaction:
        # sqlite3 begins a transaction before a write of rows only: a DROP
        # INDEX first would be committed on its own, and outlive a failed run.
        db.execute("BEGIN")
    for name, _ in found:
        db.execute(f'DROP INDEX "{name}"')
    return DroppedIndexes(found)


def build_indexes(db: Db, dropped: DroppedIndexes) -> None:
    """Each dropped index built again, once, over the loaded rows."""
    if db.dialect != "sqlite":
        if dropped.indexes:
            db.execute(f"SET LOCAL maintenance_work_mem = '{PG_MAINTENANCE_MB}MB'")
        for _, ddl in dropped.indexes:
            db.execute(ddl)
        return
    # SQLite's sorter keeps as much in memory as the page cache may hold, on
    # top of the cache: with the store's 64 MB, 170 MB more at a million rows.
    with db.scanning(SQLITE_SORT_KB):
        for _, ddl in dropped.indexes:
            db.execute(ddl)


def after_bulk(engine: sa.Engine) -> None:
    """On PostgreSQL, after a committed bulk load: `VACUUM (ANALYZE)` of the
    prices and `ANALYZE` of the tables worked out from them. A million rows
    just COPYed carry no hint bits and no visibility map, so the first scan
    of them checked each row's transaction and wrote every page again, and
    the planner knew nothing of the kept rates or the suspect marks: the
    first `compare` after an import took 4.7 s where the same store
    vacuumed answers in 2.3 s (1.6 s of VACUUM at a million). Autovacuum
    would get there, later. Nothing on SQLite, which has no such state."""
    if engine.dialect.name != "postgresql":
        return
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql(f"VACUUM (ANALYZE) {TABLE}")
        conn.exec_driver_sql("ANALYZE open_type_rates, suspect_prices")
