"""The one place where crawl, normalize, store, diff and alert meet.

Everything is passed in: the engine, the clock, the crawl function and the
change hook (alerts). One crawl is two transactions: the run row is written
first, so a killed process leaves a 'running' row that the next start marks
aborted; then the snapshot, its changes and the run's status commit together,
or not at all.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from db.bulk.encoding import StagedQuote
from db.schema import Change, ChangeKind, CrawlResult, PriceQuote, RunStatus
from db.store.writes.run_store import RunStore
from tracker.errors import TrackerError
from tracker.logs import exception_reason
from tracker.normalize import Normalized, NormalizeError, Normalizer, Recognizer, bounds
from tracker.run.apply import Rejected, apply_offers, apply_prices, guarded, input_fault
from tracker.run.diff import DiffPolicy, DuplicateQuote
from tracker.sources import Source

Clock = Callable[[], datetime]
# The runs that say something of the source's health; an aborted run (our
# process was killed) or a refused input says nothing of it.
VERDICTS = (RunStatus.ok, RunStatus.failed, RunStatus.quarantined)
ChangeHook = Callable[[Session, Sequence[Change]], None]
# Quotes are diffed and written this many at a time.
CHUNK = 10_000


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class RunReport:
    run_id: int
    source: str
    status: RunStatus
    error: str | None = None
    items: int = 0
    prices: int = 0
    offers: int = 0
    rows_written: int = 0
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == RunStatus.ok


class StoreWriteFailed(TrackerError):
    """The store refused the write (disk full, connection lost); nothing of
    the run was kept."""


def is_store_error(exc: BaseException) -> bool:
    """An error of the store: through SQLAlchemy, or of the driver itself
    (the bulk writer's COPY on PostgreSQL goes below SQLAlchemy)."""
    if isinstance(exc, (sa.exc.SQLAlchemyError, sqlite3.Error)):
        return True
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(exc, psycopg.Error)


def _no_normalizer(items: Iterable[Any]) -> Normalized:
    """A crawled source without a normalizer (only a file's source has none:
    its rows come in through `gpu-tracker import`) is bad input of its run."""
    raise NormalizeError("the source has no normalizer")


@dataclass
class Pipeline:
    engine: sa.Engine
    policy: DiffPolicy = field(default_factory=DiffPolicy)
    clock: Clock = utcnow
    on_changes: ChangeHook | None = None
    # Runs whose last write failed with the store (the database went away):
    # run id -> (source, status, reason), written by `settle` once it answers,
    # so that a live daemon never leaves a run `running`.
    unsettled: dict[int, tuple[Source, RunStatus, str]] = field(default_factory=dict)

    def begin(self, source: Source, *, spider: str, mode: str, regions: Sequence[str]) -> int:
        with Session(self.engine) as session:
            store = RunStore.begin(
                session,
                source=source.name,
                provider=source.provider,
                spider=spider,
                mode=mode,
                regions=regions,
                now=self.clock(),
            )
            session.commit()
            return store.run_id

    def run(
        self, source: Source, crawl: Callable[[int], CrawlResult], *, mode: str = "live", regions: Sequence[str] = ()
    ) -> RunReport:
        """Record a run, crawl (given the run's id), and ingest the result."""
        run_id = self.begin(source, spider=source.spider_path, mode=mode, regions=regions)
        try:
            result = crawl(run_id)
        except BaseException as exc:
            # An interruption (Ctrl-C, a daemon stopping) says nothing about the source.
            reason = str(exc) if str(exc) else f"interrupted: {type(exc).__name__}"
            self._close(source, run_id, RunStatus.aborted, reason)
            raise
        return self.ingest(source, run_id, result, source.normalizer or _no_normalizer)

    def _close(self, source: Source, run_id: int, status: RunStatus, reason: str) -> None:
        """Marks a run that must not count, without announcing it; when the
        store itself fails, later (`settle`)."""
        try:
            self.finish_failed(source, run_id, status, reason, announce=False)
        except Exception as exc:
            if not is_store_error(exc):
                raise
            self.unsettled[run_id] = (source, status, reason)

    def settle(self) -> int:
        """Marks the runs a store error left `running`; the number marked.
        Raises the store's error while it still fails."""
        marked = 0
        for run_id, (source, status, reason) in list(self.unsettled.items()):
            self.finish_failed(source, run_id, status, reason, announce=False)
            del self.unsettled[run_id]
            marked += 1
        return marked

    def ingest(
        self,
        source: Source,
        run_id: int,
        result: CrawlResult,
        normalizer: Normalizer,
        *,
        bad_input: RunStatus = RunStatus.failed,
    ) -> RunReport:
        """`bad_input` is the status of a run whose items do not normalize:
        a source fault for a crawl, a refused file for an import."""
        with Session(self.engine) as session:
            try:
                store = RunStore(session, source=source.name, run_id=run_id)
                report = self._apply(store, source, result, normalizer, bad_input)
                session.commit()
                return report
            except Rejected as exc:
                session.rollback()
                rejected = exc
            except BaseException as exc:
                with suppress(Exception):
                    session.rollback()  # a lost connection cannot; its transaction is gone with it
                if not is_store_error(exc):
                    # Our own fault or an interruption: it says nothing of the
                    # source, and the run is never left `running`.
                    self._close(source, run_id, RunStatus.aborted, f"not stored: {exception_reason(exc)}")
                    raise
                self._record_store_failure(source, run_id, exc)
                raise StoreWriteFailed(
                    f"{source.name}: run {run_id} could not be stored: {exception_reason(exc)}"
                ) from exc
        try:
            report = self.finish_failed(
                source, run_id, rejected.status, rejected.reason, announce=rejected.status != RunStatus.rejected
            )
        except Exception as exc:
            if not is_store_error(exc):
                raise
            # A crawl that failed on a full disk finds the store full too: its
            # verdict waits for the store, as `store_error` (`settle`).
            reason = f"store error: {exception_reason(exc)} (the run {rejected.status}: {rejected.reason})"
            self.unsettled[run_id] = (source, RunStatus.store_error, reason)
            raise StoreWriteFailed(f"{source.name}: run {run_id} could not be stored: {exception_reason(exc)}") from exc
        report.items = result.items_seen
        report.notes = list(result.notes)
        return report

    def _record_store_failure(self, source: Source, run_id: int, exc: BaseException) -> None:
        """When the store itself fails (a full disk, a lost connection) the
        run is the store's fault, not the source's: its own verdict. Its row
        may not be writable either: then `settle` writes it later (and a
        process that ends first leaves it to the next start, as aborted)."""
        self._close(source, run_id, RunStatus.store_error, f"store error: {exception_reason(exc)}")

    def finish_failed(
        self, source: Source, run_id: int, status: RunStatus, reason: str, *, announce: bool = True
    ) -> RunReport:
        """Close a run that must not move the snapshot. The first failure after
        a good run (or of a new source) is announced as source_broken. The
        reason is stored and announced with its secrets masked (a URL's
        password or key a failed crawl names)."""
        from tracker.config.masking import masked_text

        reason = masked_text(reason)
        now = self.clock()
        with Session(self.engine) as session:
            store = RunStore(session, source=source.name, run_id=run_id)
            previous = store.last_run(VERDICTS)
            changes = []
            if announce and (previous is None or previous.status == RunStatus.ok):
                changes.append(
                    Change(
                        kind=ChangeKind.source_broken,
                        provider=source.provider,
                        source=source.name,
                        observed_at=now,
                        detail={"reason": reason},
                    )
                )
            store.fail(status, reason, now=now, changes=changes)
            if self.on_changes and changes:
                self.on_changes(session, changes)
            session.commit()
        return RunReport(run_id=run_id, source=source.name, status=status, error=reason, changes=changes)

    def _apply(
        self,
        store: RunStore,
        source: Source,
        result: CrawlResult,
        normalizer: Normalizer,
        bad_input: RunStatus,
    ) -> RunReport:
        if result.error is not None:
            raise Rejected(RunStatus.failed, result.error)
        try:
            normalized = normalizer(result.items)
        except NormalizeError as exc:
            raise Rejected(bad_input, str(exc)) from None
        except Exception as exc:
            # Any other exception is still the input's: a shape the normalizer
            # was not written for (a ValueError, a KeyError...). The source is
            # broken, not the run.
            raise Rejected(bad_input, input_fault(source.name, exc)) from None
        observed = result.observed_at or self.clock()
        priced = len(normalized.quotes)
        skipped = bounds.screen(normalized, source.name, max(self.clock(), utcnow()))  # an odd quote skipped
        if skipped and skipped * 2 > priced:
            # Most of an answer out of bounds is no odd item: the answer is implausible.
            raise Rejected(
                RunStatus.quarantined,
                f"{skipped} of the {priced} prices are out of bounds ({normalized.notes[-1].split(': ', 1)[-1]})",
            )
        last_ok = store.last_run([RunStatus.ok])
        if last_ok and last_ok.observed_at and observed < last_ok.observed_at:
            raise Rejected(
                RunStatus.rejected,
                (
                    f"this capture is from {observed:%Y-%m-%d %H:%M}, older than the last run of {source.name} "
                    f"({last_ok.observed_at:%Y-%m-%d %H:%M}); replay captures in date order"
                ),
            )
        prices = 0
        if source.kind == "offers":
            changes = apply_offers(store, source, normalized, observed, last_ok, self.policy)
            regions = list(result.regions)
        elif source.kind == "spot_risk":
            from tracker.run.diff.spot_risk import apply_bands

            changes, notes = apply_bands(
                store.session, source=source.name, run_id=store.run_id, bands=normalized.spot_bands, observed=observed
            )
            normalized.notes.extend(notes)
            regions = list(result.regions) or sorted({b.region for b in normalized.spot_bands})
        else:
            # A normalizer's scope wins (an empty one: every region the source has).
            scope = normalized.scope
            if scope is None:
                scope = result.regions or sorted({q.region for q in normalized.quotes})
            staged = (
                guarded(normalized.staged, source.name) if normalized.staged else partial(_chunks, normalized.quotes)
            )
            try:
                diff = apply_prices(
                    store,
                    staged,
                    scope,
                    observed,
                    last_ok,
                    held=normalized.held,
                    provider=source.provider,
                    expected_rows=max(result.items_seen, len(normalized.quotes)),
                    policy=self.policy,
                )
            except DuplicateQuote as exc:  # a refused file, for an import
                raise Rejected(bad_input, str(exc)) from None
            except NormalizeError as exc:
                raise Rejected(bad_input, str(exc)) from None
            changes, prices = diff.changes, diff.count
            normalized.notes.extend(diff.notes)
            regions = list(scope) + sorted(diff.regions - set(scope))  # the spider's order first
        before = store.last_run(VERDICTS)
        # Recovered only from a break that was announced: a run the store
        # failed, or one that refused its input, broke nothing.
        if before is not None and before.status != RunStatus.ok and store.broken_announced(last_ok):
            changes.append(
                Change(
                    kind=ChangeKind.source_recovered,
                    provider=source.provider,
                    source=source.name,
                    observed_at=self.clock(),
                    detail={"after": before.error or before.status},
                )
            )
        store.finish(
            now=self.clock(),
            changes=changes,
            observed_at=observed,
            pages=result.pages,
            items=result.items_seen,
            regions=regions,
            capture_path=result.capture_path,
        )
        if self.on_changes and changes:
            self.on_changes(store.session, changes)
        return RunReport(
            run_id=store.run_id,
            source=source.name,
            status=RunStatus.ok,
            items=result.items_seen,
            prices=prices,
            offers=len(normalized.offers),
            rows_written=store.rows_written,
            changes=changes,
            notes=list(result.notes) + normalized.notes,
        )


def _chunks(quotes: Sequence[PriceQuote], _: Recognizer | None) -> Iterator[list[StagedQuote]]:
    for start in range(0, len(quotes), CHUNK):
        yield [StagedQuote.of(q) for q in quotes[start : start + CHUNK]]
