"""price indexes: open rows found by key directly; no index on gpu_model

Revision ID: 0006
Revises: 0005
"""
from alembic import op


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A price is looked up by key only while open (valid_to null): with
    # valid_to second, the lookup skips the key's past intervals. Nothing
    # filters on gpu_model by equality (matches are case-insensitive
    # substrings), so its index only slowed every write.
    op.drop_index('ix_price_points_key', table_name='price_points')
    op.create_index('ix_price_points_key', 'price_points', ['key', 'valid_to'])
    op.drop_index('ix_price_points_gpu_model', table_name='price_points')


def downgrade() -> None:
    op.create_index('ix_price_points_gpu_model', 'price_points', ['gpu_model'])
    op.drop_index('ix_price_points_key', table_name='price_points')
    op.create_index('ix_price_points_key', 'price_points', ['key', 'valid_from'])
