"""offers as intervals

Revision ID: 0002
Revises: 0001
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
import db.tables


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    op.create_table('offers',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('offer_id', text(), nullable=False),
    sa.Column('value_hash', text(), nullable=False),
    sa.Column('source', text(), nullable=False),
    sa.Column('provider', text(), nullable=False),
    sa.Column('kind', text(), nullable=False),
    sa.Column('title', text(), nullable=False),
    sa.Column('amount', text(), nullable=True),
    sa.Column('currency', text(), nullable=True),
    sa.Column('percent_off', text(), nullable=True),
    sa.Column('min_spend', text(), nullable=True),
    sa.Column('duration_days', sa.Integer(), nullable=True),
    sa.Column('eligibility', text(), nullable=False),
    sa.Column('products', text(), nullable=False),
    sa.Column('offer_valid_from', db.tables.UTCDateTime(timezone=True), nullable=True),
    sa.Column('offer_valid_until', db.tables.UTCDateTime(timezone=True), nullable=True),
    sa.Column('source_url', text(), nullable=False),
    sa.Column('text', text(), nullable=False),
    sa.Column('text_hash', text(), nullable=False),
    sa.Column('unparsed', sa.Boolean(), nullable=False),
    sa.Column('valid_from', db.tables.UTCDateTime(timezone=True), nullable=False),
    sa.Column('valid_to', db.tables.UTCDateTime(timezone=True), nullable=True),
    sa.Column('first_run_id', sa.Integer(), nullable=True),
    sa.Column('missed_runs', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['first_run_id'], ['crawl_runs.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('offers', schema=None) as batch_op:
        batch_op.create_index('ix_offers_open', ['source', 'valid_to'], unique=False)
        batch_op.create_index('ix_offers_offer_id', ['offer_id', 'valid_from'], unique=False)
        batch_op.create_index(batch_op.f('ix_offers_provider'), ['provider'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('offers', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_offers_provider'))
        batch_op.drop_index('ix_offers_offer_id')
        batch_op.drop_index('ix_offers_open')
    op.drop_table('offers')
