"""The bundled captures the demo replays, shipped as package data, and\nreplaying many captures at once."""

from __future__ import annotations

import shutil
from datetime import datetime
from importlib import resources
from pathlib import Path

from spiders.har import read_har
from tracker.normalize import parse_time
from tracker.sources import SOURCES


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
    found = []
    for source in sorted(SOURCES):
        folder = root / source
        if folder.is_dir():
            found.extend((source, f) for f in sorted(folder.glob("*.har*")))
    return found


def browser_missing(source: str, browser_path: str) -> bool:
    """The source renders pages in Chromium, and there is none: its captures
    cannot be replayed here."""
    if not SOURCES[source].uses_browser:
        return False
    return not Path(browser_path).exists() and shutil.which(Path(browser_path).name) is None
