"""The bundled captures the demo replays, shipped as package data, and\nreplaying many captures at once."""

from __future__ import annotations

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
