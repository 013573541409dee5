"""Delivering the outbox: one message at a time, each claimed just before it
is sent and recorded as soon as its channel answered.

- **Small claims.** A worker claims the rows of one message (one change, or
  one digest), sends it and records the answer. A worker killed at any point
  strands at most that message; the next round of any worker releases it
  (its process is gone on this host, or its lease ran out elsewhere) and it
  goes again with the same idempotency key.
- **Stopping.** Between messages the worker asks `stop()`; when it says yes
  the round ends at once. Nothing else is claimed, so nothing waits to be
  handed back. The message in flight is given `stop_grace` seconds more
  (3) to be answered and recorded; a channel that hangs longer is cut off
  (its request left to run out in a thread of its own) and the message
  handed back, pending, with no attempt counted: the next start sends it.
- **Store errors.** When recording an answer fails (the database went away),
  the worker keeps the answer and hands its claim back as soon as the store
  answers again: the next round first records what it kept (a message sent
  is never sent again for want of a record), then releases the rest.
- **Flood control.** A channel that fails waits for its backoff; one that
  asks for a wait (HTTP Retry-After in seconds or as a date, Telegram's
  `retry_after`, WeCom's rate-limit errcode) waits at least that long. Only
  that channel waits: the round goes on with the others.
- **Saying so.** Each failed attempt is a WARNING (channel, HTTP status, the
  answer's first line, masked) and each dead letter an ERROR.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlmodel import Session, col, select

from alerts.channels import MASK, Channel, SendResult
from alerts.claims import claim_rows, defer_channel, hand_back, mark_failed, mark_sent, recent_sends
from alerts.outbox import RetryPolicy, claim_token, messages_for, release_stuck
from alerts.render import Message
from db.alert_tables import OutboxRow, OutboxState

log = logging.getLogger("gpu_tracker.alerts")
_T = OutboxRow.__table__


@dataclass
class DeliveryReport:
    """Messages sent, failed (to be retried) and dead-lettered in one round;
    `deferred` counts rows held back by a channel's rate limit or failure;
    `released` rows a stopped worker had left claimed."""

    sent: int = 0
    failed: int = 0
    dead: int = 0
    deferred: int = 0
    released: int = 0
    errors: list[str] = field(default_factory=list)
    failures_by_channel: dict[str, int] = field(default_factory=dict)
    dead_by_channel: dict[str, int] = field(default_factory=dict)
    stopped: bool = False

    def failure(self, channel: str, *, dead: bool) -> None:
        self.failures_by_channel[channel] = self.failures_by_channel.get(channel, 0) + 1
        if dead:
            self.dead += 1
            self.dead_by_channel[channel] = self.dead_by_channel.get(channel, 0) + 1
        else:
            self.failed += 1


@dataclass
class _Unrecorded:
    """A channel's answer the store could not take: recorded in a later round."""

    token: str
    rows: list[OutboxRow]
    message_key: str
    result: SendResult
    at: datetime


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:300]


# Seconds a message in flight is still given once the worker is told to stop.
STOP_GRACE = 3.0


class _CutOff(Exception):
    """The worker was told to stop and the channel had not answered within the grace."""


class Worker:
    """One delivery worker. The daemon keeps one for its life, so that what a
    store error left unrecorded or claimed is settled by its next round."""

    def __init__(
        self,
        engine: sa.Engine,
        channels: Mapping[str, Channel],
        policy: RetryPolicy,
        *,
        name: str,
        lease_seconds: int = 600,
        stop: Callable[[], bool] = lambda: False,
        stop_grace: float = STOP_GRACE,
    ) -> None:
        self.engine = engine
        self.channels = channels
        self.policy = policy
        self.name = name
        self.lease_seconds = lease_seconds
        self.stop = stop
        self.stop_grace = stop_grace
        self._started = time.monotonic()  # when the round began, `now` by this process's clock
        self.unrecorded: list[_Unrecorded] = []
        self.abandoned: set[str] = set()

    # --- one round ------------------------------------------------------------

    def round(self, now: datetime) -> DeliveryReport:
        """Send every row due at `now`, once; a failing channel waits for its
        backoff. Raises the store's error when it fails meanwhile; the next
        round settles what this one left."""
        report = DeliveryReport()
        token = claim_token(self.name)
        self._started = time.monotonic()
        try:
            self.settle()
            report.released = release_stuck(self.engine, now=now, lease_seconds=self.lease_seconds)
            self._deliver(now, token, report)
        except sa.exc.SQLAlchemyError:
            self.abandoned.add(token)
            raise
        return report

    def settle(self) -> None:
        """What an earlier store error left: answers to record, claims to hand back."""
        while self.unrecorded:
            kept = self.unrecorded[0]
            ids = [r.id for r in kept.rows if r.id is not None]
            if kept.result.ok:
                mark_sent(self.engine, ids, kept.message_key, kept.result.answer, kept.at, token=kept.token)
            else:
                self._record_failure(kept.rows, kept.result, kept.at, DeliveryReport(), kept.token)
            self.unrecorded.pop(0)
        if self.abandoned:
            with self.engine.begin() as conn:
                conn.execute(
                    sa.update(_T)
                    .where(_T.c.claimed_by.in_(sorted(self.abandoned)), _T.c.state == OutboxState.sending)
                    .values(state=OutboxState.pending, claimed_by=None, claimed_at=None)
                )
            self.abandoned.clear()

    def _clock(self, now: datetime) -> datetime:
        """The round's `now`, moved on by the time the round has taken: what
        an answer is stamped with, and what a backoff counts from (a channel
        that took 20 s to fail waits its backoff from then, not from the
        round's start)."""
        return now + timedelta(seconds=time.monotonic() - self._started)

    def _due(self, now: datetime, after: int) -> list[OutboxRow]:
        with Session(self.engine) as session:
            stmt = (
                select(OutboxRow)
                .where(
                    OutboxRow.state == OutboxState.pending, OutboxRow.next_attempt_at <= now, col(OutboxRow.id) > after
                )
                .order_by(col(OutboxRow.id))
                .limit(self.policy.batch_size)
            )
            return list(session.exec(stmt).all())

    def _deliver(self, now: datetime, token: str, report: DeliveryReport) -> None:
        after = 0
        waiting: set[str] = set()  # channels that failed or reached their rate limit this round
        while page := self._due(now, after):
            after = page[-1].id or after
            by_channel: dict[str, list[OutboxRow]] = {}
            for row in page:
                by_channel.setdefault(row.channel, []).append(row)
            for name, rows in by_channel.items():
                if name in waiting:
                    continue
                channel = self.channels.get(name)
                if channel is None:
                    self._unknown_channel(name, rows, now, token, report)
                    continue
                for message, message_rows in messages_for(rows, channel):
                    if self.stop():
                        report.stopped = True
                        return
                    try:
                        sent = self._send_one(channel, message, message_rows, now, token, report)
                    except _CutOff:
                        report.stopped = True
                        return
                    if not sent:
                        waiting.add(name)
                        break

    def _send_one(
        self,
        channel: Channel,
        message: Message,
        rows: list[OutboxRow],
        now: datetime,
        token: str,
        report: DeliveryReport,
    ) -> bool:
        """Claims, sends and records one message; False when its channel must wait."""
        if channel.limits.per_minute:
            count, oldest = recent_sends(self.engine, channel.name, self._clock(now))
            if count >= channel.limits.per_minute and oldest is not None:
                report.deferred += defer_channel(
                    self.engine, channel.name, now, oldest + timedelta(minutes=1, seconds=1)
                )
                return False
        ids = [r.id for r in rows if r.id is not None]
        if not claim_rows(self.engine, ids, now=now, token=token):
            return True  # another worker has it
        result = self._send(channel, message)
        if result is None:  # cut off by a stop: handed back untouched, sent by the next start
            hand_back(self.engine, ids, token)
            log.warning(
                "%s: stopping: the channel had not answered within %g s; the message stays pending",
                channel.name,
                self.stop_grace,
                extra={"channel": channel.name},
            )
            raise _CutOff
        answered = self._clock(now)
        try:
            if result.ok:
                mark_sent(self.engine, ids, message.key, result.answer, answered, token=token)
            else:
                retry_at = self._record_failure(rows, result, answered, report, token, channel=channel)
                report.deferred += defer_channel(self.engine, channel.name, answered, retry_at)
        except sa.exc.SQLAlchemyError:
            self.unrecorded.append(_Unrecorded(token, rows, message.key, result, answered))
            raise
        if result.ok:
            report.sent += 1
            return True
        return False

    def _send(self, channel: Channel, message: Message) -> SendResult | None:
        """`channel.send(message)` in a thread of its own, waited for until it
        answers, or (None) until `stop_grace` seconds after a stop: the
        request a hanging channel holds runs out there, not in the way of
        the process stopping."""
        done: list[SendResult] = []

        def send() -> None:
            try:
                done.append(channel.send(message))
            except BaseException as exc:  # `send` catches the channel's errors; anything else is said here
                done.append(SendResult(False, f"{type(exc).__name__}: {exc}"))

        sender = threading.Thread(target=send, name=f"send-{channel.name}", daemon=True)
        sender.start()
        stopping_since: float | None = None
        while not done:
            sender.join(0.2)
            if done:
                break
            if not sender.is_alive():
                return done[0] if done else SendResult(False, "the send ended without an answer")
            if stopping_since is None and self.stop():
                stopping_since = time.monotonic()
            if stopping_since is not None and time.monotonic() - stopping_since >= self.stop_grace:
                return None
        return done[0]

    def _record_failure(
        self,
        rows: Sequence[OutboxRow],
        result: SendResult,
        now: datetime,
        report: DeliveryReport,
        token: str,
        *,
        channel: Channel | None = None,
    ) -> datetime:
        name = rows[0].channel if rows else "?"
        service = channel.service if channel is not None else name
        error = MASK(f"{service}: {result.answer}")
        floor = now + timedelta(seconds=result.retry_after) if result.retry_after else result.retry_at
        dead, retry_at, attempts = mark_failed(self.engine, rows, error, now, self.policy, floor=floor, token=token)
        report.errors.append(f"{name}: {error}")
        report.failure(name, dead=dead)
        status = f"HTTP {result.status}" if result.status else "no HTTP answer"
        asked = (
            f" (the channel asked for {result.retry_after:g} s)"
            if result.retry_after
            else f" (the channel asked to wait until {result.retry_at:%H:%M:%S} UTC)"
            if result.retry_at
            else ""
        )
        fields = {"channel": name, "http_status": result.status, "attempt": attempts}
        log.warning(
            "%s: delivery failed (%s, attempt %d of %d): %s; next attempt %s%s",
            name,
            status,
            attempts,
            self.policy.max_attempts,
            first_line(result.answer),
            "none" if dead else retry_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
            asked,
            extra=fields,
        )
        if dead:
            log.error(
                "%s: gave up on %d alert(s) after %d attempts (%s): %s; "
                "`gpu-tracker alerts retry --channel %s` sends them again",
                name,
                len(rows),
                attempts,
                status,
                first_line(result.answer),
                name,
                extra={**fields, "outcome": "dead"},
            )
        return retry_at

    def _unknown_channel(
        self, name: str, rows: list[OutboxRow], now: datetime, token: str, report: DeliveryReport
    ) -> None:
        ids = [r.id for r in rows if r.id is not None]
        if not claim_rows(self.engine, ids, now=now, token=token):
            return
        error = f"no [[channel]] named {name!r} in the configuration"
        self._record_failure(rows, SendResult(False, error, retryable=False), now, report, token)
