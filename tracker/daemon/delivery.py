"""The daemon's delivery job: one worker (`alerts.delivery.Worker`) kept for
the daemon's life, so that what a store error left unrecorded or claimed is
settled by its next round; its failures said once per outage; the outbox's
backlog as metrics. And the one-line warning of a job overlapping itself."""

from __future__ import annotations

import logging
import os
import threading
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from tracker.config.settings import Config
from tracker.daemon.health import outbox_backlog
from tracker.daemon.metrics import Metrics
from tracker.logs import exception_reason

log = logging.getLogger("gpu_tracker.daemon")


class OverlapOnce(logging.Filter):
    """APScheduler warns each time a job is due while its last run still
    goes on ("maximum number of running instances reached"): with a delivery
    every few seconds and a slow channel, every few seconds. The daemon says
    it once per overlap (`Daemon._overlap`); this drops APScheduler's repeats."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "maximum number of running instances reached" not in record.getMessage()


class Delivery:
    def __init__(self, config: Config, engine: sa.Engine, metrics: Metrics, cancel: threading.Event) -> None:
        self.config = config
        self.engine = engine
        self.metrics = metrics
        self.cancel = cancel
        self.worker: Any = None  # alerts.delivery.Worker, made by the first round
        self.store_down = False

    def _worker(self) -> Any:
        # Apprise costs a third of a second to import: paid by the first delivery, not by start-up.
        if self.worker is None:
            from tracker.run.alerting import delivery_worker

            self.worker = delivery_worker(
                self.config, self.engine, name=f"daemon-{os.getpid()}", stop=self.cancel.is_set
            )
        return self.worker

    def round(self) -> None:
        """One round. Claims a stopped worker left are released first (its
        process gone, or its lease over); a store error is said in one line
        once per outage, and what it left claimed or unrecorded is settled by
        the next round once the store answers."""
        try:
            report = self._worker().round(datetime.now(UTC))
        except sa.exc.SQLAlchemyError as exc:
            level = logging.DEBUG if self.store_down else logging.ERROR
            log.log(level, "delivery: the store failed: %s; the next rounds retry", exception_reason(exc))
            self.store_down = True
            return
        except Exception:
            log.exception("delivery failed")
            return
        self.store_answers()
        if report.released:
            log.warning(
                "delivery: %d alert(s) a stopped worker had claimed are due again",
                report.released,
                extra={"released": report.released},
            )
        for outcome, count in (("sent", report.sent), ("failed", report.failed), ("dead", report.dead)):
            if count:
                self.metrics.deliveries.labels(outcome).inc(count)
        for channel, n in report.failures_by_channel.items():
            self.metrics.delivery_failures.labels(channel).inc(n)
        self.gauge()

    def store_answers(self) -> None:
        """Said once, as soon as the store answers after a failure: by the
        first round or heartbeat that reaches it."""
        if self.store_down:
            self.store_down = False
            log.info("the store answers again")

    def gauge(self) -> None:
        try:
            backlog = outbox_backlog(self.engine)
        except Exception:
            log.debug("cannot read the outbox", exc_info=True)
            return
        if backlog is not None:
            self.metrics.observe_backlog(backlog, datetime.now(UTC))

    def settle(self) -> None:
        """What a store error left (answers to record, claims to hand back); raises while it still fails."""
        if self.worker is not None:
            self.worker.settle()
