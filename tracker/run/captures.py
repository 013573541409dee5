"""Captures: the ones bundled for the demo (package data, under
`tracker/demo_captures/<source>/`), and the raw ones each live run keeps
(`<home>/runs/<run id>-<source>/capture.har.gz`): how long they are kept,
and which are there to reprocess."""

from __future__ import annotations

import logging
import re
import shutil
import time
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path

from spiders.har import HarError, read_har
from tracker.normalize import parse_time
from tracker.sources import SOURCES

log = logging.getLogger(__name__)
_RUN_DIR = re.compile(r"^(\d+)-(.+)$")
CAPTURE = "capture.har.gz"


def capture_time(capture: Path) -> datetime:
    """When the capture began: its first entry's startedDateTime."""
    entries = read_har(capture)["log"]["entries"]
    return min(parse_time(e["startedDateTime"]) for e in entries)


def capture_regions(capture: Path) -> list[str]:
    """'2026-08-03-westeurope+eastus.har.gz' -> ['westeurope', 'eastus']."""
    stem = capture.name.split(".")[0]
    parts = stem.split("-", 3)
    return [r for r in parts[3].split("+") if r] if len(parts) == 4 else []


def demo_captures() -> list[tuple[str, Path]]:
    """(source, capture) pairs, each source's captures in date order (their
    names are `<date>-<regions>.har.gz`)."""
    root = Path(str(resources.files("tracker") / "demo_captures"))
    found: list[tuple[str, Path]] = []
    for source in sorted(SOURCES):
        folder = root / source
        if folder.is_dir():
            found.extend((source, f) for f in sorted(folder.glob("*.har*")))
    return found


def browser_missing(source: str, browser_path: str, capture: Path | None = None) -> bool:
    """Replaying `capture` (None: any of the source's bundled captures) needs
    Chromium, and there is none at the configured `browser_path`. A capture
    holds the pages as the browser rendered them, so only one recorded before
    that needs it."""
    from spiders.har import needs_browser

    if not SOURCES[source].uses_browser or Path(browser_path).exists():
        return False
    captures = [capture] if capture is not None else [c for s, c in demo_captures() if s == source]
    return any(needs_browser(c) for c in captures)


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
