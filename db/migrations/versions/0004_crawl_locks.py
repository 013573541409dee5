"""crawl locks: one crawl of a source at a time on SQLite

Revision ID: 0004
Revises: 0001
"""
from alembic import op
import sqlalchemy as sa
import db.tables


revision = '0004'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'crawl_locks',
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('owner', sa.String(), nullable=False),
        sa.Column('host', sa.String(), nullable=False),
        sa.Column('pid', sa.Integer(), nullable=False),
        sa.Column('acquired_at', db.tables.UTCDateTime(timezone=True), nullable=False),
        sa.Column('expires_at', db.tables.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('name'),
    )


def downgrade() -> None:
    op.drop_table('crawl_locks')
