"""open type rates: the open prices' rates per instance type, kept by each run (and its stale providers)

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Issue 31: `recommend` and the report grouped every open price on each
    # answer (6 to 16 s on a million). The table holds what they rank from,
    # a few rows per instance type; each run that moves a price refreshes
    # its providers' rows (db/store/writes/summary.py).
    op.create_table(
        'open_type_rates',
        sa.Column('provider', sa.String(), nullable=False),
        sa.Column('instance_type', sa.String(), nullable=False),
        sa.Column('os', sa.String(), nullable=False),
        sa.Column('gpu_model', sa.String(), nullable=True),
        sa.Column('gpu_count', sa.String(), nullable=True),
        sa.Column('gpu_memory_gb', sa.String(), nullable=True),
        sa.Column('currency', sa.String(), nullable=False),
        sa.Column('cls', sa.String(), nullable=True),
        sa.Column('kind', sa.String(), nullable=True),
        sa.Column('priced', sa.Integer(), nullable=False),
        sa.Column('low', sa.Float(), nullable=True),
        sa.Column('high', sa.Float(), nullable=True),
        sa.Column('in_stock', sa.Float(), nullable=True),
        sa.Column('special', sa.Integer(), nullable=False),
    )
    op.create_index('ix_open_type_rates_provider', 'open_type_rates', ['provider', 'instance_type'])
    # A run that changed thousands of instance types (an import) marks its
    # providers here instead of working out their rates in its transaction.
    op.create_table('open_type_rates_stale', sa.Column('provider', sa.String(), primary_key=True))
    # Filled from the open prices as this tree's summary defines it (a later
    # change of that definition refreshes the table in its own revision).
    from db.store.reads.connection import Db
    from db.store.writes.summary import refresh

    bind = op.get_bind()
    # No prices are suspect yet: the suspect prices' table comes with 0014.
    refresh(Db(bind.connection.driver_connection, bind.dialect.name), suspects=False)


def downgrade() -> None:
    op.drop_table('open_type_rates_stale')
    op.drop_index('ix_open_type_rates_provider', table_name='open_type_rates')
    op.drop_table('open_type_rates')
