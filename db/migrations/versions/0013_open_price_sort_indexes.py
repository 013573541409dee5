"""open price sort indexes: every sort and filter of the dashboard's price listings reads a page

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

_OPEN = "valid_to IS NULL"
# Each sort key of `db.store.reads.browse.SORTS` that 0011 does not index, leading
# the place (provider, region, instance_type) that breaks most of its ties:
# a listing sorted by one of them reads each value's rows in the listing's
# order (the few rows of one place sorted apart), in either direction
# (db.store.reads.browse reads a descending sort a value at a time), and a filter
# on the column reads only its matches. The GPU count is spelled as browse
# orders by it. The instance type needs none: ix_price_points_instance
# (instance_type, valid_from) leads with it already.
INDEXES: dict[str, list[str | sa.TextClause]] = {
    "ix_price_points_open_region": ["region", "provider", "instance_type"],
    "ix_price_points_open_gpu_model": ["gpu_model", "provider", "region", "instance_type"],
    "ix_price_points_open_gpu_count": [sa.text("CAST(gpu_count AS FLOAT)"), "provider", "region", "instance_type"],
    "ix_price_points_open_price_model": ["price_model", "term", "provider", "region", "instance_type"],
    "ix_price_points_open_valid_from": ["valid_from", "provider", "region", "instance_type"],
}


def upgrade() -> None:
    for name, columns in INDEXES.items():
        op.create_index(
            name, 'price_points', columns, sqlite_where=sa.text(_OPEN), postgresql_where=sa.text(_OPEN)
        )


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name='price_points')
