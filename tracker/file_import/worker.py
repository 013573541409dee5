"""Validating an import's batches, here or in a worker process.

This machine has two cores. While this process diffs and writes one batch,
a worker validates the next: the slowest part of an import of new rows. A
worker costs a second or two of CPU to start (its imports), so it is started
only for big files, as early as can be known: before the file's first pass
when the source holds no prices yet (nothing can be recognized, every row
will need validating), else once most rows read have needed it.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import sys
from collections import deque
from collections.abc import Iterator
from concurrent import futures
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from typing import Any

from db.bulk.encoding import StagedQuote
from tracker.file_import import rows
from tracker.file_import.files import Batch, as_staged
from tracker.run.pipeline import CHUNK

log = logging.getLogger(__name__)
# A worker pays off only for this many rows still to validate (or a file this big, before it is read).
WORKER_MIN_ROWS = 20 * CHUNK
WORKER_MIN_BYTES = 24 * 2**20
# Batches at the worker at once, and batches read ahead at most.
WORKER_DEPTH = 4
MAX_HELD = 6
# Seconds to wait for the worker's batch before validating one here instead:
# a batch takes about a tenth of a second, and the worker is usually nearly
# done with the one waited for (it is slow to start, though).
STEAL_AFTER = 0.03
# glibc's `mallopt` parameter, and the size from which a block gets pages of its own.
M_MMAP_THRESHOLD = -3
OWN_PAGES_FROM = 128 * 1024

Validated = tuple[list[StagedQuote], list[str]]
Job = tuple[str, tuple[Any, ...]]  # a Batch method's name, and its arguments


def big_blocks_returned() -> None:
    """glibc serves a big block from its heap once a block that big was
    freed (its mmap threshold rises with each such free, up to 32 MB), and
    rarely gives that heap back: an import's blocks of file text and
    batches of rows, megabytes each, stayed in it, broken up, and the
    import of a million rows kept hundreds of MB it no longer used. A fixed
    threshold gives each big block pages of its own, returned when it is
    freed. Elsewhere than glibc, nothing is done."""
    if sys.platform.startswith("linux"):
        with suppress(Exception):
            import ctypes

            ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, OWN_PAGES_FROM)


def _worker_started() -> None:
    # The cyclic collector's passes over a batch's short-lived objects
    # cost as much as validating it; they make no cycles.
    gc.disable()
    big_blocks_returned()


class Worker:
    """The worker process, once started; gone for good if it dies."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.died = False

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Ended: once every batch is validated, it would hold its memory
        (100 MB) through the index builds and the market check."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    def start(self, why: str) -> None:
        if self.pool is None and not self.died:
            self.pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_started
            )
            log.info("validating rows in a worker process as well: %s", why)

    def gone(self) -> None:
        """It died (killed, out of memory): carry on without it."""
        if not self.died:
            log.warning("the worker process validating rows stopped; validating the rest here")
        self.died = True
        if self.pool is not None:
            self.pool.shutdown(wait=False)
            self.pool = None


class Slot:
    """One batch, in file order: waiting, at the worker (its future), or
    validated (its quotes and errors)."""

    __slots__ = ("future", "job", "result")

    def __init__(self, job: Job) -> None:
        self.job = job
        self.future: Future[tuple[list[tuple[Any, ...]], list[str]]] | None = None
        self.result: Validated | None = None

    @property
    def waiting(self) -> bool:
        return self.future is None and self.result is None

    @property
    def ready(self) -> bool:
        return self.result is not None or (self.future is not None and self.future.done())


def _finishes(future: Future[Any], within: float) -> bool:
    return not futures.wait([future], timeout=within).not_done


class Validator:
    """Validates batches of records and hands them back in order: at the
    worker while it has room, here only when this process would otherwise
    wait for it (while it starts, or when it falls behind)."""

    def __init__(self, batch: Batch, rows_in_file: int, worker: Worker) -> None:
        self.batch = batch
        self.rows_in_file = rows_in_file
        self.worker = worker
        self.errors: list[str] = []
        self._slots: deque[Slot] = deque()

    def submit(self, job: Job, *, read: int, missed: int) -> Iterator[list[StagedQuote]]:
        """Hands over a batch (`Batch.stage` or `stage_lines`, and its
        arguments); yields the batches whose validation is done. `read` and
        `missed` count the file's records so far, and those not recognized."""
        if missed * 2 >= read and self.rows_in_file - read >= WORKER_MIN_ROWS and not self.errors:
            self.worker.start(f"from row {read:,} of {self.rows_in_file:,}, most rows need it")
        self._slots.append(Slot(job))
        self._dispatch()
        while self._slots and (self._slots[0].ready or len(self._slots) > MAX_HELD):
            yield from self._take()

    def drain(self) -> Iterator[list[StagedQuote]]:
        while self._slots:
            yield from self._take()
        self.worker.stop()
        rows.fail_on(self.errors)

    def _dispatch(self) -> None:
        """Waiting batches to the worker, oldest first, while it has room."""
        pool = self.worker.pool
        if pool is None:
            return
        at_worker = sum(slot.future is not None and slot.result is None for slot in self._slots)
        for slot in self._slots:
            if at_worker >= WORKER_DEPTH:
                return
            if slot.waiting:
                name, args = slot.job
                try:
                    slot.future = pool.submit(self.batch.in_worker, name, *args)
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
            elif not _finishes(head.future, STEAL_AFTER):  # type: ignore[arg-type]  # a slot not waiting has its future
                # Rather than wait longer, validate here the batch the worker would reach last.
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
            quotes, errors = slot.future.result()  # type: ignore[union-attr]  # a slot not waiting has its future
            slot.result = as_staged(quotes), errors
        except BrokenProcessPool:
            self._worker_gone()
            slot.result = self._here(slot)

    def _here(self, slot: Slot) -> Validated:
        name, args = slot.job
        return getattr(self.batch, name)(*args)

    def _worker_gone(self) -> None:
        self.worker.gone()
        for slot in self._slots:
            future = slot.future
            if slot.result is None and future is not None and not (future.done() and future.exception() is None):
                slot.future = None  # back to waiting: validated here when its turn comes
