"""`gpu-tracker import`: a file of price rows, stored as one complete run of
a named source, through the same pipeline (diff, changes, alerts) as a crawl.

The file is read and every row validated before anything is written: a bad
row rejects the whole file, naming its line.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlmodel import Session

from db import store
from db.schema import CrawlResult
from tracker.errors import UserError
from tracker.normalize import Normalized, NormalizeError, rows, skypilot
from tracker.pipeline import Pipeline, RunReport
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


def read_items(path: Path, observed_at: datetime, **extra: Any) -> list[dict[str, Any]]:
    """The file's rows as raw items `{"line", "observed_at", "data"}`."""
    items = []
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
                    items.append({"line": number, "observed_at": observed_at.isoformat(), **extra, "data": data})
            else:
                reader = csv.DictReader(fh)
                for data in reader:
                    if None in data:
                        raise UserError(f"{path}: line {reader.line_num}: more cells than columns; nothing stored")
                    items.append({"line": reader.line_num, "observed_at": observed_at.isoformat(), **extra,
                                  "data": data})
        except (UnicodeDecodeError, csv.Error) as exc:
            raise UserError(f"{path}: not readable as UTF-8 text rows: {exc}") from None
    return items


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
    """Validate every row of `path`, then store it as one complete run of `source`."""
    if fmt not in FORMATS:
        raise UserError(f"unknown import format {fmt!r}; known: {', '.join(FORMATS)}")
    now = pipeline.clock()
    extra = {"provider": skypilot_provider(path, provider)} if fmt == "skypilot" else {}
    items = read_items(path, now, **extra)
    if not items:
        raise UserError(f"{path}: no rows; nothing stored")
    normalizer = skypilot.normalize if fmt == "skypilot" else rows.normalize
    try:
        normalized = normalizer(items)
    except NormalizeError as exc:
        raise UserError(f"{path}: {exc}") from None
    if notes and fmt == "rows":
        ignored = rows.unknown_columns(items)
        if ignored:
            notes(f"ignored columns: {', '.join(ignored)}")
    providers = sorted({q.provider for q in normalized.quotes})
    src = import_source(source, providers[0] if len(providers) == 1 else "import", fmt)
    with Session(pipeline.engine) as session:
        stored = store.open_regions(session=session, source=src.name)
    regions = sorted(set(stored) | {q.region for q in normalized.quotes})
    observed = max((q.observed_at for q in normalized.quotes), default=now)
    result = CrawlResult(source=src.name, provider=src.provider, started_at=now, finished_at=pipeline.clock(),
                         observed_at=observed, regions=regions, pages=1, items=items)
    run_id = pipeline.begin(src, spider=src.spider, mode="import", regions=regions)

    def already_normalized(_: list[dict[str, Any]]) -> Normalized:
        return normalized

    return pipeline.ingest(src, run_id, result, already_normalized)
