"""Stored rows of the alerts: the outbox and the last notified values.

The outbox holds one row per change and channel. Its idempotency key is
derived from the change and the channel, so a change routed twice (by two
rules, or a crawl replayed) is stored once, and a message sent again after a
crash carries the same key.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from db.tables import UTCDateTime


def _time(**kw: Any) -> Any:
    return Field(sa_type=UTCDateTime, **kw)


class OutboxState:
    pending = "pending"
    sending = "sending"
    sent = "sent"
    dead = "dead"
    all = ("pending", "sending", "sent", "dead")


class OutboxRow(SQLModel, table=True):
    __tablename__ = "alert_outbox"
    __table__: ClassVar[sa.Table]  # set by SQLModel; declared for the type checker
    __table_args__ = (
        sa.Index("ix_alert_outbox_due", "state", "next_attempt_at"),
        sa.Index("ix_alert_outbox_channel_sent", "channel", "sent_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    idempotency_key: str = Field(unique=True)
    channel: str
    rules: str = ""
    kind: str
    provider: str = ""
    # The change as JSON, with the old price set to the last notified one.
    change: str
    # Rows with the same digest label and channel go out as one digest.
    digest: str | None = None
    state: str = OutboxState.pending
    attempts: int = 0
    next_attempt_at: datetime = _time()
    created_at: datetime = _time()
    claimed_by: str | None = None
    claimed_at: datetime | None = _time(default=None)
    sent_at: datetime | None = _time(default=None)
    message_key: str | None = None
    last_error: str | None = None
    answer: str | None = None


class NotifiedValue(SQLModel, table=True):
    """What a rule last told its channels about one price: the reference
    that thresholds and hysteresis are measured against."""

    __tablename__ = "alert_notified"
    __table__: ClassVar[sa.Table]  # set by SQLModel; declared for the type checker
    __table_args__ = (sa.UniqueConstraint("rule", "key", name="uq_alert_notified_rule_key"),)

    id: int | None = Field(default=None, primary_key=True)
    rule: str
    key: str
    price: str
    currency: str = ""
    unit: str = ""
    # "down" or "up": the direction of the last notified move.
    direction: str = ""
    notified_at: datetime = _time()
