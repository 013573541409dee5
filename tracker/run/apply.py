"""What a run's data does to the stored snapshot, inside the run's
transaction (`tracker.run.pipeline.Pipeline` owns it): prices streamed
through the diff, each chunk's new and changed rows written as they come;
offers against the open ones. Either raises `Rejected` when the data must
not move the snapshot forward, and the transaction is thrown away."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from decimal import Decimal

import sqlalchemy as sa

from db.bulk.encoding import StagedQuote
from db.schema import Change, ChangeKind, RunStatus, TrackedPrice
from db.store.writes.run_store import RunStore
from db.tables import CrawlRun, PricePoint
from tracker.normalize import Held, Normalized, NormalizeError, Recognizer
from tracker.run.diff import DiffPolicy, Implausible, SnapshotDiff, market
from tracker.run.diff.held import hold_slips
from tracker.run.diff.offers import DuplicateOffer, diff_offers, offer_snapshot
from tracker.run.diff.offers import removal_change as offer_removal
from tracker.run.suspects import SuspectCheck
from tracker.sources import Source


class Rejected(Exception):
    """The crawl's data must not move the snapshot forward."""

    def __init__(self, status: RunStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def input_fault(source: str, exc: BaseException) -> str:
    """One sentence for an exception a normalizer was not written to raise:
    the input has a shape it does not know, and the exception's type and
    message say where."""
    message = " ".join(str(exc).split())[:300]
    named = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return f"{source}: its items could not be read ({named})"


def guarded(
    staged: Callable[[Recognizer | None], Iterable[Sequence[StagedQuote]]], source: str
) -> Callable[[Recognizer | None], Iterator[Sequence[StagedQuote]]]:
    """A lazy normalizer whose unexpected exceptions are NormalizeErrors:
    bad input of its source, like any other. The store's own errors pass."""

    def chunks(recognize: Recognizer | None) -> Iterator[Sequence[StagedQuote]]:
        produced = iter(staged(recognize))
        while True:
            try:
                chunk = next(produced)
            except StopIteration:
                return
            except (NormalizeError, sa.exc.SQLAlchemyError):
                raise
            except Exception as exc:
                raise NormalizeError(input_fault(source, exc)) from exc
            yield chunk

    return chunks


def apply_prices(
    store: RunStore,
    staged: Callable[[Recognizer | None], Iterable[Sequence[StagedQuote]]],
    regions: Sequence[str],
    observed: datetime,
    last_ok: CrawlRun | None,
    *,
    held: Sequence[Held] = (),
    provider: str = "",
    expected_rows: int = 0,
    policy: DiffPolicy,
) -> SnapshotDiff:
    """Streams the run through the diff: each chunk's new and changed rows
    are written as they come, in this transaction, which is thrown away
    if the run turns out implausible."""
    check = SuspectCheck(store.session, source=store.source, provider=provider, factor=policy.suspect_factor)
    try:
        with paused_gc(), store.writing_prices(observed):
            before = store.open_prices(list(regions) or None)
            store.load_in_bulk(before, expected_rows)  # a first big load: indexes built after it
            diff = SnapshotDiff(
                before.prices,
                policy,
                source=store.source,
                observed_at=observed,
                missed=store.tracked(before.missed),
                inputs=before.inputs,
                held=held,
                identify=store.identify,
            )
            del before
            diff.suspect_before = check.before
            for chunk in staged(diff.recognize if diff.inputs else None):
                writes = diff.feed(chunk, store.tracked, store.take)  # `take` closes the changed rows
                store.apply_prices(writes.inserts, writes.input_hashes)
                check.feed(writes.inserts)
        removed_ids = diff.finish(store.tracked)
    except Implausible as exc:
        raise Rejected(RunStatus.quarantined, exc.reason) from None
    hold_slips(store, diff, check, provider=provider)  # the prices of a slipped page, at their last good value
    if last_ok and last_ok.observed_at == observed:
        # The same moment seen again (a capture replayed twice) confirms no removal.
        removed_ids, diff.misses = [], {}
    removed = store.close_prices(removed_ids, diff.misses)
    diff.changes.extend(removal_change(p, observed) for p in removed)
    # A marketplace group that came or went is stock that came or went.
    diff.changes = market.restate(diff.changes, store.last_closed)
    diff.notes.extend(check.settle(store.session, diff.changes, run_id=store.run_id, observed=observed))
    return diff


def apply_offers(
    store: RunStore,
    source: Source,
    normalized: Normalized,
    observed: datetime,
    last_ok: CrawlRun | None,
    policy: DiffPolicy,
) -> list[Change]:
    try:
        current = offer_snapshot(normalized.offers)
    except DuplicateOffer as exc:
        raise Rejected(RunStatus.failed, str(exc)) from None
    diff = diff_offers(
        store.open_offers(),
        current,
        policy,
        source=source.name,
        observed_at=observed,
        unread=normalized.unread_offers,
    )
    if diff.broken:
        raise Rejected(RunStatus.failed if not current else RunStatus.quarantined, diff.broken)
    if last_ok and last_ok.observed_at == observed:
        diff.removed, diff.misses = [], {}
    changes = diff.changes + [
        offer_removal(o, provider=source.provider, source=source.name, observed_at=observed) for o in diff.removed
    ]
    closes = diff.closes + [o.id for o in diff.removed]
    store.apply_offers(observed=observed, inserts=diff.inserts, closes=closes, misses=diff.misses)
    return changes


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


def removal_change(point: PricePoint, observed: datetime) -> Change:
    detail = {}
    if point.offer_count is not None:  # a marketplace group: no offer backs it any more
        median = None if point.median_price is None else Decimal(point.median_price)
        fields = {"offer_count": 0, "median_price": None, "attrs": json.loads(point.attrs or "{}")}
        before = TrackedPrice(0, "", Decimal(point.price), point.availability, 0, median, point.offer_count)
        detail = market.detail(fields, before)
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
        detail=detail,
    )
