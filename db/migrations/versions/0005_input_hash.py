"""price points remember the import row they came from

Revision ID: 0005
Revises: 0001
"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable, no default: on both back ends a plain ADD COLUMN, which
    # touches no existing row however large the table.
    op.add_column('price_points', sa.Column('input_hash', sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('price_points') as batch:
        batch.drop_column('input_hash')
