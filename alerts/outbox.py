"""The outbox: every message a rule selects, until its channel took it.

Rows are written in the crawl's transaction (with its changes or not at
all), one per change and channel. Delivery claims due rows (on PostgreSQL
with `SELECT ... FOR UPDATE SKIP LOCKED`, so two workers never take the same
row), sends them, and records each message as soon as its channel answered:
a killed worker leaves at most the message in flight unrecorded, and that
one goes again with the same idempotency key. Failures back off
exponentially (`retry_base_seconds` * 2^(attempts-1)); after `max_attempts`
a row is dead-lettered until `alerts retry`.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from alerts.channels import MASK, Channel
from alerts.render import Item, Message, digest, single
from alerts.rules import Routed
from db.alert_tables import OutboxRow, OutboxState
from db.schema import Change, stable_hash
from db.store.process import pid_alive

_T = OutboxRow.__table__
# Claims made by this process; a claim under our pid that is not here is a
# previous process's (a container restarted with the same pid and host).
_OUR_CLAIMS: set[str] = set()


@dataclass(frozen=True)
class RetryPolicy:
    retry_base_seconds: int = 30
    max_attempts: int = 8
    max_backoff_seconds: int = 6 * 3600
    batch_size: int = 500

    def backoff(self, attempts: int) -> timedelta:
        return timedelta(seconds=min(self.retry_base_seconds * 2 ** max(attempts - 1, 0), self.max_backoff_seconds))


@dataclass
class DeliveryReport:
    """Messages sent, failed (to be retried) and dead-lettered in one round;
    `deferred` counts rows held back by a channel's rate limit or failure."""

    sent: int = 0
    failed: int = 0
    dead: int = 0
    deferred: int = 0
    errors: list[str] = field(default_factory=list)


def idempotency_key(channel: str, change: Change) -> str:
    detail = json.dumps(change.detail, sort_keys=True, ensure_ascii=False)
    return stable_hash(
        (
            "outbox",
            channel,
            change.kind,
            change.source,
            change.provider,
            change.key,
            change.observed_at.isoformat(),
            change.old_price,
            change.new_price,
            detail,
        )
    )


def enqueue(session: Session, routed: Sequence[Routed], now: datetime) -> int:
    """Add rows in the caller's transaction; rows already there are kept."""
    rows = [
        dict(
            idempotency_key=idempotency_key(r.channel, r.original),
            channel=r.channel,
            rules=",".join(r.rules),
            kind=str(r.change.kind),
            provider=r.change.provider,
            change=r.change.model_dump_json(),
            digest=r.digest,
            state=OutboxState.pending,
            attempts=0,
            next_attempt_at=r.due,
            created_at=now,
        )
        for r in routed
    ]
    if not rows:
        return 0
    conn = session.connection()
    insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    stmt = insert(_T).on_conflict_do_nothing(index_elements=["idempotency_key"])
    return int(conn.execute(stmt, rows).rowcount or 0)


def row_change(row: OutboxRow) -> Change:
    return Change.model_validate_json(row.change)


# --- claiming ---------------------------------------------------------------


def _claim_token(worker: str) -> str:
    token = f"{worker}:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    _OUR_CLAIMS.add(token)
    return token


def claim(engine: sa.Engine, *, now: datetime, worker: str, limit: int) -> list[OutboxRow]:
    token = _claim_token(worker)
    due = sa.select(_T.c.id).where(_T.c.state == OutboxState.pending, _T.c.next_attempt_at <= now)
    due = due.order_by(_T.c.id).limit(limit).with_for_update(skip_locked=True)
    with engine.begin() as conn:
        ids = list(conn.execute(due).scalars())
        if not ids:
            return []
        # The state test keeps SQLite (no row locks) from claiming a row twice.
        conn.execute(
            sa.update(_T)
            .where(_T.c.id.in_(ids), _T.c.state == OutboxState.pending)
            .values(state=OutboxState.sending, claimed_by=token, claimed_at=now)
        )
    with Session(engine) as session:
        stmt = select(OutboxRow).where(OutboxRow.claimed_by == token, OutboxRow.state == OutboxState.sending)
        return list(session.exec(stmt.order_by(col(OutboxRow.id))).all())


def release_stuck(engine: sa.Engine, *, now: datetime, lease_seconds: int = 600) -> int:
    """Rows left 'sending' by a worker that died go back to 'pending': on
    this host when its process is gone, elsewhere when the lease ran out."""
    host = socket.gethostname()
    with engine.begin() as conn:
        stuck = conn.execute(
            sa.select(_T.c.id, _T.c.claimed_by, _T.c.claimed_at).where(_T.c.state == OutboxState.sending)
        ).all()
        ids = []
        for row_id, token, claimed_at in stuck:
            parts = (token or "").split(":")
            pid = int(parts[-2]) if len(parts) >= 4 and parts[-2].isdigit() else None
            if len(parts) >= 4 and parts[-3] == host and pid is not None:
                dead = not pid_alive(pid) or (pid == os.getpid() and token not in _OUR_CLAIMS)
            else:
                dead = claimed_at is None or claimed_at <= now - timedelta(seconds=lease_seconds)
            if dead:
                ids.append(row_id)
        if ids:
            conn.execute(
                sa.update(_T)
                .where(_T.c.id.in_(ids), _T.c.state == OutboxState.sending)
                .values(state=OutboxState.pending, claimed_by=None, claimed_at=None)
            )
    return len(ids)


# --- recording answers ------------------------------------------------------


def _mark_sent(engine: sa.Engine, ids: Sequence[int], message: Message, answer: str, now: datetime) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.update(_T)
            .where(_T.c.id.in_(list(ids)))
            .values(
                state=OutboxState.sent,
                sent_at=now,
                message_key=message.key,
                answer=answer[:1000],
                attempts=_T.c.attempts + 1,
                claimed_by=None,
            )
        )


def _mark_failed(
    engine: sa.Engine, rows: Sequence[OutboxRow], error: str, now: datetime, policy: RetryPolicy
) -> tuple[bool, datetime]:
    """Back off every row of a failed message; True when any went dead."""
    dead, retry_at = False, now + policy.backoff(1)
    with engine.begin() as conn:
        for row in rows:
            attempts = row.attempts + 1
            if attempts >= policy.max_attempts:
                values = dict(state=OutboxState.dead)
                dead = True
            else:
                retry_at = now + policy.backoff(attempts)
                values = dict(state=OutboxState.pending, next_attempt_at=retry_at)
            conn.execute(
                sa.update(_T)
                .where(_T.c.id == row.id)
                .values(attempts=attempts, last_error=error[:1000], claimed_by=None, claimed_at=None, **values)
            )
    return dead, retry_at


def _defer(engine: sa.Engine, ids: Sequence[int], until: datetime) -> None:
    if ids:
        with engine.begin() as conn:
            conn.execute(
                sa.update(_T)
                .where(_T.c.id.in_(list(ids)), _T.c.state == OutboxState.sending)
                .values(state=OutboxState.pending, next_attempt_at=until, claimed_by=None, claimed_at=None)
            )


def _recent_sends(engine: sa.Engine, channel: str, now: datetime) -> tuple[int, datetime | None]:
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


# --- delivery ---------------------------------------------------------------


def messages_for(rows: Sequence[OutboxRow], channel: Channel) -> list[tuple[Message, list[OutboxRow]]]:
    """Immediate rows one message each; rows of one digest packed together."""
    by_key = {r.idempotency_key: r for r in rows}
    groups: dict[str, list[Item]] = {}
    out: list[tuple[int, Message]] = []
    for row in rows:
        item = (row.idempotency_key, row_change(row))
        if row.digest:
            groups.setdefault(row.digest, []).append(item)
        else:
            out.append((row.id or 0, single(item, channel.family, channel.limits)))
    for label, items in groups.items():
        for message in digest(items, channel.family, label.split(" @ ")[0], channel.limits):
            out.append((by_key[message.row_keys[0]].id or 0, message))
    out.sort(key=lambda pair: pair[0])
    return [(m, [by_key[k] for k in m.row_keys]) for _, m in out]


def deliver(
    engine: sa.Engine, channels: Mapping[str, Channel], policy: RetryPolicy, *, now: datetime, worker: str
) -> DeliveryReport:
    """Send every row due at `now`, once; a failing channel waits for its backoff."""
    report = DeliveryReport()
    # Rows that fail or wait for a rate limit are due later, so this ends.
    while rows := claim(engine, now=now, worker=worker, limit=policy.batch_size):
        try:
            _deliver_batch(engine, channels, rows, policy, now, report)
        except BaseException:
            # Stopped (SIGTERM, Ctrl-C, a bug): what was not recorded goes back.
            _defer(engine, [r.id for r in rows if r.id is not None], now)
            raise
    return report


def _deliver_batch(
    engine: sa.Engine,
    channels: Mapping[str, Channel],
    rows: Sequence[OutboxRow],
    policy: RetryPolicy,
    now: datetime,
    report: DeliveryReport,
) -> None:
    by_channel: dict[str, list[OutboxRow]] = {}
    for row in rows:
        by_channel.setdefault(row.channel, []).append(row)
    for name, channel_rows in by_channel.items():
        channel = channels.get(name)
        if channel is None:
            error = f"no [[channel]] named {name!r} in the configuration"
            report.errors.append(error)
            dead, _ = _mark_failed(engine, channel_rows, error, now, policy)
            report.dead += int(dead)
            report.failed += int(not dead)
            continue
        _deliver_channel(engine, channel, channel_rows, policy, now, report)


def _deliver_channel(
    engine: sa.Engine,
    channel: Channel,
    rows: Sequence[OutboxRow],
    policy: RetryPolicy,
    now: datetime,
    report: DeliveryReport,
) -> None:
    pending = messages_for(rows, channel)
    for index, (message, message_rows) in enumerate(pending):
        rest = [r.id for _, later in pending[index:] for r in later if r.id is not None]
        if channel.limits.per_minute:
            count, oldest = _recent_sends(engine, channel.name, now)
            if count >= channel.limits.per_minute and oldest is not None:
                _defer(engine, rest, oldest + timedelta(minutes=1, seconds=1))
                report.deferred += len(rest)
                return
        result = channel.send(message)
        if result.ok:
            _mark_sent(engine, [r.id for r in message_rows if r.id is not None], message, result.answer, now)
            report.sent += 1
            continue
        error = MASK(f"{channel.service}: {result.answer}")
        report.errors.append(f"{channel.name}: {error}")
        dead, retry_at = _mark_failed(engine, message_rows, error, now, policy)
        report.dead += int(dead)
        report.failed += int(not dead)
        later = [r.id for _, more in pending[index + 1 :] for r in more if r.id is not None]
        _defer(engine, later, retry_at)
        report.deferred += len(later)
        return


# --- inspection and retry ---------------------------------------------------


def list_rows(
    session: Session, *, state: str | None = None, channel: str | None = None, limit: int | None = 100
) -> list[OutboxRow]:
    stmt = select(OutboxRow)
    if state:
        stmt = stmt.where(OutboxRow.state == state)
    if channel:
        stmt = stmt.where(OutboxRow.channel == channel)
    stmt = stmt.order_by(col(OutboxRow.id).desc())
    if limit:
        stmt = stmt.limit(limit)
    return list(session.exec(stmt).all())


def retry(
    engine: sa.Engine,
    *,
    now: datetime,
    ids: Sequence[int] = (),
    channel: str | None = None,
    include_pending: bool = False,
) -> int:
    """Dead letters (and, if asked, rows waiting out a backoff) become due now."""
    states = [OutboxState.dead] + ([OutboxState.pending] if include_pending else [])
    stmt = sa.update(_T).where(_T.c.state.in_(states))
    if ids:
        stmt = stmt.where(_T.c.id.in_(list(ids)))
    if channel:
        stmt = stmt.where(_T.c.channel == channel)
    reset_attempts = sa.case((_T.c.state == OutboxState.dead, 0), else_=_T.c.attempts)
    with engine.begin() as conn:
        result = conn.execute(stmt.values(state=OutboxState.pending, next_attempt_at=now, attempts=reset_attempts))
    return int(result.rowcount or 0)
