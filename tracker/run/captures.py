"""The raw captures each live run keeps (`<home>/runs/<run id>-<source>/capture.har.gz`):
how long they are kept, and which are there to reprocess."""

from __future__ import annotations

import logging
import re
import shutil
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from spiders.har import HarError
from tracker.run.demo import capture_time

log = logging.getLogger(__name__)
_RUN_DIR = re.compile(r"^(\d+)-(.+)$")
CAPTURE = "capture.har.gz"


@dataclass(frozen=True)
class KeptCapture:
    run_id: int
    path: Path
    observed_at: datetime


def prune_captures(runs_dir: Path, retention_days: int, *, now: float | None = None) -> int:
    """Delete run folders last written more than `retention_days` ago; returns how many."""
    if not runs_dir.is_dir():
        return 0
    cutoff = (now if now is not None else time.time()) - retention_days * 86400
    removed = 0
    for folder in runs_dir.iterdir():
        if folder.is_dir() and _RUN_DIR.match(folder.name) and folder.stat().st_mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    if removed:
        log.info("deleted %d run folders older than %d days", removed, retention_days)
    return removed


def kept_captures(runs_dir: Path, source: str, since: datetime | None = None) -> list[KeptCapture]:
    """The source's kept captures, oldest first by their own time."""
    found = []
    for path in runs_dir.glob(f"*-{source}/{CAPTURE}") if runs_dir.is_dir() else []:
        match = _RUN_DIR.match(path.parent.name)
        if not match or match.group(2) != source:
            continue
        try:
            observed = capture_time(path)
        except (HarError, ValueError, KeyError, OSError) as exc:
            log.warning("skipping unreadable capture %s: %s", path, exc)
            continue
        if since is None or observed >= since:
            found.append(KeptCapture(int(match.group(1)), path, observed))
    return sorted(found, key=lambda c: (c.observed_at, c.run_id))
