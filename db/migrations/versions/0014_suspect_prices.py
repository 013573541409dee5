"""suspect prices: the open prices a run's market check held as suspect

Revision ID: 0014
Revises: 0013
"""
from alembic import op
import sqlalchemy as sa
import db.tables


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Issue 38: a price far from its market (CoreWeave's inference column read
    # as an 8-GPU price, 8x too low) is stored, marked, and left out of the
    # rankings. The table is empty until a run holds a price; the kept rates
    # (open_type_rates) leave its keys out, so nothing to refresh here.
    op.create_table(
        'suspect_prices',
        sa.Column('source', sa.String(), nullable=False),
        sa.Column('key', sa.String(), nullable=False),
        sa.Column('provider', sa.String(), nullable=False),
        sa.Column('run_id', sa.Integer(), nullable=True),
        sa.Column('reason', sa.String(), nullable=False),
        sa.Column('observed_at', db.tables.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('source', 'key'),
    )


def downgrade() -> None:
    op.drop_table('suspect_prices')
