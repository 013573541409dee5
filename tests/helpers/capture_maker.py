"""What the fixture makers (tests/fixtures/<provider>/make_fixtures.py)
share: one HAR entry per answer, written gzipped with no name or time stamp
so that the bytes depend on the content only."""

from __future__ import annotations

import gzip
import json
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from spiders.har import har_entry, write_har


def entry(
    url: str,
    body: Any,
    when: datetime,
    *,
    mime: str = "application/json",
    status: int = 200,
    request_headers: list[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """A GET answered with `body` (an object is written as JSON; text and
    bytes as they are)."""
    if isinstance(body, bytes):
        raw = body
    elif isinstance(body, str):
        raw = body.encode("utf-8")
    else:
        raw = json.dumps(body, indent=1, ensure_ascii=False).encode("utf-8")
    return har_entry(
        method="GET",
        url=url,
        request_headers=request_headers or [("Accept", mime.split(";")[0])],
        request_body=None,
        status=status,
        response_headers=[("Content-Type", mime)],
        body=raw,
        mime_type=mime,
        started=when,
        elapsed_ms=210.0,
    )


def write_capture(path: Path, entries: list[dict[str, Any]]) -> None:
    """`entries` as a gzipped HAR at `path` (mtime 0: the same bytes each time)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "capture.har"
        write_har(plain, entries)
        path.write_bytes(gzip.compress(plain.read_bytes(), mtime=0))
