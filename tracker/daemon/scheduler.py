"""`gpu-tracker daemon`: every source crawled on its schedule, the outbox
delivered on its own short interval, staleness announced, metrics served.

APScheduler's BlockingScheduler runs the jobs in threads; each crawl runs its
spider in a child process with a hard timeout (tracker/run/crawl.py), so a hung
browser costs one run, never the daemon. The crawl lock in `crawl_source`
keeps two daemons (or a daemon and a manual crawl) off one source.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor as Pool
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from types import FrameType

import sqlalchemy as sa
from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, EVENT_JOB_MAX_INSTANCES, JobExecutionEvent
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.base import STATE_RUNNING
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.interval import IntervalTrigger
from croniter import croniter
from sqlmodel import Session, col, select

from db.kinds import RunStatus
from db.store.locks import pending_locks, release_pending
from db.tables import CrawlRun
from tracker.config.schedule import SourceSchedule, parse_span
from tracker.config.settings import Config
from tracker.daemon.delivery import Delivery, OverlapOnce
from tracker.daemon.health import check_config as check_config
from tracker.daemon.health import check_staleness
from tracker.daemon.metrics import Metrics
from tracker.errors import SourceSkipped, TrackerError
from tracker.logs import exception_reason
from tracker.run.captures import prune_captures
from tracker.run.child import CrawlCancelled
from tracker.run.pipeline import Pipeline, RunReport
from tracker.run.service import SourceBusy, crawl_source

log = logging.getLogger("gpu_tracker.daemon")
HEARTBEAT_SECONDS = 5
SHUTDOWN_GRACE_SECONDS = 25


class CronTrigger(BaseTrigger):
    """Standard crontab semantics (0 = Sunday), from croniter; APScheduler 3's
    own `from_crontab` counts weekdays from Monday."""

    def __init__(self, expression: str, jitter: int | None = None) -> None:
        self.expression = expression
        self.jitter = jitter

    def get_next_fire_time(self, previous_fire_time: datetime | None, now: datetime) -> datetime | None:
        base = max(previous_fire_time, now) if previous_fire_time else now
        fire = croniter(self.expression, base).get_next(datetime)
        return self._apply_jitter(fire, self.jitter, now)

    def __str__(self) -> str:
        return f"cron[{self.expression}]"


def _trigger(schedule: SourceSchedule, default_every: str, jitter: int) -> BaseTrigger:
    if schedule.cron:
        return CronTrigger(schedule.cron, jitter=jitter or None)
    span = parse_span(schedule.every or default_every)
    return IntervalTrigger(seconds=int(span.total_seconds()), jitter=jitter or None, timezone=UTC)


class Daemon:
    def __init__(
        self, config: Config, pipeline: Pipeline, metrics: Metrics | None = None, *, crawl: bool = True
    ) -> None:
        self.config = config
        self.pipeline = pipeline
        self.engine = pipeline.engine
        self.metrics = metrics or Metrics()
        self.sources = check_config(config)
        self.crawls = crawl
        self._skipped: set[str] = set()
        self.cancel = threading.Event()
        self.started_at = datetime.now(UTC)
        self._beat = time.monotonic()
        self._active = 0
        self._idle = threading.Condition()
        self._overlapping: set[str] = set()
        self.delivery = Delivery(config, self.engine, self.metrics, self.cancel)
        settings = config.daemon
        self.scheduler = BlockingScheduler(
            timezone=UTC,
            executors={"crawl": ThreadPoolExecutor(settings.max_parallel_crawls), "default": ThreadPoolExecutor(2)},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": settings.misfire_grace_time},
        )

    # --- jobs -------------------------------------------------------------

    def add_jobs(self) -> None:
        settings = self.config.daemon
        now = datetime.now(UTC)
        shortest = timedelta(days=1)
        for name in self.sources:
            schedule = settings.for_source(name)
            shortest = min(shortest, schedule.interval(settings.every))
            if not self.crawls:
                continue
            if not schedule.enabled:
                log.info("%s: schedule disabled", name)
                continue
            jitter = settings.jitter if schedule.jitter is None else schedule.jitter
            first = None if schedule.cron else schedule.next_after(now, settings.every, self._last_start(name))
            self.scheduler.add_job(
                self.crawl_job,
                _trigger(schedule, settings.every, jitter),
                args=[name],
                id=f"crawl:{name}",
                name=f"crawl {name}",
                executor="crawl",
                replace_existing=True,
                **({"next_run_time": first} if first else {}),
            )
            log.info(
                "%s: %s, next run %s",
                name,
                schedule.describe(settings.every),
                first.isoformat() if first else "as the cron says",
            )
        self.scheduler.add_job(
            self.heartbeat,
            IntervalTrigger(seconds=HEARTBEAT_SECONDS, timezone=UTC),
            id="heartbeat",
            replace_existing=True,
            next_run_time=now,
        )
        check_every = max(1, min(60, int(shortest.total_seconds() / 2)))
        self.scheduler.add_job(
            self.staleness_job,
            IntervalTrigger(seconds=check_every, timezone=UTC),
            id="staleness",
            replace_existing=True,
        )
        self.scheduler.add_job(
            self.retention_job,
            IntervalTrigger(hours=6, timezone=UTC),
            id="retention",
            replace_existing=True,
            next_run_time=now,
        )
        delivery = parse_span(settings.delivery_every)
        self.scheduler.add_job(
            self.delivery_job,
            IntervalTrigger(seconds=int(delivery.total_seconds()), timezone=UTC),
            id="delivery",
            replace_existing=True,
            next_run_time=now,
        )

    def _last_start(self, name: str) -> datetime | None:
        with Session(self.engine) as session:
            stmt = select(CrawlRun.started_at).where(CrawlRun.source == name, CrawlRun.mode == "live")
            return session.exec(stmt.order_by(col(CrawlRun.id).desc()).limit(1)).first()

    @contextmanager
    def _tracked(self) -> Iterator[None]:
        with self._idle:
            self._active += 1
        try:
            yield
        finally:
            with self._idle:
                self._active -= 1
                self._idle.notify_all()

    def _settle_rates(self, name: str) -> None:
        """After a run that wrote in bulk: its providers' kept rates worked
        out now, so that the answers and the dashboard need not read every price."""
        from db.store.reads.connection import engine_db
        from db.store.writes.summary import settle

        try:
            with engine_db(self.engine) as db:
                done = settle(db)
        except Exception:  # the rates wait for the next run; the answers read the prices meanwhile
            log.exception("%s: the kept rates could not be worked out", name, extra={"source": name})
            return
        if done:
            log.info("%s: kept rates worked out for %s", name, ", ".join(sorted(done)), extra={"source": name})

    def crawl_job(self, name: str) -> RunReport | None:
        if self.cancel.is_set():
            return None
        with self._tracked():
            started = time.monotonic()
            try:
                report = crawl_source(self.pipeline, self.config, name, cancel=self.cancel)
            except SourceSkipped as exc:
                self._skipped.add(name)
                log.warning("%s", exc, extra={"source": name, "outcome": "skipped"})
                return None
            except SourceBusy as exc:
                self.metrics.skipped.labels(name).inc()
                log.info(
                    "%s: skipped: %s; the next scheduled run tries again",
                    name,
                    exc.busy,
                    extra={"source": name, "outcome": "skipped"},
                )
                return None
            except CrawlCancelled:
                self._count(name, RunStatus.aborted, started, 0)
                log.warning(
                    "%s: crawl stopped by the shutdown and recorded as aborted",
                    name,
                    extra={"source": name, "status": "aborted"},
                )
                return None
            except TrackerError as exc:
                self._count(name, RunStatus.failed, started, 0)
                said = str(exc)  # most name their source already
                said = said if said.startswith(f"{name}:") else f"{name}: {said}"
                log.error("%s", said, extra={"source": name, "status": "failed"})
                return None
            except Exception:
                self._count(name, RunStatus.failed, started, 0)
                log.exception("%s: the crawl job failed", name, extra={"source": name, "status": "failed"})
                return None
            self._settle_rates(name)
            seconds = self._count(name, report.status, started, report.items)
            for change in report.changes:
                self.metrics.changes.labels(str(change.kind)).inc()
            if report.ok:
                self.metrics.last_success.labels(name).set(time.time())
                log.info(
                    "%s: run %d ok: %d items, %d changes in %.1f s",
                    name,
                    report.run_id,
                    report.items,
                    len(report.changes),
                    seconds,
                    extra={
                        "source": name,
                        "run_id": report.run_id,
                        "status": "ok",
                        "items": report.items,
                        "changes": len(report.changes),
                        "seconds": round(seconds, 3),
                    },
                )
            else:
                log.error(
                    "%s: run %d %s: %s",
                    name,
                    report.run_id,
                    report.status,
                    report.error,
                    extra={
                        "source": name,
                        "run_id": report.run_id,
                        "status": str(report.status),
                        "seconds": round(seconds, 3),
                    },
                )
            return report

    def _count(self, name: str, status: str, started: float, items: int) -> float:
        seconds = time.monotonic() - started
        self.metrics.crawls.labels(name, str(status)).inc()
        self.metrics.crawl_seconds.labels(name, str(status)).observe(seconds)
        self.metrics.items.labels(name).observe(items)
        return seconds

    def delivery_job(self) -> None:
        """One delivery round (`tracker.daemon.delivery`)."""
        if self.cancel.is_set():
            return
        with self._tracked():
            self.delivery.round()

    def staleness_job(self) -> None:
        if self.cancel.is_set():
            return
        try:
            for change in check_staleness(
                self.engine,
                self.config,
                self.sources,
                now=datetime.now(UTC),
                watching_since=self.started_at,
                on_changes=self.pipeline.on_changes,
            ):
                self.metrics.changes.labels(str(change.kind)).inc()
        except Exception:
            log.exception("the staleness check failed")

    def retention_job(self) -> None:
        prune_captures(self.config.home / "runs", self.config.crawl.capture_retention_days)

    def heartbeat(self) -> None:
        self._beat = time.monotonic()
        self.metrics.up.set(1)
        self.delivery.gauge()
        if self.pipeline.unsettled or self.delivery.store_down or pending_locks(self.engine):
            self._after_store_error()

    def _after_store_error(self) -> None:
        """What a store error left, settled as soon as the store answers
        (each beat asks): the runs it left `running` marked `store_error`,
        the crawl leases it could not delete deleted, and a delivery round
        at once, which says the store answers again when it can write."""
        try:
            with self.engine.connect() as conn:
                conn.execute(sa.text("select 1"))
            marked = self.pipeline.settle()
            release_pending(self.engine)
        except sa.exc.SQLAlchemyError:
            return  # the store still fails; the next beat tries again
        if marked:
            log.info("marked %d run(s) a store error had left running", marked)
        if self.delivery.store_down and not self.cancel.is_set():
            with suppress(JobLookupError):
                self.scheduler.modify_job("delivery", next_run_time=datetime.now(UTC))

    def _start_metrics(self) -> None:
        from db.kinds import ChangeKind

        channels = [c.name for c in getattr(self.config, "channel", None) or []]
        self.metrics.start(self.sources, channels, [str(k) for k in ChangeKind])
        try:
            with Session(self.engine) as session:
                for name in self.sources:
                    stmt = select(CrawlRun.finished_at).where(CrawlRun.source == name, CrawlRun.status == RunStatus.ok)
                    last = session.exec(stmt.order_by(col(CrawlRun.id).desc()).limit(1)).first()
                    if last is not None:
                        self.metrics.last_success.labels(name).set(last.timestamp())
        except sa.exc.SQLAlchemyError:
            log.debug("cannot read the last good runs", exc_info=True)
        self.delivery.gauge()

    def _overlap(self, event: JobExecutionEvent) -> None:
        """Once per overlap: a job due while its last run still goes on."""
        if event.code == EVENT_JOB_MAX_INSTANCES:
            if event.job_id not in self._overlapping:
                self._overlapping.add(event.job_id)
                log.warning(
                    "%s: still running when due again; later runs are skipped until it ends",
                    event.job_id,
                    extra={"job": event.job_id},
                )
        elif event.job_id in self._overlapping:
            self._overlapping.discard(event.job_id)
            log.info("%s: done; it runs on its schedule again", event.job_id, extra={"job": event.job_id})

    # --- running and stopping -------------------------------------------------

    def healthy(self) -> bool:
        return (
            self.scheduler.state == STATE_RUNNING
            and not self.cancel.is_set()
            and time.monotonic() - self._beat < 3 * HEARTBEAT_SECONDS
        )

    def stop(self, signum: int, _frame: FrameType | None = None) -> None:
        if self.cancel.is_set():
            return
        log.info("received %s: stopping", signal.Signals(signum).name)
        self.cancel.set()
        self.metrics.up.set(0)
        # Not from the signal handler itself: it may have interrupted the scheduler holding its locks.
        threading.Thread(target=self.scheduler.shutdown, kwargs={"wait": False}, daemon=True).start()

    def run(self) -> int:
        """Until SIGTERM or SIGINT; the exit code."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self.stop)
        self.add_jobs()
        logging.getLogger("apscheduler.scheduler").addFilter(OverlapOnce())
        self.scheduler.add_listener(self._overlap, EVENT_JOB_MAX_INSTANCES | EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
        self._start_metrics()
        log.info(
            "daemon started: %d sources%s, store %s",
            len(self.sources),
            "" if self.crawls else " (crawled elsewhere: --no-crawl)",
            _masked_url(self.config),
            extra={"sources": len(self.sources)},
        )
        self.scheduler.start()
        return self._finish()

    def _finish(self) -> int:
        with self._idle:
            settled = self._idle.wait_for(lambda: self._active == 0, timeout=SHUTDOWN_GRACE_SECONDS)
        self._hand_back()
        if not settled:
            log.error("jobs still running after %d s; exiting anyway", SHUTDOWN_GRACE_SECONDS)
            logging.shutdown()
            os._exit(1)
        log.info("daemon stopped")
        return 0

    def run_once(self) -> int:
        """Every source once (for cron), then one delivery; 1 if any run failed."""
        previous = {
            sig: signal.signal(sig, lambda signum, frame: self.cancel.set()) for sig in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            return self._crawl_all_once()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _crawl_all_once(self) -> int:
        enabled = [n for n in self.sources if self.config.daemon.for_source(n).enabled]
        names = enabled if self.crawls else []
        with Pool(self.config.daemon.max_parallel_crawls) as pool:
            reports = list(pool.map(self.crawl_job, names))
        self.delivery_job()
        self._hand_back()
        failed = [name for name, r in zip(names, reports) if (r is None or not r.ok) and name not in self._skipped]
        if failed:
            log.error("not complete: %s", ", ".join(failed))
        return 1 if failed or self.cancel.is_set() else 0

    def _hand_back(self) -> None:
        """On the way out: claims and runs a store error left, while the store answers."""
        try:
            self.delivery.settle()
            self.pipeline.settle()
        except sa.exc.SQLAlchemyError as exc:
            log.error("stopping: the store failed: %s; the next start settles what is left", exception_reason(exc))


def _masked_url(config: Config) -> str:
    from db.store.engine import mask_url

    return mask_url(config.database_url())
