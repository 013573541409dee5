"""The one place where crawl, normalize, store, diff and alert meet.

Everything is passed in: the engine, the clock, the crawl function and the
change hook (alerts). One crawl is two transactions: the run row is written
first, so a killed process leaves a 'running' row that the next start marks
aborted; then the snapshot, its changes and the run's status commit together,
or not at all.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial

import sqlalchemy as sa
from sqlmodel import Session

from db import bulk, store
from db import offers as offer_store
from db.schema import Change, ChangeKind, CrawlResult, PriceQuote, RunStatus, StagedQuote
from db.tables import CrawlRun, PricePoint
from tracker.errors import TrackerError
from tracker.normalize import Normalized, NormalizeError, Recognizer
from tracker.run.diff import DiffPolicy, DuplicateQuote, Implausible, SnapshotDiff
from tracker.run.offer_diff import DuplicateOffer, diff_offers, offer_snapshot
from tracker.run.offer_diff import removal_change as offer_removal
from tracker.sources import Source

Clock = Callable[[], datetime]
# The runs that say something of the source's health; an aborted run (our
# process was killed) or a refused input says nothing of it.
VERDICTS = (RunStatus.ok, RunStatus.failed, RunStatus.quarantined)
ChangeHook = Callable[[Session, Sequence[Change]], None]
# Quotes are diffed and written this many at a time.
CHUNK = 10_000
# After writing this many rows, refresh the planner's statistics (see store).
ANALYZE_AFTER = 100_000


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


def store_reason(exc: sa.exc.SQLAlchemyError) -> str:
    orig = getattr(exc, "orig", None)
    return str(orig if orig is not None else exc).splitlines()[0]


class Rejected(Exception):
    """The crawl's data must not move the snapshot forward."""

    def __init__(self, status: RunStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass
class Pipeline:
    engine: sa.Engine
    policy: DiffPolicy = field(default_factory=DiffPolicy)
    clock: Clock = utcnow
    on_changes: ChangeHook | None = None

    def begin(self, source: Source, *, spider: str, mode: str, regions: Sequence[str]) -> int:
        with Session(self.engine) as session:
            store.abort_interrupted_runs(session=session, now=self.clock(), source=source.name)
            run = store.start_run(
                session=session,
                source=source.name,
                provider=source.provider,
                spider=spider,
                mode=mode,
                regions=regions,
                started_at=self.clock(),
            )
            session.commit()
            assert run.id is not None
            return run.id

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
            self.finish_failed(source, run_id, RunStatus.aborted, reason, announce=False)
            raise
        return self.ingest(source, run_id, result, source.normalizer)

    def ingest(
        self,
        source: Source,
        run_id: int,
        result: CrawlResult,
        normalizer: Callable[[list[dict]], Normalized],
        *,
        bad_input: RunStatus = RunStatus.failed,
    ) -> RunReport:
        """`bad_input` is the status of a run whose items do not normalize:
        a source fault for a crawl, a refused file for an import."""
        with Session(self.engine) as session:
            try:
                report = self._apply(session, source, run_id, result, normalizer, bad_input)
                session.commit()
                return report
            except Rejected as exc:
                session.rollback()
                rejected = exc
            except sa.exc.SQLAlchemyError as exc:
                session.rollback()
                self._record_store_failure(source, run_id, exc)
                raise StoreWriteFailed(f"{source.name}: run {run_id} could not be stored: {store_reason(exc)}") from exc
        report = self.finish_failed(
            source, run_id, rejected.status, rejected.reason, announce=rejected.status != RunStatus.rejected
        )
        report.items = result.items_seen
        report.notes = list(result.notes)
        return report

    def _record_store_failure(self, source: Source, run_id: int, exc: sa.exc.SQLAlchemyError) -> None:
        """Best effort: when the store itself fails (a full disk), the run
        row may not be writable either; the next start marks it aborted."""
        try:
            self.finish_failed(source, run_id, RunStatus.failed, f"store error: {store_reason(exc)}", announce=False)
        except sa.exc.SQLAlchemyError:
            pass

    def finish_failed(
        self, source: Source, run_id: int, status: RunStatus, reason: str, *, announce: bool = True
    ) -> RunReport:
        """Close a run that must not move the snapshot. The first failure after
        a good run (or of a new source) is announced as source_broken."""
        now = self.clock()
        with Session(self.engine) as session:
            previous = store.last_run(session=session, source=source.name, statuses=VERDICTS)
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
            run = session.get(CrawlRun, run_id)
            assert run is not None
            run.status, run.error, run.finished_at, run.changes = status, reason, now, len(changes)
            session.add(run)
            store.add_changes(session=session, run_id=run_id, changes=changes)
            if self.on_changes and changes:
                self.on_changes(session, changes)
            session.commit()
        return RunReport(run_id=run_id, source=source.name, status=status, error=reason, changes=changes)

    def _apply(
        self,
        session: Session,
        source: Source,
        run_id: int,
        result: CrawlResult,
        normalizer: Callable[[list[dict]], Normalized],
        bad_input: RunStatus,
    ) -> RunReport:
        if result.error is not None:
            raise Rejected(RunStatus.failed, result.error)
        try:
            normalized = normalizer(result.items)
        except NormalizeError as exc:
            raise Rejected(bad_input, str(exc)) from None
        observed = result.observed_at or self.clock()
        last_ok = store.last_run(session=session, source=source.name, statuses=[RunStatus.ok])
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
            changes, rows_written = self._apply_offers(session, source, run_id, normalized, observed, last_ok)
            regions = list(result.regions)
        else:
            scope = result.regions or sorted({q.region for q in normalized.quotes})
            staged = normalized.staged or partial(_chunks, normalized.quotes)
            try:
                diff, rows_written = self._apply_prices(session, source, run_id, staged, scope, observed, last_ok)
            except DuplicateQuote as exc:
                raise Rejected(RunStatus.failed, str(exc)) from None
            except NormalizeError as exc:
                raise Rejected(bad_input, str(exc)) from None
            changes, prices = diff.changes, len(diff.current)
            regions = list(scope) + sorted(diff.regions - set(scope))  # the spider's order first
        before = store.last_run(session=session, source=source.name, statuses=VERDICTS)
        if before is not None and before.status != RunStatus.ok:
            changes.append(
                Change(
                    kind=ChangeKind.source_recovered,
                    provider=source.provider,
                    source=source.name,
                    observed_at=self.clock(),
                    detail={"after": before.error or before.status},
                )
            )
        store.add_changes(session=session, run_id=run_id, changes=changes)
        if self.on_changes and changes:
            self.on_changes(session, changes)

        run = session.get(CrawlRun, run_id)
        assert run is not None
        run.status = RunStatus.ok
        run.finished_at = self.clock()
        run.observed_at = observed
        run.pages, run.items = result.pages, result.items_seen
        run.rows_written = rows_written
        run.changes = len(changes)
        run.capture_path = result.capture_path
        run.regions = ",".join(regions)
        session.add(run)
        return RunReport(
            run_id=run_id,
            source=source.name,
            status=RunStatus.ok,
            items=result.items_seen,
            prices=prices,
            offers=len(normalized.offers),
            rows_written=rows_written,
            changes=changes,
            notes=list(result.notes) + normalized.notes,
        )

    def _apply_prices(
        self,
        session: Session,
        source: Source,
        run_id: int,
        staged: Callable[[Recognizer | None], Iterable[Sequence[StagedQuote]]],
        regions: Sequence[str],
        observed: datetime,
        last_ok: CrawlRun | None,
    ) -> tuple[SnapshotDiff, int]:
        """Streams the run through the diff: each chunk's new and changed rows
        are written as they come, in this transaction, which is thrown away
        if the run turns out implausible. (diff, rows written)"""
        scope = list(regions) or None
        valid_from = bulk.bulk_time(session, observed)
        written = 0
        try:
            with paused_gc(), bulk.BulkWriter(session) as writer:
                before = store.open_fingerprints(session=session, source=source.name, regions=scope)
                diff = SnapshotDiff(
                    before.fingerprints,
                    self.policy,
                    source=source.name,
                    observed_at=observed,
                    missed=_open_tracked(session, source.name, before.missed),
                    inputs=before.inputs,
                )
                del before
                lookup = partial(writer.locked, _open_tracked, session, source.name)
                take = partial(writer.locked, store.take_open, session=session, source=source.name, valid_to=observed)
                for chunk in staged(diff.recognize if diff.inputs else None):
                    writes = diff.feed(chunk, lookup, take)  # `take` closes the changed rows
                    writer.locked(store.set_input_hashes, session=session, hashes=writes.input_hashes)
                    writer.write(
                        [
                            bulk.price_row(q, source=source.name, run_id=run_id, valid_from=valid_from)
                            for q in writes.inserts
                        ]
                    )
                    written += len(writes.inserts)
            removed_ids = diff.finish(partial(_open_tracked, session, source.name))
            if written >= ANALYZE_AFTER:
                store.refresh_statistics(session=session)
        except Implausible as exc:
            raise Rejected(RunStatus.quarantined, exc.reason) from None
        if last_ok and last_ok.observed_at == observed:
            # The same moment seen again (a capture replayed twice) confirms no removal.
            removed_ids, diff.misses = [], {}
        removed = store.load_points(session=session, ids=removed_ids)
        diff.changes.extend(removal_change(p, observed) for p in removed)
        store.close_prices(session=session, ids=removed_ids, valid_to=observed)
        store.set_missed_runs(session=session, missed=diff.misses)
        return diff, written

    def _apply_offers(
        self,
        session: Session,
        source: Source,
        run_id: int,
        normalized: Normalized,
        observed: datetime,
        last_ok: CrawlRun | None,
    ) -> tuple[list[Change], int]:
        try:
            current = offer_snapshot(normalized.offers)
        except DuplicateOffer as exc:
            raise Rejected(RunStatus.failed, str(exc)) from None
        previous = offer_store.open_offers(session=session, source=source.name)
        diff = diff_offers(previous, current, self.policy, source=source.name, observed_at=observed)
        if diff.broken:
            raise Rejected(RunStatus.failed if not current else RunStatus.quarantined, diff.broken)
        if last_ok and last_ok.observed_at == observed:
            diff.removed, diff.misses = [], {}
        changes = diff.changes + [
            offer_removal(o, provider=source.provider, source=source.name, observed_at=observed) for o in diff.removed
        ]
        offer_store.close_offers(session=session, ids=diff.closes + [o.id for o in diff.removed], valid_to=observed)
        offer_store.insert_offers(
            session=session,
            rows=[
                offer_store.offer_to_row(o, source=source.name, run_id=run_id, valid_from=observed)
                for o in diff.inserts
            ],
        )
        offer_store.set_offer_misses(session=session, missed=diff.misses)
        return changes, len(diff.inserts)


@contextmanager
def paused_gc() -> Iterator[None]:
    """The bulk path makes millions of short-lived, acyclic objects; the
    cyclic collector's passes over them are pure cost (a fifth of the time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _open_tracked(session: Session, source: str, keys: Sequence[str]) -> dict[str, store.TrackedPrice]:
    return store.open_tracked(session=session, source=source, keys=keys)


def _chunks(quotes: Sequence[PriceQuote], _: Recognizer | None) -> Iterator[list[StagedQuote]]:
    for start in range(0, len(quotes), CHUNK):
        yield [StagedQuote.of(q) for q in quotes[start : start + CHUNK]]


def snapshot(quotes: Sequence[PriceQuote]) -> dict[str, PriceQuote]:
    """Quotes by key. Two different values for one key are ambiguous: an
    error, never a guess."""
    current: dict[str, PriceQuote] = {}
    for quote in quotes:
        seen = current.get(quote.key)
        if seen is not None and seen.value_hash != quote.value_hash:
            raise NormalizeError(
                f"{quote.provider}: two prices for {quote.instance_type} {quote.price_model} {quote.term} "
                f"{quote.os} in {quote.region}: {seen.price} and {quote.price}"
            )
        current[quote.key] = quote
    return current


def removal_change(point: PricePoint, observed: datetime) -> Change:
    return Change(
        kind=ChangeKind.sku_removed,
        provider=point.provider,
        source=point.source,
        key=point.key,
        region=point.region,
        zone=point.zone,
        instance_type=point.instance_type,
        gpu_model=point.gpu_model,
        gpu_count=Decimal(point.gpu_count) if point.gpu_count else None,
        os=point.os,
        price_model=point.price_model,
        term=point.term,
        payment_option=point.payment_option,
        old_price=Decimal(point.price),
        new_price=None,
        currency=point.currency,
        unit=point.unit,
        source_url=point.source_url,
        observed_at=observed,
    )
