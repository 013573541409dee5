"""marketplace aggregates: a price row's median price and offer count

Revision ID: 0009
Revises: 0007
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op


revision = '0009'
# The current head on main; another branch adds 0008 (offers): the merge renumbers.
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable, no default: adding them rewrites no row on either database,
    # and every list price keeps None (docs/marketplaces.md).
    with op.batch_alter_table('price_points') as batch:
        batch.add_column(sa.Column('median_price', sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch.add_column(sa.Column('offer_count', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('price_points') as batch:
        batch.drop_column('offer_count')
        batch.drop_column('median_price')
