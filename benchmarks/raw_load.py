"""The baseline of the import benchmark: a plain program that loads a JSON
Lines file into the store's own price_points table, as fast as the driver
allows and with nothing else: `json.loads` of each line, then sqlite3's
`executemany` or psycopg's `COPY`, a block of rows at a time, one commit.

    python -m benchmarks.raw_load FILE URL

It stores what a price row needs and no more (a plain text key, the price
as its own hash); the store's indexes are kept, as a real load pays for them.
"""

from __future__ import annotations

import json
import sys
from itertools import islice

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


def rows(path: str):  # type: ignore[no-untyped-def]
    with open(path, encoding="utf-8") as fh:
        while lines := list(islice(fh, BLOCK)):
            block = []
            for data in map(json.loads, lines):
                key = "|".join((data["region"], data["instance_type"], data["price_model"], data.get("term", "")))
                block.append((*map(data.get, FIELDS), key, data["price"], "raw", "", "", "{}", data["observed_at"], 0))
            yield block


def load_sqlite(path: str, database: str) -> None:
    import sqlite3

    conn = sqlite3.connect(database)
    sql = f"INSERT INTO price_points ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
    for block in rows(path):
        conn.executemany(sql, block)
    conn.commit()
    conn.close()


def load_postgres(path: str, url: str) -> None:
    import psycopg

    with psycopg.connect(url) as conn, conn.cursor() as cursor:
        with cursor.copy(f"COPY price_points ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            for block in rows(path):
                for row in block:
                    copy.write_row(row)


def main() -> None:
    path, url = sys.argv[1], sys.argv[2]
    if url.startswith("sqlite:///"):
        load_sqlite(path, url.removeprefix("sqlite:///"))
    else:
        load_postgres(path, url.replace("postgresql+psycopg://", "postgresql://"))


if __name__ == "__main__":
    main()
