"""spot bands: the interruption band of each spot pool, with its history

Revision ID: 0015
Revises: 0014
"""
from alembic import op
import sqlalchemy as sa
import db.tables


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Issue 42, item 3: AWS's Spot Instance Advisor band per instance type,
    # region and OS (db/spot_risk.py), one row per band a pool held.
    op.create_table(
        'spot_bands',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('source', sa.String(), nullable=False),
        sa.Column('provider', sa.String(), nullable=False),
        sa.Column('instance_type', sa.String(), nullable=False),
        sa.Column('region', sa.String(), nullable=False),
        sa.Column('os', sa.String(), nullable=False),
        sa.Column('band', sa.String(), nullable=False),
        sa.Column('rank', sa.Integer(), nullable=False),
        sa.Column('savings_percent', sa.Integer(), nullable=True),
        sa.Column('source_url', sa.String(), nullable=False),
        sa.Column('run_id', sa.Integer(), nullable=True),
        sa.Column('valid_from', db.tables.UTCDateTime(timezone=True), nullable=False),
        sa.Column('valid_to', db.tables.UTCDateTime(timezone=True), nullable=True),
        sa.Column('last_seen', db.tables.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_spot_bands_open', 'spot_bands', ['source', 'valid_to'])
    op.create_index('ix_spot_bands_pool', 'spot_bands', ['provider', 'instance_type', 'region'])


def downgrade() -> None:
    op.drop_index('ix_spot_bands_pool', table_name='spot_bands')
    op.drop_index('ix_spot_bands_open', table_name='spot_bands')
    op.drop_table('spot_bands')
