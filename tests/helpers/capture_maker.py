"""One HAR entry per answer, of any type (JSON, Markdown, HTML), for the
fixture makers (tests/fixtures/<provider>/make_fixtures.py); `write_capture`
writes them gzipped, the same bytes each time (tests/helpers/jsoncapture.py)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from spiders.har import har_entry
from tests.helpers.jsoncapture import write_entries as write_capture  # noqa: F401  (the makers' one writer)


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
