"""The baseline of the import benchmark: a plain program that loads a JSON
Lines file into the store's own price_points table, as fast as the driver
allows and with nothing else: `json.loads` of each line, then sqlite3's
`executemany` or psycopg's `COPY`, a block of rows at a time, one commit.

    python -m benchmarks.drivers.raw_load FILE URL [--bare | --indexes-after]

It stores what a price row needs and no more (a plain text key, the price
as its own hash). With `--bare` the table's secondary indexes are dropped
first (the empty table's, so at no cost): the raw speed of the driver, the
baseline issue 41 measured the first import against (11.8 s for a million
rows, when the import took 68 s); without it the store's indexes are kept
and the load pays for each row's place in each of them. With
`--indexes-after` they are dropped, the rows loaded and committed, then
each index built once: the floor under any import that ends with every
index in place.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from itertools import islice
from typing import Any

FIELDS = (
    "provider",
    "region",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "gpu_memory_gb",
    "vcpu",
    "memory_gb",
    "os",
    "price_model",
    "term",
    "price",
    "currency",
    "unit",
    "source_url",
)
COLUMNS = (*FIELDS, "key", "value_hash", "source", "zone", "payment_option", "attrs", "valid_from", "missed_runs")
BLOCK = 10_000


def rows(path: str) -> Iterator[list[tuple[Any, ...]]]:
    with open(path, encoding="utf-8") as fh:
        while lines := list(islice(fh, BLOCK)):
            block = []
            for data in map(json.loads, lines):
                key = "|".join((data["region"], data["instance_type"], data["price_model"], data.get("term", "")))
                block.append((*map(data.get, FIELDS), key, data["price"], "raw", "", "", "{}", data["observed_at"], 0))
            yield block


def _bare(conn: Any, placeholder: str) -> list[str]:
    """Drop price_points' secondary indexes (the table is empty): their DDL."""
    cursor = conn.cursor()
    if placeholder == "?":
        cursor.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'price_points' AND sql IS NOT NULL"
        )
    else:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'price_points' "
            "AND indexname <> 'price_points_pkey'"
        )
    found = cursor.fetchall()
    for name, _ in found:
        cursor.execute(f'DROP INDEX "{name}"')
    return [ddl for _, ddl in found]


def _build(conn: Any, ddls: list[str]) -> None:
    cursor = conn.cursor()
    for ddl in ddls:
        cursor.execute(ddl)
    conn.commit()


def load_sqlite(path: str, database: str, bare: bool = False, after: bool = False) -> None:
    import sqlite3

    conn = sqlite3.connect(database)
    conn.execute("PRAGMA cache_size=-65536")  # the store's own (db/store/engine.py)
    ddls = _bare(conn, "?") if bare or after else []
    sql = f"INSERT INTO price_points ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
    for block in rows(path):
        conn.executemany(sql, block)
    conn.commit()
    if after:
        _build(conn, ddls)
    conn.close()


def load_postgres(path: str, url: str, bare: bool = False, after: bool = False) -> None:
    import psycopg

    with psycopg.connect(url) as conn, conn.cursor() as cursor:
        ddls = _bare(conn, "%s") if bare or after else []
        with cursor.copy(f"COPY price_points ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            for block in rows(path):
                for row in block:
                    copy.write_row(row)
        conn.commit()
        if after:
            cursor.execute(
                "SET maintenance_work_mem = '256MB'"
            )  # as the import builds them (db/store/writes/bulk_load.py)
            _build(conn, ddls)


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        sys.exit(
            "usage: python -m benchmarks.drivers.raw_load FILE URL [--bare | --indexes-after]\n"
            "for example: python -m benchmarks.drivers.raw_load rows.jsonl sqlite:////tmp/raw.db --bare"
        )
    path, url = sys.argv[1], sys.argv[2]
    bare, after = "--bare" in sys.argv[3:], "--indexes-after" in sys.argv[3:]
    if url.startswith("sqlite:///"):
        load_sqlite(path, url.removeprefix("sqlite:///"), bare, after)
    else:
        load_postgres(path, url.replace("postgresql+psycopg://", "postgresql://"), bare, after)


if __name__ == "__main__":
    main()
