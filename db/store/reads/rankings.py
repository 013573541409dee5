"""The analytics' aggregates, asked of the store in SQL: per instance and
kind of price its cheapest hourly rate, the GPU shapes a store holds, the
cheapest price per GPU model and kind. They rank and prune; they never
give a figure a user sees. What the open prices' rates per instance type
(`open_type_rates`, kept by each run: `db.store.writes.summary`) can answer, they
answer from it: a few rows per instance type instead of every price. The rates are floats, for ranking only: the
analytics then read the few rows they show (`db.store.reads.rows.prices`)
and work them out again with exact Decimals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from db.kinds import PRICE_KINDS
from db.store.reads.connection import Db
from db.store.reads.rates import SCAN_HOURLY_SQL
from db.store.reads.rows import PriceFilter, any_suspect

# The kind of price a row offers to the TCO and recommend (`tracker.analytics.tco.instance_rates`).
RATE_CLASS = """CASE
  WHEN price_model = 'on_demand' AND unit = 'hour' THEN 'on_demand'
  WHEN price_model IN ('spot', 'low_priority') THEN 'spot'
  WHEN price_model = 'monthly' THEN 'monthly'
  WHEN price_model IN ('reserved', 'savings_plan', 'yearly') AND term = '1yr' THEN 'reserved_1yr'
  WHEN price_model IN ('reserved', 'savings_plan', 'yearly') AND term = '3yr' THEN 'reserved_3yr'
END"""
# The kinds `RATE_CLASS` names.
RATE_CLASSES = ("on_demand", "spot", "monthly", "reserved_1yr", "reserved_3yr")
# What a price states beside it that changes what an hour costs (tracker/analytics/tco.py).
SPECIAL_ATTRS = ("local_ssd_hourly", "hourly_steps")


def hourly(db: Db) -> str:
    """A row's effective hourly rate as a float: the one expression
    (`db.store.reads.rates.HOURLY_SQL`, the dashboard's sort), as a scan reads it."""
    return SCAN_HOURLY_SQL


def table_scan(db: Db) -> str:
    """The prices table read whole. On SQLite a scan of the table: left to
    itself SQLite walks a partial index of the open rows (migrations 0011,
    0013) and fetches each row apart, four to ten times slower."""
    return "price_points NOT INDEXED" if db.dialect == "sqlite" else "price_points"


def prices_table(db: Db, where: PriceFilter) -> str:
    """The prices table as an aggregate over `where` should read it: whole
    (`table_scan`) unless a place narrows it."""
    narrowed = (where.provider, where.region, where.instance_type, where.instances, where.types)
    return table_scan(db) if all(v is None for v in narrowed) else "price_points"


def special_case() -> str:
    """1 for a row that states a bundled disk or tiered rates (`special_patterns()` its parameters), else 0."""
    return "CASE WHEN " + " OR ".join("attrs LIKE ?" for _ in SPECIAL_ATTRS) + " THEN 1 ELSE 0 END"


def special_patterns() -> list[str]:
    return [f'%"{name}"%' for name in SPECIAL_ATTRS]


def kind_case(kinds: dict[str, str]) -> str:
    """A row's kind of price, price models grouped as `kinds` names them."""
    return "CASE price_model " + " ".join(f"WHEN '{m}' THEN '{k}'" for m, k in kinds.items()) + " ELSE price_model END"


def _regional(db: Db, condition: str, table: str = "price_points") -> str:
    """Per instance, currency and kind of price: the cheapest rate, whether a
    row states a bundled disk or tiered rates, whether a row is sold out."""
    return f"""
SELECT provider, region, instance_type, gpu_model, gpu_count, gpu_memory_gb, currency, cls,
       min(rate) AS rate, max(special) AS special, max(sold_out) AS sold_out
FROM (
  SELECT provider, region, instance_type, gpu_model, gpu_count, gpu_memory_gb, currency,
         {RATE_CLASS} AS cls, {hourly(db)} AS rate,
         {special_case()} AS special,
         CASE WHEN availability = 'sold_out' THEN 1 ELSE 0 END AS sold_out
  FROM {table} WHERE {condition}
) AS priced
WHERE rate IS NOT NULL
GROUP BY provider, region, instance_type, gpu_model, gpu_count, gpu_memory_gb, currency, cls"""


# The kept rates per instance type, and the providers whose rows wait (`db.store.writes.summary`).
SUMMARY = "open_type_rates"
SUMMARY_STALE = "open_type_rates_stale"


def summarized(db: Db, where: PriceFilter, *, one_os: bool = False) -> tuple[str, list[Any]] | None:
    """`where` as a condition on `open_type_rates`, or None when the table
    cannot answer it: it holds the open prices only, per instance type (no
    region, price model or single instance), its in-stock rate is per
    operating system (`one_os`: the answer needs one), and a provider a bulk
    write marked stale is not in it yet."""
    narrower = (
        *(where.region, where.price_model, where.instance_type, where.gpu_count, where.instances, where.types),
        *(where.availability, where.currency, where.regions, where.gpu_models),
    )
    if not where.current or any(v is not None for v in narrower) or (one_os and not where.os):
        return None
    # A provider marked stale by a bulk write (db.store.writes.summary.after_run): its prices answer.
    waiting = {p for (p,) in db.tuples(f"SELECT provider FROM {SUMMARY_STALE}")}
    if waiting and (where.provider is None or where.provider in waiting):
        return None
    # The table leaves the suspect prices out: an answer that includes them reads the prices.
    if where.include_suspect and any_suspect(db):
        return None
    return replace(where, current=False, include_suspect=True).where(db)


def instance_rates(db: Db, where: PriceFilter) -> Iterator[dict[str, Any]]:
    """Per instance (provider, region, instance type) and currency, a row of
    a priced row of it: the cheapest hourly rate of each kind of price
    (a column per `RATE_CLASSES`, NULL where it has none), whether some row
    states a bundled disk or tiered rates (`special`), and whether some row
    is sold out; streamed, in no order (sorting them made PostgreSQL sort
    the prices before grouping them: twice the time at a million). One row
    an instance, not one a kind: a fifth of the rows to group, send and read."""
    condition, params = where.where(db)
    columns = ", ".join(f"min(CASE WHEN cls = '{c}' THEN rate END) AS {c}" for c in RATE_CLASSES)
    sql = f"""
SELECT provider, region, instance_type, gpu_model, gpu_count, gpu_memory_gb, currency, {columns},
       max(special) AS special, max(sold_out) AS sold_out
FROM (
  SELECT provider, region, instance_type, gpu_model, gpu_count, gpu_memory_gb, currency,
         {RATE_CLASS} AS cls, {hourly(db)} AS rate,
         {special_case()} AS special,
         CASE WHEN availability = 'sold_out' THEN 1 ELSE 0 END AS sold_out
  FROM {prices_table(db, where)} WHERE {condition}
) AS priced
WHERE rate IS NOT NULL
GROUP BY provider, region, instance_type, gpu_model, gpu_count, gpu_memory_gb, currency"""
    return db.stream(sql, [*special_patterns(), *params])


def _by_class(per_class: str) -> str:
    """Rows of (type, currency, kind) folded into a row per type and
    currency: a `<kind>_low`, `<kind>_high` and `<kind>_in_stock` column per `RATE_CLASSES`."""
    columns = ", ".join(
        f"min(CASE WHEN cls = '{c}' THEN low END) AS {c}_low, max(CASE WHEN cls = '{c}' THEN high END) AS {c}_high, "
        f"min(CASE WHEN cls = '{c}' THEN in_stock END) AS {c}_in_stock"
        for c in RATE_CLASSES
    )
    return f"""SELECT provider, instance_type, gpu_model, gpu_count, currency, {columns}, max(special) AS special
FROM ({per_class}) AS per_class
GROUP BY provider, instance_type, gpu_model, gpu_count, currency
ORDER BY provider, instance_type"""


def type_rates(db: Db, where: PriceFilter, *, kept_table: bool = True) -> Iterator[dict[str, Any]]:
    """Per instance type (provider, type) and currency, over its regions, for
    each kind of price (`_by_class`'s columns): the lowest and the highest of
    the regions' cheapest rates, the lowest in a region where no price of the
    instance is sold out (NULL if none); whether a row is special; in the
    order of the types, streamed. A row a type, not one a type and kind: a
    fifth of the rows to send and read."""
    kept = summarized(db, where, one_os=True) if kept_table else None
    if kept is not None:
        condition, params = kept
        sql = f"""SELECT provider, instance_type, gpu_model, gpu_count, currency, cls, min(low) AS low,
       max(high) AS high, min(in_stock) AS in_stock, max(special) AS special
FROM {SUMMARY} WHERE priced = 1 AND {condition}
GROUP BY provider, instance_type, gpu_model, gpu_count, currency, cls"""
        return db.stream(_by_class(sql), params)
    condition, params = where.where(db)
    sql = f"""
WITH regional AS ({_regional(db, condition, prices_table(db, where))}
), placed AS (
  SELECT regional.*, max(sold_out) OVER (PARTITION BY provider, region, instance_type) AS instance_sold_out
  FROM regional
)
SELECT provider, instance_type, gpu_model, gpu_count, currency, cls, min(rate) AS low, max(rate) AS high,
       min(CASE WHEN instance_sold_out = 0 THEN rate END) AS in_stock, max(special) AS special
FROM placed
GROUP BY provider, instance_type, gpu_model, gpu_count, currency, cls"""
    return db.stream(_by_class(sql), [*special_patterns(), *params])


def shapes(db: Db, where: PriceFilter, *, kept_table: bool = True) -> list[dict[str, Any]]:
    """The distinct GPU shapes of the prices `where` asks for: operating
    system, instance type, GPU model, count and memory (what decides whether
    a price can hold a job)."""
    kept = summarized(db, where) if kept_table else None
    condition, params = kept or where.where(db)
    table = SUMMARY if kept is not None else prices_table(db, where)
    sql = f"""SELECT DISTINCT os, instance_type, gpu_model, gpu_count, gpu_memory_gb
FROM {table} WHERE {condition} ORDER BY instance_type, gpu_model, gpu_count, gpu_memory_gb, os"""
    return db.rows(sql, params)


# The temporary table `cheapest_rows` ranks in.
RANKED = "answer_ranked"


def cheapest_rows(
    db: Db,
    where: PriceFilter,
    fx_of: Callable[[list[str]], dict[str, float]],
    price_models: Sequence[str],
    limit: int,
) -> list[tuple[str, str, str]] | None:
    """The instances of the prices `where` (and `price_models`) asks for that
    hold a price per GPU-hour, converted at the rates `fx_of` gives for the
    currencies of the prices `where` asks for (a rate per currency; it may
    raise), at most a hair above the limit-th cheapest; None when fewer
    prices match (all of them rank) or none does. The prices are read once,
    into a temporary table of their rates in their own currency: the
    currencies, the limit-th rate and the instances under it are asked of
    that (three scans of the prices were each as dear as the scan itself).
    None too where the connection may make no temporary table (a read-only
    replica): every price then ranks, the same answer, slower."""
    if not db.temp_tables():
        return None
    condition, params = where.where(db)
    per_gpu = f"({hourly(db)}) / {db.number('gpu_count')}"
    db.execute(f"DROP TABLE IF EXISTS {RANKED}")
    try:
        # CREATE ... AS, not INSERT ... SELECT: PostgreSQL reads the prices
        # with its parallel workers for the one and never for the other.
        db.execute(
            f"CREATE TEMPORARY TABLE {RANKED} AS SELECT provider, region, instance_type, price_model, currency, "
            f"{per_gpu} AS per_gpu FROM {prices_table(db, where)} WHERE {condition}",
            params,
        )
        fx = fx_of(sorted(c for (c,) in db.tuples(f"SELECT DISTINCT currency FROM {RANKED}")))
        if not fx:
            return None
        models = f"price_model IN ({', '.join('?' * len(price_models))})" if price_models else "1 = 1"
        rate = "CASE currency " + " ".join("WHEN ? THEN ?" for _ in fx) + " END"
        fx_params = [v for item in sorted(fx.items()) for v in item]
        ranked = f"SELECT provider, region, instance_type, per_gpu * ({rate}) AS per_gpu FROM {RANKED} WHERE {models}"
        found = db.tuples(
            f"SELECT per_gpu FROM ({ranked}) AS r WHERE per_gpu IS NOT NULL ORDER BY per_gpu LIMIT 1 OFFSET ?",
            [*fx_params, *price_models, limit - 1],
        )
        if not found:
            return None
        bar = float(found[0][0])
        bar += abs(bar) * 1e-9 + 1e-9  # floats of a few operations are closer than this to the exact figure
        sql = (
            f"SELECT DISTINCT provider, region, instance_type FROM ({ranked}) AS r WHERE per_gpu <= ? ORDER BY 1, 2, 3"
        )
        return [tuple(r) for r in db.tuples(sql, [*fx_params, *price_models, bar])]
    finally:
        db.execute(f"DROP TABLE IF EXISTS {RANKED}")


def cheapest_per_gpu(
    db: Db, where: PriceFilter, kinds: dict[str, str], *, kept_table: bool = True
) -> list[dict[str, Any]]:
    """Per GPU model, kind of price (price models grouped as `kinds` names
    them) and currency: the lowest rate per GPU-hour, a float."""
    kept = summarized(db, where) if kinds == PRICE_KINDS and kept_table else None
    if kept is not None:
        condition, params = kept
        sql = f"""SELECT gpu_model, kind, currency, min(low / {db.number("gpu_count")}) AS low
FROM {SUMMARY} WHERE priced = 1 AND {condition} GROUP BY gpu_model, kind, currency"""
        return db.rows(sql, params)
    condition, params = where.where(db)
    per_gpu = f"({hourly(db)}) / {db.number('gpu_count')}"
    sql = f"""SELECT gpu_model, {kind_case(kinds)} AS kind, currency, min({per_gpu}) AS low
FROM {prices_table(db, where)} WHERE {condition} GROUP BY gpu_model, {kind_case(kinds)}, currency"""
    return db.rows(sql, params)


def instances_below(
    db: Db,
    where: PriceFilter,
    kinds: dict[str, str],
    bars: Sequence[tuple[str, str, str, float]],
    *,
    kept_table: bool = True,
) -> list[tuple[str, str, str]]:
    """The instances with a price per GPU-hour at most the bar of its
    (GPU model, kind, currency), in that currency. The bars are a temporary
    table keyed as the rows look them up: one lookup a row, not one per bar;
    the instance types that can hold such a price are found first in
    `open_type_rates` when it can answer `where`. Where the connection may
    make no temporary table (a read-only replica), the bars are a `WITH`
    list of values instead."""
    if not bars:
        return []
    if not db.temp_tables():
        values = ", ".join("(?, ?, ?, ?)" for _ in bars)
        listed = f"WITH answer_bars (gpu_model, kind, currency, top) AS (VALUES {values})\n"
        return _below(db, where, kinds, kept_table, listed, [v for bar in bars for v in bar])
    db.execute("DROP TABLE IF EXISTS answer_bars")
    db.execute(
        "CREATE TEMPORARY TABLE answer_bars (gpu_model TEXT, kind TEXT, currency TEXT, top FLOAT, "
        "PRIMARY KEY (gpu_model, kind, currency))"
    )
    try:
        db.execute("INSERT INTO answer_bars VALUES (?, ?, ?, ?)", many=bars)
        return _below(db, where, kinds, kept_table, "", [])
    finally:
        db.execute("DROP TABLE answer_bars")


def _below(
    db: Db, where: PriceFilter, kinds: dict[str, str], kept_table: bool, bars_sql: str, bars_params: list[Any]
) -> list[tuple[str, str, str]]:
    """`instances_below` once the bars are a table named `answer_bars`
    (`bars_sql` the `WITH` that makes it, and its parameters, or nothing)."""
    kept = summarized(db, where) if kinds == PRICE_KINDS and kept_table else None
    if kept is not None:
        condition, params = kept
        sql = f"""{bars_sql}SELECT DISTINCT s.provider, s.instance_type
FROM (SELECT provider, instance_type, gpu_model, kind, currency, low / {db.number("gpu_count")} AS per_gpu
      FROM {SUMMARY} WHERE priced = 1 AND {condition}) AS s
JOIN answer_bars AS bar ON s.gpu_model = bar.gpu_model AND s.kind = bar.kind AND s.currency = bar.currency
WHERE s.per_gpu <= bar.top"""
        types = tuple(sorted(tuple(r) for r in db.tuples(sql, [*bars_params, *params])))
        if not types:
            return []
        where = replace(where, types=types)
    condition, params = where.where(db)
    per_gpu = f"({hourly(db)}) / {db.number('gpu_count')}"
    sql = f"""{bars_sql}SELECT DISTINCT p.provider, p.region, p.instance_type
FROM (SELECT provider, region, instance_type, gpu_model, {kind_case(kinds)} AS kind, currency, {per_gpu} AS per_gpu
      FROM {prices_table(db, where)} WHERE {condition}) AS p
JOIN answer_bars AS bar ON p.gpu_model = bar.gpu_model AND p.kind = bar.kind AND p.currency = bar.currency
WHERE p.per_gpu <= bar.top
ORDER BY 1, 2, 3"""
    return [tuple(r) for r in db.tuples(sql, [*bars_params, *params])]


def short_of_stock(db: Db, where: PriceFilter, gpus: float) -> list[dict[str, Any]]:
    """The prices `where` asks for that may not supply a need of `gpus` GPUs
    now: sold out, or a marketplace group whose host offers are fewer than
    the instances the need takes (offer_count * gpu_count below `gpus`, with
    a hair of slack: the caller checks the exact Decimals again). Exact
    numbers as stored (text). The prices held as suspect are left out here,
    of the few rows found: asked of every row in SQL, that test cost 400x
    the scan (39 s against 0.08 s at 100,000 prices on SQLite)."""
    condition, params = replace(where, include_suspect=True).where(db)
    sql = f"""SELECT source, key, provider, region, instance_type, gpu_count, availability, offer_count
FROM {prices_table(db, where)} WHERE {condition}
  AND (availability = 'sold_out' OR (offer_count IS NOT NULL AND offer_count * {db.number("gpu_count")} < ?))"""
    rows = db.rows(sql, [*params, gpus + 1e-6])
    if rows and not where.include_suspect and any_suspect(db):
        held = set(db.tuples("SELECT source, key FROM suspect_prices"))
        rows = [r for r in rows if (r["source"], r["key"]) not in held]
    return rows
