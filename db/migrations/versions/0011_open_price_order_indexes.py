"""open price order indexes: the dashboard's price listings read a page, not a million rows

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

# The sort keys of `db.store.reads.browse` as that module spells them in its ORDER
# BY, copied here so this revision stays what it was (an index on an
# expression serves only the same expression; tests/db/test_browse_plans.py
# checks the listings use these indexes).
_TERM_HOURS = {f"{n}mo": 720 * n for n in range(1, 37)} | {f"{n}yr": 8760 * n for n in range(1, 6)}
_HOURS_SQL = "(CASE term " + " ".join(f"WHEN '{t}' THEN {h}" for t, h in _TERM_HOURS.items()) + " END)"
_PRICE_SQL = "CAST(price AS FLOAT)"
_HOURLY_SQL = (
    f"(CASE unit WHEN 'hour' THEN {_PRICE_SQL} WHEN 'month' THEN {_PRICE_SQL} / 720"
    f" WHEN 'year' THEN {_PRICE_SQL} / 8760 WHEN 'term' THEN {_PRICE_SQL} / {_HOURS_SQL} END"
    f" + COALESCE(CAST(upfront_fee AS FLOAT) / {_HOURS_SQL}, 0))"
)
_PER_GPU_HOUR_SQL = f"({_HOURLY_SQL} / NULLIF(CAST(gpu_count AS FLOAT), 0))"

_OPEN = "valid_to IS NULL"
INDEXES: dict[str, list[str | sa.TextClause]] = {
    # The CLI's order, which every listing breaks ties on (the row id, SQLite's
    # rowid, ends each index by itself).
    "ix_price_points_open_order": [
        "provider", "region", "instance_type", "price_model", "term", "os", "valid_from",
    ],
    "ix_price_points_open_price": [sa.text(_PRICE_SQL)],
    "ix_price_points_open_hourly": [sa.text(_HOURLY_SQL)],
    "ix_price_points_open_per_gpu_hour": [sa.text(_PER_GPU_HOUR_SQL)],
}


def upgrade() -> None:
    # Issue 33's listings sorted and counted every open price for a page of
    # 50: 1 to 4 s on a million. Partial indexes of the open rows hold them in
    # each order a listing is asked for, so a page reads about offset + limit
    # entries; the count stops at 10,001 (db.store.reads.browse.COUNT_CAP).
    for name, columns in INDEXES.items():
        op.create_index(
            name, 'price_points', columns, sqlite_where=sa.text(_OPEN), postgresql_where=sa.text(_OPEN)
        )


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name='price_points')
