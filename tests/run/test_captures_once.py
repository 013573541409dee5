"""Each capture is kept once: a replay fixture that the demo also bundles is
read from tracker/demo_captures, never copied under tests/fixtures, so a
refreshed capture cannot leave a stale twin behind."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

from tests.conftest import DEMO_CAPTURES, FIXTURES


def _digest(path: Path) -> str:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return hashlib.sha256(data).hexdigest()


def test_no_fixture_is_a_copy_of_a_demo_capture() -> None:
    demo = {_digest(p): p for p in DEMO_CAPTURES.rglob("*.har*")}
    assert len(demo) >= 20  # the bundled captures are there to compare with
    copies = [
        f"{p.relative_to(FIXTURES)} = {demo[d].relative_to(DEMO_CAPTURES)}"
        for p in sorted(FIXTURES.rglob("*"))
        if p.is_file() and (d := _digest(p)) in demo
    ]
    assert copies == [], "replay these from DEMO_CAPTURES and delete the copies: " + "; ".join(copies)
