"""How each source is doing: its last good run, last failure, next run, and
whether it went stale (no complete run in `stale_after_intervals` x its
interval). Staleness is announced as a `source_stale` change, alerted like any
other, and cleared by `source_recovered`."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session, col, select

from db.schema import Change, ChangeKind, RunStatus
from db.store.reads import session as store
from db.store.writes.runs import add_changes
from db.tables import ChangeRow, CrawlRun, PricePoint
from tracker.config.settings import Config
from tracker.errors import ConfigError
from tracker.run.pipeline import ChangeHook
from tracker.sources import SOURCES

log = logging.getLogger(__name__)
FAILURES = (RunStatus.failed, RunStatus.quarantined, RunStatus.aborted, RunStatus.store_error)


def known_sources(config: Config) -> list[str]:
    """Every source there is: the registry, then each `[[watch]]` page."""
    names = list(SOURCES)
    for watch in getattr(config, "watch", None) or []:
        names.append(f"watch:{watch.name}")
    return names


def default_sources(config: Config) -> list[str]:
    """What the daemon crawls when `[daemon] sources` is not set: every
    registry source whose evidence is more than `assumed`
    (`Source.crawled_by_default`), then each `[[watch]]` page."""
    return [n for n in known_sources(config) if n not in SOURCES or SOURCES[n].crawled_by_default]


def scheduled_sources(config: Config) -> list[str]:
    """The sources the daemon crawls: `[daemon] sources`, or the default set."""
    chosen = config.daemon.sources
    return list(chosen) if chosen is not None else default_sources(config)


def check_config(config: Config) -> list[str]:
    """The sources to schedule; ConfigError for a source that is unknown, and
    for a schedule of a source that is not crawled."""
    names = scheduled_sources(config)
    known = known_sources(config)
    where = f"{config.path}: " if config.path else ""
    for name in names:
        if name not in known:
            raise ConfigError(f"{where}daemon.sources: unknown source {name!r}; known: {', '.join(known)}")
    for key, schedule in config.daemon.schedule.items():
        if key in known and key not in names:
            if not schedule.enabled:
                continue  # switched off, and not crawled anyway
            if config.daemon.sources is not None:
                raise ConfigError(f"{where}daemon.schedule.{key}: not in [daemon] sources; add it there to crawl it")
            evidence = SOURCES[key].evidence if key in SOURCES else None
            why = "its evidence is only assumed" if evidence else "it declares no evidence"
            raise ConfigError(
                f"{where}daemon.schedule.{key}: not crawled by default, as {why} (gpu-tracker sources); "
                "name it in [daemon] sources to crawl it"
            )
        if key not in names:
            raise ConfigError(f"{where}daemon.schedule.{key}: unknown source; known: {', '.join(names)}")
    return names


def provider_of(name: str) -> str:
    source = SOURCES.get(name)
    return source.provider if source else name.split(":", 1)[0]


@dataclass
class SourceHealth:
    source: str
    schedule: str
    last_ok_at: datetime | None
    last_failure_at: datetime | None
    last_failure: str | None
    last_status: str | None
    next_run: datetime | None
    stale: bool
    open_prices: int

    def row(self) -> dict[str, object]:
        return dict(self.__dict__)


def _last(session: Session, source: str, statuses: Sequence[str]) -> CrawlRun | None:
    stmt = select(CrawlRun).where(CrawlRun.source == source, col(CrawlRun.status).in_(list(statuses)))
    return session.exec(stmt.order_by(col(CrawlRun.id).desc()).limit(1)).first()


def _stale_since(session: Session, source: str) -> datetime | None:
    """When the source was last announced stale, unless it recovered since."""
    stmt = select(ChangeRow).where(
        ChangeRow.source == source,
        col(ChangeRow.kind).in_([ChangeKind.source_stale, ChangeKind.source_recovered, ChangeKind.source_broken]),
    )
    last = session.exec(stmt.order_by(col(ChangeRow.id).desc()).limit(1)).first()
    return last.observed_at if last is not None and last.kind == ChangeKind.source_stale else None


def source_health(engine: sa.Engine, config: Config, names: Sequence[str], now: datetime) -> list[SourceHealth]:
    settings = config.daemon
    found = []
    with Session(engine) as session:
        for name in names:
            schedule = settings.for_source(name)
            ok = _last(session, name, [RunStatus.ok])
            failure = _last(session, name, FAILURES)
            started = session.exec(
                select(CrawlRun.started_at)
                .where(CrawlRun.source == name, CrawlRun.mode == "live")
                .order_by(col(CrawlRun.id).desc())
                .limit(1)
            ).first()
            stale = _stale_since(session, name) is not None
            # Stored runs have their ids.
            latest = failure if failure and (not ok or (failure.id or 0) > (ok.id or 0)) else ok
            found.append(
                SourceHealth(
                    source=name,
                    schedule=schedule.describe(settings.every) if schedule.enabled else "disabled",
                    last_ok_at=ok.finished_at if ok else None,
                    last_failure_at=failure.finished_at if failure else None,
                    last_failure=failure.error if failure else None,
                    last_status=latest.status if latest else None,
                    next_run=schedule.next_after(now, settings.every, started) if schedule.enabled else None,
                    stale=stale,
                    open_prices=store.count_open_prices(session=session, source=name),
                )
            )
    return found


def check_staleness(
    engine: sa.Engine,
    config: Config,
    names: Sequence[str],
    *,
    now: datetime,
    watching_since: datetime,
    on_changes: ChangeHook | None = None,
) -> list[Change]:
    """Announce sources that went stale, and stale ones that completed a run
    again. A source never run counts from `watching_since` (the daemon's start)."""
    settings = config.daemon
    raised: list[Change] = []
    with Session(engine) as session:
        for name in names:
            limit = settings.stale_after(name)
            if limit is None:
                continue
            ok = _last(session, name, [RunStatus.ok])
            last_good = ok.finished_at if ok and ok.finished_at else None
            stale_since = _stale_since(session, name)
            if stale_since is None:
                # Counted while someone was watching: a daemon back after a week away is not stale at once.
                reference = max(last_good, watching_since) if last_good else watching_since
                if settings.stale(name, reference, now):
                    raised.append(
                        Change(
                            kind=ChangeKind.source_stale,
                            provider=provider_of(name),
                            source=name,
                            observed_at=now,
                            detail={
                                "last_complete_run": last_good.isoformat() if last_good else "never",
                                "expected_every": _span(limit / settings.stale_after_intervals),
                            },
                        )
                    )
            elif last_good is not None and last_good > stale_since:
                raised.append(
                    Change(
                        kind=ChangeKind.source_recovered,
                        provider=provider_of(name),
                        source=name,
                        observed_at=now,
                        detail={"after": "stale"},
                    )
                )
        if raised:
            add_changes(session=session, run_id=None, changes=raised)
            if on_changes:
                on_changes(session, raised)
            session.commit()
    for change in raised:
        log.warning("%s: %s %s", change.source, change.kind, json.dumps(change.detail))
    return raised


def _span(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0 and seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def store_size(engine: sa.Engine) -> int | None:
    """Bytes the store takes on disk, when the back end tells. SQLite names
    its own file (the URL may be a `file:` URI, as a read-only store's is):
    that file and its WAL, else its pages."""
    with engine.connect() as conn:
        if engine.dialect.name != "sqlite":
            return int(conn.execute(sa.text("select pg_database_size(current_database())")).scalar_one())
        main = next((row[2] for row in conn.exec_driver_sql("PRAGMA database_list") if row[1] == "main"), "")
        pages = int(conn.exec_driver_sql("PRAGMA page_count").scalar_one())
        page_size = int(conn.exec_driver_sql("PRAGMA page_size").scalar_one())
    files = [p for p in (Path(main), Path(f"{main}-wal")) if main and p.exists()]
    return sum(p.stat().st_size for p in files) if files else pages * page_size or None


def price_rows(engine: sa.Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(PricePoint.__table__)).scalar_one())


@dataclass
class Backlog:
    """The outbox by state, and by channel: what waits, since when, and what was given up on."""

    by_state: dict[str, int]
    channels: dict[str, dict[str, int]]  # channel -> state -> rows
    oldest_pending: datetime | None
    oldest_by_channel: dict[str, datetime]

    def lines(self, now: datetime) -> list[str]:
        """For people: one line in all, then one per channel with something waiting or dead."""
        if not self.by_state:
            return ["outbox: empty"]
        states = ", ".join(f"{self.by_state.get(s, 0)} {s}" for s in ("pending", "sending", "dead", "sent"))
        oldest = f"; oldest waiting {_age(now - self.oldest_pending)}" if self.oldest_pending else ""
        out = [f"outbox: {states}{oldest}"]
        for channel, counts in sorted(self.channels.items()):
            waiting = counts.get("pending", 0) + counts.get("sending", 0)
            dead = counts.get("dead", 0)
            if not waiting and not dead:
                continue
            since = self.oldest_by_channel.get(channel)
            age = f" (oldest {_age(now - since)})" if since else ""
            hint = f"; `gpu-tracker alerts retry --channel {channel}` sends the dead again" if dead else ""
            out.append(f"  {channel}: {waiting} waiting{age}, {dead} dead{hint}")
        return out


def _age(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 172800:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"


def outbox_backlog(engine: sa.Engine) -> Backlog | None:
    """The outbox's backlog, or None when the store has no outbox yet."""
    from db.alert_tables import OutboxRow, OutboxState

    if not sa.inspect(engine).has_table(OutboxRow.__tablename__):
        return None
    t = OutboxRow.__table__
    waiting = t.c.state.in_([OutboxState.pending, OutboxState.sending])
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(
                t.c.channel, t.c.state, sa.func.count(), sa.func.min(sa.case((waiting, t.c.created_at)))
            ).group_by(t.c.channel, t.c.state)
        ).all()
    by_state: dict[str, int] = {}
    channels: dict[str, dict[str, int]] = {}
    oldest: dict[str, datetime] = {}
    for channel, state, count, first in rows:
        by_state[state] = by_state.get(state, 0) + int(count)
        channels.setdefault(channel, {})[state] = int(count)
        if first is not None:
            first = _aware(first)
            oldest[channel] = min(oldest.get(channel, first), first)
    return Backlog(by_state, channels, min(oldest.values()) if oldest else None, oldest)


def _aware(value: datetime | str) -> datetime:
    """A time from an aggregate: SQLite gives the stored text back, naive UTC."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)
