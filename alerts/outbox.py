"""The outbox: every message a rule selects, until its channel took it.

Rows are written in the crawl's transaction (with its changes or not at
all), one per change and channel. `alerts.delivery` sends them: it claims
the rows of one message at a time (on PostgreSQL with `SELECT ... FOR UPDATE
SKIP LOCKED`, so two workers never take the same row), sends it, and records
it as soon as its channel answered: a killed worker leaves at most the
message in flight unrecorded, and that one goes again with the same
idempotency key. Failures back off exponentially (`retry_base_seconds` *
2^(attempts-1)); after `max_attempts` a row is dead-lettered until
`alerts retry`. Here: writing rows, releasing claims a stopped worker left,
grouping rows into messages, listing and retrying.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from alerts.channels import Channel
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


def claim_token(worker: str) -> str:
    """A claim's owner: the worker, this host and process, and a nonce."""
    token = f"{worker}:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    _OUR_CLAIMS.add(token)
    return token


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


# --- messages ---------------------------------------------------------------


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
