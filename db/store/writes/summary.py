"""The open prices' rates per instance type, kept as a table
(`open_type_rates`) by each run that moves a price, so that the answers
that rank the whole store (`recommend`, the report) read a few rows per
instance type instead of pricing and grouping every open price.

A row holds, per instance type, operating system, GPU shape, currency, kind
of rate (`rankings.RATE_CLASS`) and kind of price (`db.kinds.PRICE_KINDS`),
over the type's regions: the lowest and the highest of the regions'
cheapest rates, the lowest in a region where no price of the instance (on
that system) is sold out, and whether a price states a bundled disk or
tiered rates; the rows with no hourly rate appear once per shape
(`priced` 0), for the shapes alone. The figures are floats, for ranking
only, worked out by the very SQL `rankings` runs over the prices
(`tests/db/test_summary.py` holds the two equal).

A run refreshes the rows of the instance types it wrote or closed prices
of, in its own transaction: the table never says what the prices do not.
A run that changed more than `TYPES_AT_ONCE` types (a first import, a
bulk re-import) marks its providers stale instead (`open_type_rates_stale`)
and leaves the work to just after its transaction: the daemon after its
run, and `gpu-tracker import` before it ends, work it out (`settle`: one
grouped scan of the providers' prices), so that the first answer after
them reads the table (issue 41: `recommend` paid 12 s at a million prices).
While a provider is stale (a process killed in between, a store the
answer may not write) the answers read its prices
(`db.store.reads.rankings.summarized`), and the first `recommend` or
report that can write works it out. A crawl that moves a few prices pays a
few milliseconds in its own transaction.
"""

from __future__ import annotations

from collections.abc import Iterable

from db.kinds import PRICE_KINDS
from db.store.reads.connection import Db
from db.store.reads.rankings import RATE_CLASS, hourly, kind_case, special_case, special_patterns, table_scan
from db.store.reads.rankings import SUMMARY as TABLE
from db.store.reads.rankings import SUMMARY_STALE as STALE
from db.store.reads.rows import NOT_SUSPECT

# The columns an answer may filter the table on (`rankings.summarized`).
SHAPE = ("provider", "instance_type", "os", "gpu_model", "gpu_count", "gpu_memory_gb")
KEY = (*SHAPE, "currency", "cls", "kind", "priced")
COLUMNS = (*KEY, "low", "high", "in_stock", "special")


# An instance's columns (a price's place and shape); the first four are never NULL.
_INSTANCE = ("provider", "region", "instance_type", "os", "gpu_model", "gpu_count", "gpu_memory_gb")


def _select(db: Db, condition: str, prices: str = "price_points", *, suspects: bool = True) -> str:
    """The table's rows worked out from the open prices of `prices` that
    meet `condition`, whose parameters are bound twice, after the special
    patterns: the rates of the instances, then the instances with a sold-out
    priced row (`sold`: few, matched by an index SQLite builds for the
    join). Grouping the regions' rates by instance and then the instance
    types sorts the prices twice; a window over each instance to tell the
    sold-out ones sorted them a third time (4.8 of 11.8 s of CPU at a
    million prices; issue 41)."""
    instance = ", ".join(_INSTANCE)
    open_rows = f"valid_to IS NULL AND {NOT_SUSPECT if suspects else '1 = 1'} AND {condition}"
    same = "IS" if db.dialect == "sqlite" else "IS NOT DISTINCT FROM"
    placed = " AND ".join(f"s.{c} = r.{c}" if i < 4 else f"s.{c} {same} r.{c}" for i, c in enumerate(_INSTANCE))
    return f"""
WITH rated AS (
  SELECT {instance}, currency,
         {RATE_CLASS} AS cls, {kind_case(PRICE_KINDS)} AS kind, {hourly(db)} AS rate,
         {special_case()} AS special
  FROM {prices} WHERE {open_rows}
), regional AS (
  SELECT {instance}, currency, cls, kind, CASE WHEN rate IS NULL THEN 0 ELSE 1 END AS priced,
         min(rate) AS rate, max(special) AS special
  FROM rated
  GROUP BY {instance}, currency, cls, kind, CASE WHEN rate IS NULL THEN 0 ELSE 1 END
), sold AS (
  SELECT DISTINCT {instance} FROM {prices}
  WHERE availability = 'sold_out' AND {open_rows} AND {hourly(db)} IS NOT NULL
)
SELECT {", ".join(f"r.{c}" for c in SHAPE)}, r.currency, r.cls, r.kind, r.priced, min(r.rate), max(r.rate),
       min(CASE WHEN s.provider IS NULL THEN r.rate END), max(CASE WHEN r.priced = 1 THEN r.special ELSE 0 END)
FROM regional AS r LEFT JOIN sold AS s ON r.priced = 1 AND {placed}
GROUP BY {", ".join(f"r.{c}" for c in SHAPE)}, r.currency, r.cls, r.kind, r.priced"""


# Past this many instance types a run changed, its providers are marked
# stale instead: one later scan of their prices costs less than a lookup per type.
TYPES_AT_ONCE = 2000


def after_run(db: Db, types: Iterable[tuple[str, str]]) -> None:
    """In a run's transaction: the rows of the instance types it changed
    worked out again, or (past TYPES_AT_ONCE) their providers marked stale."""
    changed = sorted(set(types))
    if len(changed) <= TYPES_AT_ONCE:
        refresh(db, types=changed)
        return
    known = stale(db)
    fresh = sorted({provider for provider, _ in changed} - known)
    db.execute(f"INSERT INTO {STALE} (provider) VALUES (?)", many=[(p,) for p in fresh])


def stale(db: Db) -> set[str]:
    """The providers whose rows wait to be worked out again."""
    return {provider for (provider,) in db.tuples(f"SELECT provider FROM {STALE}")}


def refresh_stale(db: Db) -> set[str]:
    """The stale providers' rows worked out again (the caller commits); the providers."""
    providers = stale(db)
    if providers:
        refresh(db, providers)
    return providers


def settle(db: Db) -> set[str]:
    """For an answer about to read the table: the stale providers' rows
    worked out and committed; nothing on a store it may not write (its
    prices answer for those providers meanwhile). The providers refreshed."""
    if not stale(db):
        return set()
    try:
        with db.scanning():
            done = refresh_stale(db)
        db.conn.commit()
    except Exception:  # a read-only store, or a writer holding it: the prices answer
        db.conn.rollback()
        return set()
    return done


def refresh(
    db: Db,
    providers: Iterable[str] | None = None,
    *,
    types: Iterable[tuple[str, str]] | None = None,
    suspects: bool = True,
) -> None:
    """The table's rows worked out again from the open prices: of
    `providers` (and no longer stale), or of the (provider, instance type)
    `types`, or (neither given) of every provider. `suspects` False: for a
    store older than the suspect prices' table (migration 0012)."""
    patterns = special_patterns()
    columns = ", ".join(COLUMNS)
    if types is not None:
        changed = sorted(set(types))
        if not changed:
            return
        db.execute("DROP TABLE IF EXISTS summary_types")
        db.execute("CREATE TEMPORARY TABLE summary_types (provider TEXT, instance_type TEXT)")
        try:
            db.execute("INSERT INTO summary_types VALUES (?, ?)", many=changed)
            keys = "(provider, instance_type) IN (SELECT provider, instance_type FROM summary_types)"
            db.execute(f"DELETE FROM {TABLE} WHERE {keys}")
            # Each type's open prices through the index on the instance type.
            prices = (
                "(SELECT p.* FROM summary_types AS t JOIN price_points AS p "
                "ON p.instance_type = t.instance_type AND p.provider = t.provider) AS p"
            )
            db.execute(f"INSERT INTO {TABLE} ({columns}) {_select(db, '1 = 1', prices)}", patterns)
        finally:
            db.execute("DROP TABLE summary_types")
        return
    if providers is None:
        db.execute(f"DELETE FROM {TABLE}")
        db.execute(f"DELETE FROM {STALE}")
        condition, params = "1 = 1", []
    else:
        names = sorted(set(providers))
        if not names:
            return
        marks = ", ".join("?" * len(names))
        db.execute(f"DELETE FROM {TABLE} WHERE provider IN ({marks})", names)
        db.execute(f"DELETE FROM {STALE} WHERE provider IN ({marks})", names)
        condition, params = f"provider IN ({marks})", names
    db.execute(
        f"INSERT INTO {TABLE} ({columns}) {_select(db, condition, table_scan(db), suspects=suspects)}",
        [*patterns, *params, *params],
    )
