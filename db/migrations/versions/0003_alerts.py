"""alerts: outbox and last notified values

Revision ID: 0003
Revises: 0001
"""
from alembic import op
import sqlalchemy as sa

import db.tables

revision = "0003"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "alert_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("idempotency_key", sa.String(), nullable=False),
        sa.Column("channel", sa.String(), nullable=False),
        sa.Column("rules", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("provider", sa.String(), nullable=False),
        sa.Column("change", sa.Text(), nullable=False),
        sa.Column("digest", sa.String(), nullable=True),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", db.tables.UTCDateTime(timezone=True), nullable=False),
        sa.Column("created_at", db.tables.UTCDateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(), nullable=True),
        sa.Column("claimed_at", db.tables.UTCDateTime(timezone=True), nullable=True),
        sa.Column("sent_at", db.tables.UTCDateTime(timezone=True), nullable=True),
        sa.Column("message_key", sa.String(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("idempotency_key"),
    )
    with op.batch_alter_table("alert_outbox", schema=None) as batch_op:
        batch_op.create_index("ix_alert_outbox_due", ["state", "next_attempt_at"], unique=False)
        batch_op.create_index("ix_alert_outbox_channel_sent", ["channel", "sent_at"], unique=False)

    op.create_table(
        "alert_notified",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("rule", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("price", sa.String(), nullable=False),
        sa.Column("currency", sa.String(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        sa.Column("direction", sa.String(), nullable=False),
        sa.Column("notified_at", db.tables.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("rule", "key", name="uq_alert_notified_rule_key"),
    )


def downgrade() -> None:
    op.drop_table("alert_notified")
    with op.batch_alter_table("alert_outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_alert_outbox_channel_sent")
        batch_op.drop_index("ix_alert_outbox_due")
    op.drop_table("alert_outbox")
