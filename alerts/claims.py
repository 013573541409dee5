"""Claiming outbox rows and recording what their channel answered: each a
statement or two in a transaction of its own (`alerts/delivery.py` says
when each is used)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import sqlalchemy as sa

from alerts.outbox import RetryPolicy
from db.alert_tables import OutboxRow, OutboxState

_T = OutboxRow.__table__


def claim_rows(engine: sa.Engine, ids: Sequence[int], *, now: datetime, token: str) -> bool:
    """Claims exactly these rows, or none: False when another worker holds or
    has sent any of them. On PostgreSQL rows another worker is claiming are
    skipped (`FOR UPDATE SKIP LOCKED`), never waited for."""
    if not ids:
        return False
    free = (
        sa.select(_T.c.id)
        .where(_T.c.id.in_(list(ids)), _T.c.state == OutboxState.pending, _T.c.next_attempt_at <= now)
        .with_for_update(skip_locked=True)
    )
    with engine.begin() as conn:
        if len(conn.execute(free).all()) != len(ids):
            return False
        # The state test keeps SQLite (no row locks) from claiming a row twice.
        claimed = conn.execute(
            sa.update(_T)
            .where(_T.c.id.in_(list(ids)), _T.c.state == OutboxState.pending)
            .values(state=OutboxState.sending, claimed_by=token, claimed_at=now)
        ).rowcount
        if claimed != len(ids):
            conn.rollback()
            return False
    return True


def hand_back(engine: sa.Engine, ids: Sequence[int], token: str) -> None:
    """Claimed rows pending again, as they were: no attempt counted."""
    with engine.begin() as conn:
        conn.execute(
            sa.update(_T)
            .where(_T.c.id.in_(list(ids)), _T.c.claimed_by == token, _T.c.state == OutboxState.sending)
            .values(state=OutboxState.pending, claimed_by=None, claimed_at=None)
        )


def mark_sent(
    engine: sa.Engine, ids: Sequence[int], message_key: str, answer: str, now: datetime, *, token: str
) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.update(_T)
            .where(_T.c.id.in_(list(ids)), _T.c.claimed_by == token)
            .values(
                state=OutboxState.sent,
                sent_at=now,
                message_key=message_key,
                answer=answer[:1000],
                attempts=_T.c.attempts + 1,
                claimed_by=None,
            )
        )


def mark_failed(
    engine: sa.Engine,
    rows: Sequence[OutboxRow],
    error: str,
    now: datetime,
    policy: RetryPolicy,
    *,
    floor: datetime | None,
    token: str,
) -> tuple[bool, datetime, int]:
    """Back off every row of a failed message, no sooner than `floor`: whether
    any went dead, when the next attempt is, and the attempts made."""
    dead, retry_at, attempts = False, max(now + policy.backoff(1), floor or now), 1
    with engine.begin() as conn:
        for row in rows:
            attempts = row.attempts + 1
            if attempts >= policy.max_attempts:
                values: dict[str, object] = dict(state=OutboxState.dead)
                dead = True
            else:
                retry_at = max(now + policy.backoff(attempts), floor or now)
                values = dict(state=OutboxState.pending, next_attempt_at=retry_at)
            conn.execute(
                sa.update(_T)
                .where(_T.c.id == row.id, _T.c.claimed_by == token)
                .values(attempts=attempts, last_error=error[:1000], claimed_by=None, claimed_at=None, **values)
            )
    return dead, retry_at, attempts


def defer_channel(engine: sa.Engine, channel: str, now: datetime, until: datetime) -> int:
    """The channel's due rows wait until `until`: its backoff, its rate limit or the wait it asked for."""
    with engine.begin() as conn:
        result = conn.execute(
            sa.update(_T)
            .where(_T.c.channel == channel, _T.c.state == OutboxState.pending, _T.c.next_attempt_at <= now)
            .values(next_attempt_at=until)
        )
    return int(result.rowcount or 0)


def recent_sends(engine: sa.Engine, channel: str, now: datetime) -> tuple[int, datetime | None]:
    """Messages the channel took in the minute before `now`, and the oldest's time."""
    since = now - timedelta(minutes=1)
    stmt = sa.select(sa.func.count(sa.distinct(_T.c.message_key)), sa.func.min(_T.c.sent_at)).where(
        _T.c.channel == channel, _T.c.state == OutboxState.sent, _T.c.sent_at > since, _T.c.sent_at <= now
    )
    with engine.connect() as conn:
        count, oldest = conn.execute(stmt).one()
    if isinstance(oldest, datetime) and oldest.tzinfo is None:
        oldest = oldest.replace(tzinfo=now.tzinfo)
    return int(count or 0), oldest
