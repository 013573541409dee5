"""price place index: prices found by provider, region and instance type

Revision ID: 0010
Revises: 0009
"""
from alembic import op


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The answers read prices by where they are (issue 31): `prices` and
    # `history` with --provider and --region, and the few instances that
    # `tco`, `recommend` and the report work out exactly after ranking the
    # aggregates ((provider, region, instance_type) IN ...). Without it each
    # of those reads scanned every interval of every price.
    op.create_index('ix_price_points_place', 'price_points', ['provider', 'region', 'instance_type'])


def downgrade() -> None:
    op.drop_index('ix_price_points_place', table_name='price_points')
