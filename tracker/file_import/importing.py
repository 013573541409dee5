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
one diffs and writes the last (`import_worker`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from itertools import islice
from pathlib import Path
from typing import Any

from sqlmodel import Session

from db.bulk.encoding import StagedQuote
from db.schema import CrawlResult, RunStatus
from db.store.reads import session as store
from tracker.errors import UserError
from tracker.file_import import jsonl, rows
from tracker.file_import.files import (
    FORMATS,
    Batch,
    Record,
    RecordFile,
    is_jsonl,
    open_records,
    record_digest,
    summarize,
)
from tracker.file_import.worker import WORKER_MIN_BYTES, Job, Validator, Worker, big_blocks_returned
from tracker.normalize import Normalized, Recognizer
from tracker.run.pipeline import CHUNK, Pipeline, RunReport
from tracker.sources import Source

SKYPILOT_CLOUDS = ("aws", "azure", "gcp")


def staged_chunks(
    path: Path,
    fmt: str,
    stamp: str,
    extra: dict[str, Any],
    rows_in_file: int,
    worker: Worker,
    recognize: Recognizer | None,
    progress: Callable[[int, int], None] | None = None,
    *,
    remember: bool = True,
) -> Iterator[list[StagedQuote]]:
    """The file's quotes, a chunk at a time, less the rows `recognize` knows.
    With nothing to recognize, the file goes to validation in blocks of
    lines, split into records and hashed where they are validated, which
    may be in the worker. Unless `remember`, no row's hash is kept."""
    with open_records(path, fmt, **extra) as file:
        # A SkyPilot row makes several quotes: no one row is behind a price.
        salt = file.salt if fmt == "rows" and remember else None
        batch = Batch(fmt, file.header, stamp, extra, salt)
        validator = Validator(batch, rows_in_file, worker)
        if salt is None or recognize is None:
            read = 0
            for rows_in_block, job in _whole_blocks(file, fmt):
                read += rows_in_block
                yield from validator.submit(job, read=read, missed=read)
                if progress:
                    progress(read, rows_in_file)
        else:
            read = missed = 0
            for block, digests in _hashed_blocks(file, salt):
                read += len(block)
                pending: list[Record] = [
                    (n, text if isinstance(text, str) else text.decode(), int.from_bytes(digest))
                    for (n, text), digest, known in zip(block, digests, recognize(digests))
                    if not known
                ]
                missed += len(pending)
                if pending:
                    yield from validator.submit(("stage", (pending,)), read=read, missed=missed)
                if progress:
                    progress(read, rows_in_file)
        yield from validator.drain()


def _whole_blocks(file: RecordFile, fmt: str) -> Iterator[tuple[int, Job]]:
    """The file in blocks to validate whole, each with its count of rows."""
    if file.header is None and fmt == "rows":
        for first, data in file.byte_blocks():
            yield jsonl.line_count(data), ("stage_bytes", (first, data))
    else:
        for first, lines in file.blocks(CHUNK):
            yield len(lines), ("stage_lines", (first, lines))


def _hashed_blocks(file: RecordFile, salt: bytes) -> Iterator[tuple[list[tuple[int, str | bytes]], list[bytes]]]:
    """The file's records a block at a time, with the hash of each."""
    if file.header is None:  # JSON Lines: a line a record, hashed without its observed_at
        for first, data in file.byte_blocks():
            block = [(n, line) for n, line in enumerate(jsonl.block_lines(data), start=first) if line.strip()]
            yield block, jsonl.line_hashes(salt, [line for _, line in block])  # type: ignore[misc]  # list invariance: JSON lines are bytes
    else:
        records = file.records
        while texts := list(islice(records, CHUNK)):
            yield texts, [record_digest(salt, text) for _, text in texts]  # type: ignore[misc]  # list invariance: CSV records are texts


def skypilot_provider(path: Path, provider: str | None) -> str:
    """`aws_vms.csv` is AWS's catalog; other names need --provider."""
    if provider:
        return provider
    cloud = path.name.split("_", 1)[0].lower()
    if cloud in SKYPILOT_CLOUDS:
        return cloud
    raise UserError(f"{path}: cannot tell the cloud from the file name; give --provider aws|azure|gcp")


def import_source(name: str, provider: str, fmt: str) -> Source:
    """The source an import is stored under (its name checked by `check_source_name`)."""
    return Source(name, provider, None, None)


def check_source_name(name: str) -> None:
    from tracker.sources import SOURCES

    if name in SOURCES:
        raise UserError(f"{name!r} is a crawled source; import under another name, such as {name}-negotiated")
    if not name or any(c.isspace() for c in name):
        raise UserError(f"{name!r} is not a source name (letters, digits, '-', ':', no spaces)")


def import_file(
    pipeline: Pipeline,
    path: Path,
    *,
    source: str,
    fmt: str = "rows",
    provider: str | None = None,
    notes: Callable[[str], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RunReport:
    """Store `path` as one complete run of `source`. The rows are streamed:
    validated, diffed and written a chunk at a time in one transaction, so
    that a bad row anywhere leaves nothing stored. `progress` hears (rows
    read, rows in the file) after each chunk."""
    if fmt not in FORMATS:
        raise UserError(f"unknown import format {fmt!r}; known: {', '.join(FORMATS)}")
    check_source_name(source)
    big_blocks_returned()
    now = pipeline.clock()
    extra = {"provider": skypilot_provider(path, provider)} if fmt == "skypilot" else {}
    with Session(pipeline.engine) as session:
        stored = store.open_regions(session=session, source=source)
    with Worker() as worker:
        if not stored and _size(path) >= WORKER_MIN_BYTES:
            worker.start("a big file for a source with no prices yet")  # it starts while the first pass reads
        summary = summarize(path, extra.get("provider"))
        if not summary.rows:
            raise UserError(f"{path}: no rows; nothing stored")
        if notes and fmt == "rows":
            ignored = sorted(summary.columns - rows.QUOTE_FIELDS - rows.DERIVED_FIELDS)
            if ignored:
                notes(f"ignored columns: {', '.join(ignored)}")
        providers = sorted(summary.providers)
        src = import_source(source, providers[0] if len(providers) == 1 else "import", fmt)
        observed = summary.newest or now
        # CSV rows that carry their own observed_at differ from the last export
        # in every row: none would be met again, and remembering each row's new
        # text would rewrite every unchanged price. (A JSON Lines row is
        # remembered without its observed_at.)
        remember = summary.newest is None or (fmt == "rows" and is_jsonl(path))
        # The stored regions scope the diff to all the source's open prices; the
        # run records the file's regions besides.
        result = CrawlResult(
            source=src.name,
            provider=src.provider,
            started_at=now,
            finished_at=pipeline.clock(),
            observed_at=observed,
            regions=stored,
            pages=1,
            item_count=summary.rows,
        )
        run_id = pipeline.begin(src, spider=f"import:{fmt}", mode="import", regions=stored)

        def streamed(_: Iterable[Any]) -> Normalized:
            def staged(recognize: Recognizer | None) -> Iterator[list[StagedQuote]]:
                return staged_chunks(
                    path, fmt, now.isoformat(), extra, summary.rows, worker, recognize, progress, remember=remember
                )

            return Normalized(staged=staged)

        report = pipeline.ingest(src, run_id, result, streamed, bad_input=RunStatus.rejected)
    if report.status == RunStatus.rejected:
        raise UserError(f"{path}: {report.error}")
    if report.ok:
        _settle_rates(pipeline, report.rows_written)
    return report


def _settle_rates(pipeline: Pipeline, written: int) -> None:
    """The kept rates a big run left to be worked out (`summary.settle`),
    worked out before the import ends, as the daemon does after its runs:
    the first answer after an import then reads them (issue 41), from a
    table PostgreSQL has vacuumed and analyzed (`bulk_load.after_bulk`).
    Should it fail, the first answer that can write works them out."""
    from db.store.reads.connection import engine_db
    from db.store.writes import bulk_load
    from db.store.writes.summary import settle

    with suppress(Exception), engine_db(pipeline.engine) as db:
        settle(db)
    if written >= bulk_load.BULK_ROWS:  # written in bulk: PostgreSQL's table state caught up
        with suppress(Exception):
            bulk_load.after_bulk(pipeline.engine)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # the first pass says what is wrong
