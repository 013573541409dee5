"""Building HAR captures for the official-API sources: each entry holds the
request the spider itself signs (so a replay matches it) and an answer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from spiders.api import ApiCall, SignedApiSpider
from spiders.crawling.middlewares import CREDENTIAL_HEADERS, SECRET_PLACEHOLDER
from spiders.har import har_entry, write_har


class CaptureBuilder:
    def __init__(self, spider: SignedApiSpider, started: datetime) -> None:
        self.spider = spider
        self.started = started
        self.entries: list[dict[str, Any]] = []

    def add(self, call: ApiCall, answer: Any, status: int = 200, headers: Sequence[tuple[str, str]] = ()) -> None:
        signed = self.spider.sign(call)
        shown = [(k, SECRET_PLACEHOLDER if k.lower() in CREDENTIAL_HEADERS else v) for k, v in signed.headers.items()]
        self.entries.append(
            har_entry(
                method=signed.method,
                url=signed.url,
                request_headers=shown,
                request_body=signed.body,
                status=status,
                response_headers=[("Content-Type", "application/json"), *headers],
                body=json.dumps(answer, ensure_ascii=False).encode("utf-8"),
                mime_type="application/json",
                started=self.started + timedelta(seconds=len(self.entries)),
                elapsed_ms=80.0,
            )
        )

    def write(self, path: Path) -> None:
        write_har(path, self.entries)


def call_by(calls: list[ApiCall], **match: Any) -> ApiCall:
    """The one call whose region and params match."""
    found = [c for c in calls if all((c.region if k == "region" else c.params.get(k)) == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]
