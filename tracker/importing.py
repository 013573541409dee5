"""`gpu-tracker import`: a file of price rows, stored as one complete run of
a named source, through the same pipeline (diff, changes, alerts) as a crawl.

The file is streamed, never held whole: a light first pass learns what the
run needs up front (providers, the newest observed_at, unknown columns); the
second validates, diffs and writes the rows a chunk at a time in one
transaction. A bad row anywhere rejects the whole file, naming its line, and
leaves nothing stored.

Two things keep a big file fast. A row that an open price came from, met
again word for word, is recognized by its hash and not validated again (a
daily re-import of a million rows mostly is such rows). And when most rows
do need validating, a worker process validates the next batches while this
one diffs and writes the last.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from sqlmodel import Session

from db import store
from db.schema import CrawlResult, RunStatus, StagedQuote
from tracker.errors import UserError
from tracker.import_files import FORMATS, Batch, Record, open_records, record_hash, summarize
from tracker.normalize import Normalized, Recognizer, rows
from tracker.pipeline import CHUNK, Pipeline, RunReport
from tracker.sources import SOURCES, Source

log = logging.getLogger(__name__)
SKYPILOT_CLOUDS = ("aws", "azure", "gcp")
# A worker process costs a second or two of CPU to start (its imports), on
# the cores this one needs: it pays off only for this many rows still to validate.
WORKER_MIN_ROWS = 20 * CHUNK
# Batches at the worker at once, and batches read ahead at most.
WORKER_DEPTH = 2
MAX_HELD = 6


class Slot:
    """One batch, in file order: waiting (what to validate: records, or a
    block of lines), at the worker (its future), or validated (its quotes
    and errors)."""

    __slots__ = ("job", "future", "result")

    def __init__(self, job: tuple[str, tuple[Any, ...]]) -> None:
        self.job = job  # a Batch method's name, and its arguments
        self.future: Future[tuple[list[StagedQuote], list[str]]] | None = None
        self.result: tuple[list[StagedQuote], list[str]] | None = None

    @property
    def waiting(self) -> bool:
        return self.future is None and self.result is None

    @property
    def ready(self) -> bool:
        return self.result is not None or (self.future is not None and self.future.done())


class Validator:
    """Validates batches of records and hands them back in order. A big file
    whose rows mostly need validating gets a worker process: batches go to it
    while it has room, and this process validates one itself only when it
    would otherwise wait (the worker still starting, or behind)."""

    def __init__(self, batch: Batch, rows_in_file: int) -> None:
        self.batch = batch
        self.rows_in_file = rows_in_file
        self.errors: list[str] = []
        self._pool: ProcessPoolExecutor | None = None
        self._worker_died = False
        self._slots: deque[Slot] = deque()

    def __enter__(self) -> Validator:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def submit(self, job: tuple[str, tuple[Any, ...]], *, read: int, missed: int) -> Iterator[list[StagedQuote]]:
        """Hands over a batch (`Batch.stage` or `stage_lines`, and its
        arguments); yields the batches whose validation is done.
        `read` and `missed` count the file's records so far, and those not
        recognized: a worker starts once most of them needed validating and
        many remain."""
        if self._pool is None and not self._worker_died and not self.errors and missed * 2 >= read \
                and self.rows_in_file - read >= WORKER_MIN_ROWS:
            # The cyclic collector's passes over a batch's short-lived objects
            # cost as much as validating it; they make no cycles.
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=gc.disable)
            log.info("validating rows in a worker process as well, from row %d of %d", read, self.rows_in_file)
        self._slots.append(Slot(job))
        self._dispatch()
        while self._slots and (self._slots[0].ready or len(self._slots) > MAX_HELD):
            yield from self._take()

    def drain(self) -> Iterator[list[StagedQuote]]:
        while self._slots:
            yield from self._take()
        rows.fail_on(self.errors)

    def _dispatch(self) -> None:
        """Waiting batches to the worker, oldest first, while it has room."""
        if self._pool is None:
            return
        at_worker = sum(slot.future is not None and slot.result is None for slot in self._slots)
        for slot in self._slots:
            if at_worker >= WORKER_DEPTH:
                return
            if slot.waiting:
                try:
                    name, args = slot.job
                    slot.future = self._pool.submit(getattr(self.batch, name), *args)
                except BrokenProcessPool:
                    self._worker_gone()
                    return
                at_worker += 1

    def _take(self) -> Iterator[list[StagedQuote]]:
        head = self._slots[0]
        while head.result is None:
            self._dispatch()
            if head.waiting:
                head.result = self._here(head)
            elif not head.future.done():  # type: ignore[union-attr]
                # Rather than wait, validate here the batch the worker would reach last.
                last = next((slot for slot in reversed(self._slots) if slot.waiting), None)
                if last is not None:
                    last.result = self._here(last)
                else:
                    self._collect(head)
            else:
                self._collect(head)
        self._slots.popleft()
        staged, errors = head.result
        # After a bad row nothing more is yielded, but every row is still
        # checked, so that the error names the first bad lines and counts them all.
        self.errors.extend(errors)
        if not self.errors:
            yield staged

    def _collect(self, slot: Slot) -> None:
        try:
            slot.result = slot.future.result()  # type: ignore[union-attr]
        except BrokenProcessPool:
            self._worker_gone()
            slot.result = self._here(slot)

    def _here(self, slot: Slot) -> tuple[list[StagedQuote], list[str]]:
        name, args = slot.job
        return getattr(self.batch, name)(*args)  # type: ignore[no-any-return]

    def _worker_gone(self) -> None:
        """The worker died (killed, out of memory): carry on without it."""
        if not self._worker_died:
            log.warning("the worker process validating rows stopped; validating the rest here")
        self._worker_died = True
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
        for slot in self._slots:
            future = slot.future
            if slot.result is None and future is not None and not (future.done() and future.exception() is None):
                slot.future = None  # back to waiting: validated here when its turn comes


def staged_chunks(path: Path, fmt: str, stamp: str, extra: dict[str, Any], rows_in_file: int,
                  recognize: Recognizer | None) -> Iterator[list[StagedQuote]]:
    """The file's quotes, a chunk at a time, less the rows `recognize` knows.
    With nothing to recognize, the file goes to validation in blocks of
    lines, split into records and hashed where they are validated, which
    may be in the worker."""
    with open_records(path, fmt, **extra) as file:
        # A SkyPilot row makes several quotes: no one row is behind a price.
        salt = file.salt if fmt == "rows" else None
        batch = Batch(fmt, file.header, stamp, extra, salt)
        with Validator(batch, rows_in_file) as validator:
            if salt is None or recognize is None:
                read = 0
                for first, lines in file.blocks(CHUNK):
                    read += len(lines)
                    yield from validator.submit(("stage_lines", (first, lines)), read=read, missed=read)
            else:
                pending: list[Record] = []
                read = missed = 0
                for number, text in file.records:
                    read += 1
                    input_hash = record_hash(salt, text)
                    if recognize(input_hash):
                        continue
                    missed += 1
                    pending.append((number, text, input_hash))
                    if len(pending) == CHUNK:
                        yield from validator.submit(("stage", (pending,)), read=read, missed=missed)
                        pending = []
                if pending:
                    yield from validator.submit(("stage", (pending,)), read=read, missed=missed)
            yield from validator.drain()


def skypilot_provider(path: Path, provider: str | None) -> str:
    """`aws_vms.csv` is AWS's catalog; other names need --provider."""
    if provider:
        return provider
    cloud = path.name.split("_", 1)[0].lower()
    if cloud in SKYPILOT_CLOUDS:
        return cloud
    raise UserError(f"{path}: cannot tell the cloud from the file name; give --provider aws|azure|gcp")


def import_source(name: str, provider: str, fmt: str) -> Source:
    if name in SOURCES:
        raise UserError(f"{name!r} is a crawled source; import under another name, such as {name}-negotiated")
    if not name or any(c.isspace() for c in name):
        raise UserError(f"{name!r} is not a source name (letters, digits, '-', ':', no spaces)")
    return Source(name, provider, f"import:{fmt}", f"tracker.normalize.{fmt}")


def import_file(pipeline: Pipeline, path: Path, *, source: str, fmt: str = "rows", provider: str | None = None,
                notes: Callable[[str], None] | None = None) -> RunReport:
    """Store `path` as one complete run of `source`. The rows are streamed:
    validated, diffed and written a chunk at a time in one transaction, so
    that a bad row anywhere leaves nothing stored."""
    if fmt not in FORMATS:
        raise UserError(f"unknown import format {fmt!r}; known: {', '.join(FORMATS)}")
    now = pipeline.clock()
    extra = {"provider": skypilot_provider(path, provider)} if fmt == "skypilot" else {}
    summary = summarize(path, extra.get("provider"))
    if not summary.rows:
        raise UserError(f"{path}: no rows; nothing stored")
    if notes and fmt == "rows":
        ignored = sorted(summary.columns - rows.QUOTE_FIELDS - rows.DERIVED_FIELDS)
        if ignored:
            notes(f"ignored columns: {', '.join(ignored)}")
    providers = sorted(summary.providers)
    src = import_source(source, providers[0] if len(providers) == 1 else "import", fmt)
    with Session(pipeline.engine) as session:
        stored = store.open_regions(session=session, source=src.name)
    observed = summary.newest or now
    # The stored regions scope the diff to all the source's open prices; the
    # run records the file's regions besides.
    result = CrawlResult(source=src.name, provider=src.provider, started_at=now, finished_at=pipeline.clock(),
                         observed_at=observed, regions=stored, pages=1, item_count=summary.rows)
    run_id = pipeline.begin(src, spider=src.spider, mode="import", regions=stored)

    def streamed(_: list[dict[str, Any]]) -> Normalized:
        def staged(recognize: Recognizer | None) -> Iterator[list[StagedQuote]]:
            return staged_chunks(path, fmt, now.isoformat(), extra, summary.rows, recognize)
        return Normalized(staged=staged)

    report = pipeline.ingest(src, run_id, result, streamed, bad_input=RunStatus.rejected)
    if report.status == RunStatus.rejected:
        raise UserError(f"{path}: {report.error}")
    return report
