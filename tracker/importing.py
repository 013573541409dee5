"""`gpu-tracker import`: a file of price rows, stored as one complete run of
a named source, through the same pipeline (diff, changes, alerts) as a crawl.

The file is streamed, never held whole: a light first pass learns what the
run needs up front (providers, the newest observed_at, unknown columns); the
second validates, diffs and writes the rows a chunk at a time in one
transaction. A bad row anywhere rejects the whole file, naming its line, and
leaves nothing stored.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import Any

from sqlmodel import Session

from db import store
from db.schema import CrawlResult, RunStatus, StagedQuote
from tracker.errors import UserError
from tracker.normalize import Normalized, NormalizeError, parse_time, rows, skypilot
from tracker.pipeline import CHUNK, Pipeline, RunReport
from tracker.sources import SOURCES, Source

FORMATS = ("rows", "skypilot")
SKYPILOT_CLOUDS = ("aws", "azure", "gcp")


def _open_text(path: Path) -> io.TextIOBase:
    try:
        if path.suffix == ".gz":
            return io.TextIOWrapper(gzip.open(path), encoding="utf-8-sig", newline="")  # type: ignore[return-value]
        return path.open(encoding="utf-8-sig", newline="")  # type: ignore[return-value]
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror or exc}") from None


def _is_jsonl(path: Path) -> bool:
    name = path.name.removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return True
    if name.endswith(".csv"):
        return False
    raise UserError(f"{path}: say what it is by its name: .csv, .jsonl or .ndjson (optionally .gz)")


def read_items(path: Path, observed_at: datetime, **extra: Any) -> Iterator[dict[str, Any]]:
    """The file's rows as raw items `{"line", "observed_at", "data"}`, read lazily."""
    stamp = observed_at.isoformat()
    with _open_text(path) as fh:
        try:
            if _is_jsonl(path):
                for number, text in enumerate(fh, start=1):
                    if not text.strip():
                        continue
                    try:
                        data = json.loads(text)
                    except json.JSONDecodeError as exc:
                        raise UserError(f"{path}: line {number}: not JSON: {exc.msg}; nothing stored") from None
                    if not isinstance(data, dict):
                        raise UserError(f"{path}: line {number}: not a JSON object; nothing stored")
                    yield {"line": number, "observed_at": stamp, **extra, "data": data}
            else:
                # csv.reader and zip, not DictReader: a third of the cost per row.
                reader = csv.reader(fh)
                header = next(reader, None) or []
                width = len(header)
                for cells in reader:
                    if len(cells) > width:
                        raise UserError(f"{path}: line {reader.line_num}: more cells than columns; nothing stored")
                    if not cells:
                        continue
                    yield {"line": reader.line_num, "observed_at": stamp, **extra, "data": dict(zip(header, cells))}
        except (UnicodeDecodeError, csv.Error) as exc:
            raise UserError(f"{path}: not readable as UTF-8 text rows: {exc}") from None


@dataclass
class FileSummary:
    """What must be known of a file before its run begins: a first, light
    pass, since the rows themselves are streamed and never all held."""

    rows: int = 0
    columns: set[str] = field(default_factory=set)
    providers: set[str] = field(default_factory=set)
    newest: datetime | None = None


def summarize(items: Iterable[dict[str, Any]]) -> FileSummary:
    summary = FileSummary()
    stamps: set[str] = set()
    for item in items:
        data = item["data"]
        summary.rows += 1
        summary.columns.update(data)
        summary.providers.add(str(data.get("provider") or item.get("provider") or ""))
        stamp = data.get("observed_at")
        if stamp:
            stamps.add(str(stamp))
    times = []
    for stamp in stamps:
        try:
            times.append(parse_time(stamp))
        except (ValueError, NormalizeError):
            continue  # the row's own validation names it
    summary.newest = max(times, default=None)
    summary.providers.discard("")
    return summary


def staged_chunks(items: Iterable[dict[str, Any]], fmt: str) -> Iterator[list[StagedQuote]]:
    """The rows, validated a chunk at a time. After a bad row nothing more
    is yielded, but every row is still checked, so that the error names the
    first bad lines and counts them all."""
    errors: list[str] = []
    rest = iter(items)
    while chunk := list(islice(rest, CHUNK)):
        if fmt == "skypilot":
            try:
                staged = [StagedQuote.of(q) for q in skypilot.normalize(chunk).quotes]
            except NormalizeError as exc:
                errors.append(str(exc))
                staged = []
        else:
            staged = rows.staged_rows(chunk, errors)
        if not errors:
            yield staged
    rows.fail_on(errors)


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
    summary = summarize(read_items(path, now, **extra))
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
        return Normalized(staged=staged_chunks(read_items(path, now, **extra), fmt))

    report = pipeline.ingest(src, run_id, result, streamed, bad_input=RunStatus.rejected)
    if report.status == RunStatus.rejected:
        raise UserError(f"{path}: {report.error}")
    return report
