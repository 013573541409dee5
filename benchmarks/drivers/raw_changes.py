"""The floor under the import's 1% changed figure: what the store itself
takes to record that many changed prices, with nothing else around it.

In a copy of the store the import benchmark filled, a plain program closes
every `every`-th open price row in the order they were written (as the
changed file changes every 100th row of the first), inserts each one's
successor at a new price, and commits; on SQLite the commit includes the WAL checkpoint it
triggers, on PostgreSQL the COPY. Only that write is timed: the import
around it also reads, validates, diffs and stores the changes' own rows.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

CLOSED_AT = "2026-01-09 00:00:00+00:00"
OPEN_IDS = "SELECT id FROM price_points WHERE valid_to IS NULL ORDER BY id"


def sqlite_floor(database: str, every: int) -> tuple[float, int]:
    """Seconds of the write, and rows closed, in the SQLite store at `database`."""
    import sqlite3

    conn = sqlite3.connect(database, isolation_level=None)
    # The store's own settings (db/store/engine.py).
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "cache_size=-65536"):
        conn.execute(f"PRAGMA {pragma}")
    columns = [row[1] for row in conn.execute("PRAGMA table_info(price_points)") if row[1] != "id"]
    ids = [row[0] for row in conn.execute(OPEN_IDS)][::every]
    start = time.perf_counter()
    conn.execute("BEGIN")
    closed = []
    for at in range(0, len(ids), 500):
        chunk = ids[at : at + 500]
        closed += conn.execute(
            f"UPDATE price_points SET valid_to = ? WHERE id IN ({','.join('?' * len(chunk))})"
            f" RETURNING {', '.join(columns)}",
            [CLOSED_AT[:19], *chunk],
        ).fetchall()
    successors = [_successor(dict(zip(columns, row)), CLOSED_AT[:19]) for row in closed]
    conn.executemany(
        f"INSERT INTO price_points ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
        [tuple(row[c] for c in columns) for row in successors],
    )
    conn.execute("COMMIT")
    conn.close()
    return time.perf_counter() - start, len(closed)


def postgres_floor(url: str, every: int) -> tuple[float, int]:
    """Seconds of the write, and rows closed, in the PostgreSQL store at `url`."""
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        columns = [
            row[0]
            for row in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'price_points'"
                " AND column_name <> 'id' ORDER BY ordinal_position"
            )
        ]
        ids = [row[0] for row in conn.execute(OPEN_IDS)][::every]
        conn.commit()
        start = time.perf_counter()
        with conn.cursor() as cursor:
            closed = cursor.execute(
                f"UPDATE price_points SET valid_to = %s WHERE id = ANY(%s) RETURNING {', '.join(columns)}",
                [CLOSED_AT, ids],
            ).fetchall()
            with cursor.copy(f"COPY price_points ({', '.join(columns)}) FROM STDIN") as copy:
                for row in closed:
                    successor = _successor(dict(zip(columns, row)), CLOSED_AT)
                    copy.write_row(tuple(successor[c] for c in columns))
        conn.commit()
        return time.perf_counter() - start, len(closed)


def _successor(row: dict[str, object], at: str) -> dict[str, object]:
    return {**row, "price": f"{float(str(row['price'])) * 1.05:.5f}", "valid_from": at, "valid_to": None}


def copy_sqlite(database: Path, name: str) -> Path:
    """A copy of a closed SQLite store (its WAL folded in at close)."""
    target = database.with_name(name)
    shutil.copyfile(database, target)
    return target
