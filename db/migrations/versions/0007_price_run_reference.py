"""price rows name their first run without a foreign key on PostgreSQL

Revision ID: 0007
Revises: 0006
"""
import sqlalchemy as sa
from alembic import op


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # On PostgreSQL the key checked every inserted price row against
    # crawl_runs with a row lock: 12 µs of server time per row, more than
    # the table's three indexes together, for a reference nothing can break
    # (runs are never deleted; a rewound run is kept, marked superseded).
    # SQLite checks it in-process for next to nothing, and dropping it there
    # would rebuild the whole table: it stays.
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql':
        return
    for fk in sa.inspect(bind).get_foreign_keys('price_points'):
        if fk['constrained_columns'] == ['first_run_id'] and fk['name']:
            op.drop_constraint(fk['name'], 'price_points', type_='foreignkey')


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.create_foreign_key(
            'price_points_first_run_id_fkey', 'price_points', 'crawl_runs', ['first_run_id'], ['id']
        )
