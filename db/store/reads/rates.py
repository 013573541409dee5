"""The one hourly-rate expression: a price's effective hourly rate (and per
GPU-hour) in SQL, as `db.money.effective_hourly` works it out, in floating
point: it orders and prunes, the exact figure is computed per row.

Its text is written out, constants and all: an index on an expression serves
an ORDER BY only when the query spells the same expression (SQLite compares
the parsed trees, and a bound parameter never equals a literal). Migration
0011 indexes these very strings over the open prices (a migration's text is
history: tests/db/test_browse_plans.py checks that it still spells them);
the dashboard's listings sort by them (`db.store.reads.browse`), the
analytics' aggregates rank by them (`db.store.reads.rankings`) and the kept
rates are worked out with them (`db.store.writes.summary`).

The terms are those providers sell (1 to 36 months, 1 to 5 years); a price
of another term has no hourly rate here.
"""

from __future__ import annotations

from typing import Any

# Hours in the commitment terms providers sell, as db.money.term_hours reads them.
TERM_HOURS = {f"{n}mo": 720 * n for n in range(1, 37)} | {f"{n}yr": 8760 * n for n in range(1, 6)}
HOURS_SQL = "(CASE term " + " ".join(f"WHEN '{t}' THEN {h}" for t, h in TERM_HOURS.items()) + " END)"
PRICE_SQL = "CAST(price AS FLOAT)"
HOURLY_SQL = (
    f"(CASE unit WHEN 'hour' THEN {PRICE_SQL} WHEN 'month' THEN {PRICE_SQL} / 720"
    f" WHEN 'year' THEN {PRICE_SQL} / 8760 WHEN 'term' THEN {PRICE_SQL} / {HOURS_SQL} END"
    f" + COALESCE(CAST(upfront_fee AS FLOAT) / {HOURS_SQL}, 0))"
)
PER_GPU_HOUR_SQL = f"({HOURLY_SQL} / NULLIF(CAST(gpu_count AS FLOAT), 0))"
# `HOURLY_SQL` as an aggregate reads it (the rankings, the kept rates): the
# same rate, a price without a term read without the term table, which a
# scan would otherwise look up (41 comparisons) for every row's upfront fee:
# a grouped scan of 300,000 prices took 1.4-1.7 s instead of 0.5-0.8 s.
SCAN_HOURLY_SQL = (
    f"(CASE WHEN term = '' THEN (CASE unit WHEN 'hour' THEN {PRICE_SQL} WHEN 'month' THEN {PRICE_SQL} / 720"
    f" WHEN 'year' THEN {PRICE_SQL} / 8760 END) ELSE {HOURLY_SQL} END)"
)
GPU_COUNT_SQL = "CAST(gpu_count AS FLOAT)"  # indexed by migration 0013


def _sql(text: str) -> Any:
    import sqlalchemy as sa

    return sa.literal_column(text, sa.Float)


def hourly_expression() -> Any:
    """`HOURLY_SQL` as a SQLAlchemy column (the listings' ORDER BY)."""
    return _sql(HOURLY_SQL)


def per_gpu_hour_expression() -> Any:
    """`PER_GPU_HOUR_SQL` as a SQLAlchemy column: null without a GPU count."""
    return _sql(PER_GPU_HOUR_SQL)
