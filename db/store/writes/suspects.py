"""The prices held as suspect (`suspect_prices`, see
`tracker/normalize/suspect.py`): the market a run's prices are judged
against, read from the other providers' open prices, and the run's marks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from db.kinds import PRICE_KINDS
from db.store.reads.connection import Db
from db.store.reads.rankings import hourly, kind_case, table_scan
from db.store.reads.rows import NOT_SUSPECT

TABLE = "suspect_prices"
# Marks inserted at a time.
INSERT_BATCH = 10_000


def peer_rates(db: Db, provider: str) -> list[tuple[Any, ...]]:
    """Per instance type of every other provider, GPU model, kind of price
    (marketplace aggregates their own kind) and currency: the cheapest rate
    per GPU-hour over its regions, a float. Suspect prices are no peers."""
    kind = f"CASE WHEN offer_count IS NOT NULL THEN 'marketplace' ELSE {kind_case(PRICE_KINDS)} END"
    sql = f"""
SELECT provider, gpu_model, kind, currency, min(rate) FROM (
  SELECT provider, instance_type, gpu_model, {kind} AS kind, currency,
         ({hourly(db)}) / {db.number("gpu_count")} AS rate
  FROM {table_scan(db)}
  WHERE valid_to IS NULL AND provider <> ? AND gpu_model IS NOT NULL AND gpu_model <> ''
    AND {db.number("gpu_count")} > 0 AND {NOT_SUSPECT}
) AS rated
WHERE rate IS NOT NULL AND rate > 0
GROUP BY provider, instance_type, gpu_model, kind, currency"""
    return db.tuples(sql, [provider])


def suspect_keys(db: Db, source: str) -> set[str]:
    """The keys of `source` whose open price is held as suspect."""
    return {key for (key,) in db.tuples(f"SELECT key FROM {TABLE} WHERE source = ?", [source])}


def mark(
    db: Db,
    *,
    source: str,
    provider: str,
    run_id: int | None,
    observed_at: datetime,
    judged: Iterable[str],
    suspects: Mapping[str, str],
    marked: set[str] | None = None,
) -> None:
    """The run's marks: the keys it wrote a price of (`judged`) lose their
    mark, then those it held (`suspects`, key -> reason) get one. `marked`:
    the source's marked keys before the run (`suspect_keys`, in the run's
    transaction), when known: only those have a mark to lose (a first
    import of a million prices sorted and deleted a million keys for none)."""
    if marked is None:
        keys = sorted(set(judged) | set(suspects))
    else:
        keys = sorted({key for key in judged if key in marked} | {key for key in suspects if key in marked})
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        db.execute(f"DELETE FROM {TABLE} WHERE source = ? AND key IN ({', '.join('?' * len(chunk))})", [source, *chunk])
    when = db.time(observed_at)
    held = sorted(suspects)
    # A batch at a time: a first import can hold a third of a million prices.
    for start in range(0, len(held), INSERT_BATCH):
        rows: Sequence[tuple[Any, ...]] = [
            (key, provider, source, run_id, suspects[key], when) for key in held[start : start + INSERT_BATCH]
        ]
        db.execute(
            f"INSERT INTO {TABLE} (key, provider, source, run_id, reason, observed_at) VALUES (?, ?, ?, ?, ?, ?)",
            many=rows,
        )


def reasons(db: Db, prices: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Why each of these (source, key) prices is held (only those that are)."""
    wanted = set(prices)
    if not wanted:
        return {}
    rows = db.tuples(f"SELECT source, key, reason FROM {TABLE}")
    return {(source, key): reason for source, key, reason in rows if (source, key) in wanted}


def held_count(db: Db, gpu: str | None = None) -> int:
    """How many open prices (of a GPU model matched in part) are held as suspect.
    Each mark looked up in the prices by its key (a source has one open
    price a key): joined, SQLite walked a million open prices to probe the
    marks, 5 s of every `recommend` at a million (issue 41). `|| ''` keeps
    SQLite on the key index (given the source, it walks the source's). A
    scalar subquery, not EXISTS: PostgreSQL made EXISTS a hash join over
    every open price (0.5 to 0.8 s at a million), the subquery a probe a mark."""
    gpu_match = " AND lower(p.gpu_model) LIKE ?" if gpu else ""
    sql = (
        f"SELECT count(*) FROM {TABLE} AS s WHERE (SELECT 1 FROM price_points AS p "
        f"WHERE p.key = s.key AND p.valid_to IS NULL AND p.source || '' = s.source{gpu_match} LIMIT 1) IS NOT NULL"
    )
    return int(db.tuples(sql, [f"%{gpu.lower()}%"] if gpu else [])[0][0])


def held(db: Db) -> list[dict[str, Any]]:
    """The open prices held as suspect, with the reason, by provider and
    instance (then as the prices are read: `db.store.reads.rows.PRICE_ORDER`).
    Each mark looked up in the prices by its key: `CROSS JOIN` keeps SQLite
    on the marks first, which would otherwise walk every open price in the
    index of their order (1.6 s of CPU at a million prices with 29,000
    marks, against 0.16 s; the report, issue 41). On PostgreSQL a lateral
    subquery fenced by `OFFSET 0` does the same: joined, the planner hashed
    every open price (0.53 to 0.95 s at a million, against 0.25 to 0.39 s)."""
    columns = (
        "p.provider, p.source, p.region, p.instance_type, p.gpu_model, p.gpu_count, p.price_model, "
        "p.price, p.currency, p.unit, s.reason"
    )
    if db.dialect == "sqlite":
        prices = f"{TABLE} AS s CROSS JOIN price_points AS p\nWHERE p.key = s.key AND p.source = s.source AND p.valid_to IS NULL"
    else:
        prices = (
            f"{TABLE} AS s CROSS JOIN LATERAL (SELECT * FROM price_points AS p\n"
            "  WHERE p.key = s.key AND p.source = s.source AND p.valid_to IS NULL OFFSET 0) AS p"
        )
    sql = f"""SELECT {columns}
FROM {prices}
ORDER BY p.provider, p.instance_type, p.region, p.price_model, p.term, p.os, p.valid_from, p.id"""
    return db.rows(sql)
