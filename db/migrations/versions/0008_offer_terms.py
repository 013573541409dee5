"""offers keep the terms read from their text

Revision ID: 0008
Revises: 0002 (the offers branch; the store's revisions branch from 0001)
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op


revision = '0008'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # JSON text: GPU time, ladder tier, caps, price models, order limit. Rows
    # stored before stay NULL; the offer diff rewrites them silently the next
    # time their source is crawled (a NULL is "not read yet", not a change).
    with op.batch_alter_table('offers', schema=None) as batch_op:
        batch_op.add_column(sa.Column('terms', sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('offers', schema=None) as batch_op:
        batch_op.drop_column('terms')
