"""Writes constructed JSON-API captures (the GPU clouds' demo captures and
fixtures): one HAR entry per answer, gzipped with no name or time stamp so
that the bytes depend on the content only."""

from __future__ import annotations

import gzip
import json
import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from spiders.har import har_entry, write_har

JSON = "application/json"


def json_entry(
    url: str,
    answer: Any,
    when: datetime,
    *,
    method: str = "GET",
    body: Any = None,
    status: int = 200,
    auth: bool = True,
) -> dict[str, Any]:
    """One request with a JSON answer; `body` is a POST's JSON body, `auth`
    whether it carried a (masked) Authorization header."""
    headers = [("Accept", JSON)] + ([("Authorization", "REDACTED")] if auth else [])
    return har_entry(
        method=method,
        url=url,
        request_headers=headers,
        request_body=json.dumps(body).encode() if body is not None else None,
        status=status,
        response_headers=[("Content-Type", f"{JSON}; charset=utf-8")],
        body=json.dumps(answer, indent=1).encode(),
        mime_type=JSON,
        started=when,
        elapsed_ms=150.0,
    )


def write_capture(path: Path, requests: list[dict[str, Any]], when: datetime) -> None:
    """`requests` (json_entry's keyword arguments, `url` and `answer` among
    them), a second apart from `when`, written gzipped to `path`."""
    entries = [json_entry(when=when + timedelta(seconds=n), **request) for n, request in enumerate(requests)]
    write_entries(path, entries)


def write_entries(path: Path, entries: list[dict[str, Any]]) -> None:
    """HAR `entries` written gzipped to `path`, the same bytes each time."""
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "capture.har"
        write_har(plain, entries)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(plain.read_bytes(), mtime=0))
