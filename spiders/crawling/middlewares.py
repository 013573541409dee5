"""Downloader middlewares that replay a HAR instead of the network, or record
what the network answered into one."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.responsetypes import responsetypes

from spiders.har import SECRET_PLACEHOLDER, HarArchive, har_entry, mask_json_body, mask_query, write_har

# A spider lists here the query parameters that carry secrets (API keys), and
# the top-level JSON members of request or response bodies that do (an OAuth
# client secret, an access token): they are written to captures as a
# placeholder and ignored when replaying.
SECRET_PARAMS_SETTING = "GPU_TRACKER_SECRET_QUERY_PARAMS"
# Set when a replay goes through Chromium (a capture without rendered pages).
BROWSER_REPLAY_SETTING = "GPU_TRACKER_BROWSER_REPLAY"

# Request headers that carry a key or a signature made with it (the signed
# official APIs): written to captures as the placeholder.
CREDENTIAL_HEADERS = {"authorization", "x-tc-token", "x-acs-security-token", "x-security-token"}


class ReplayMiss(IgnoreRequest):
    """A request that the capture has no response for."""


class ReplayedTransportError(TimeoutError):
    """A request the capture recorded as unanswered (a timeout, a reset)."""


class PoliteRetryMiddleware(RetryMiddleware):
    """Retries like Scrapy's, but waits as long as a 429 or 503 asks with
    Retry-After (up to RETRY_AFTER_MAX seconds) instead of at once."""

    retry_after_max: float  # set by from_crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PoliteRetryMiddleware:
        mw = super().from_crawler(crawler)
        mw.retry_after_max = crawler.settings.getfloat("RETRY_AFTER_MAX", 120)
        return mw

    # Scrapy (2.13+) awaits a coroutine method of a middleware; RetryMiddleware's own is plain.
    async def process_response(  # type: ignore[override]
        self,
        request: Request,
        response: Response,
        spider: Spider | None = None,
    ) -> Request | Response:
        wait = retry_after_seconds(response)
        if wait is None or request.meta.get("dont_retry"):
            return super().process_response(request, response)
        if wait > self.retry_after_max:
            raise IgnoreRequest(
                f"HTTP {response.status} from {response.url} asks to wait {wait:g} s "
                f"(Retry-After), more than the {self.retry_after_max:g} s we wait"
            )
        retry = self._retry(request, f"{response.status} with Retry-After {wait:g}s")
        if retry is None:
            return response
        await asyncio.sleep(wait)
        return retry


def retry_after_seconds(response: Response) -> float | None:
    if response.status not in (429, 503):
        return None
    value = (response.headers.get("Retry-After") or b"").decode("latin-1").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class HarReplayMiddleware:
    """Answers every request from the HAR named by the GPU_TRACKER_REPLAY
    setting; a request with no recorded answer fails, naming its URL."""

    def __init__(self, archive: HarArchive, browser: bool = False) -> None:
        self.archive = archive
        self.browser = browser

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> HarReplayMiddleware:
        path = crawler.settings.get("GPU_TRACKER_REPLAY")
        if not path:
            raise NotConfigured
        archive = HarArchive(path, secret_params=crawler.settings.getlist(SECRET_PARAMS_SETTING))
        return cls(archive, browser=crawler.settings.getbool(BROWSER_REPLAY_SETTING))

    def process_request(self, request: Request, spider: Spider | None = None) -> Response | None:
        page = bool(request.meta.get("playwright"))
        if page and self.browser and not self.archive.has_rendered(request.method, request.url, request.body):
            # An old capture without the rendered page: the browser replays
            # it through page.route_from_har; the capture still gives the
            # observation time.
            seen = self.archive.lookup(request.method, request.url, request.body, peek=True)
            if seen is not None:
                request.meta["har_started"] = seen.started
            return None
        found = self.archive.lookup(request.method, request.url, request.body, rendered=page)
        if found is None:
            shown = mask_query(request.url, self.archive.secret_params)
            raise ReplayMiss(f"the capture has no response for {request.method} {shown}")
        if found.status == 0:
            # A browser records a request that got no answer with status 0 and
            # its reason (net::ERR_TIMED_OUT): replay it as that failure.
            shown = mask_query(request.url, self.archive.secret_params)
            raise ReplayedTransportError(f"{found.error or 'no response'} for {shown}")
        request.meta["har_started"] = found.started
        headers = dict(found.headers)
        # Text keys: from_headers looks for bytes ones, so the class comes from the URL and the body.
        cls = responsetypes.from_args(headers=headers, url=request.url, body=found.body)  # type: ignore[arg-type]
        return cls(url=request.url, status=found.status, headers=headers, body=found.body, request=request)


class HarRecordMiddleware:
    """Keeps every final response and writes them as HAR 1.2 when the spider
    closes, to the path in the GPU_TRACKER_RECORD setting."""

    def __init__(self, path: str, secret_params: list[str] | None = None) -> None:
        self.path = path
        self.secret_params = secret_params or []
        self.entries: list[dict[str, Any]] = []

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> HarRecordMiddleware:
        path = crawler.settings.get("GPU_TRACKER_RECORD")
        if not path or crawler.settings.get("GPU_TRACKER_REPLAY"):
            raise NotConfigured
        mw = cls(path, crawler.settings.getlist(SECRET_PARAMS_SETTING))
        crawler.signals.connect(mw.spider_closed, signal=signals.spider_closed)
        return mw

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        request.meta.setdefault("har_sent", (datetime.now(UTC), time.monotonic()))

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        started, t0 = request.meta.get("har_sent") or (datetime.now(UTC), time.monotonic())
        request.meta["har_started"] = started.isoformat()
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, vs in response.headers.items() for v in vs]
        content_type = (response.headers.get("Content-Type") or b"").decode("latin-1")
        self.entries.append(
            har_entry(
                method=request.method,
                url=mask_query(request.url, self.secret_params),
                request_headers=[
                    (name, self._masked(name, v.decode("latin-1")))
                    for k, vs in request.headers.items()
                    for name in [k.decode("latin-1")]
                    for v in vs
                ],
                request_body=mask_json_body(request.body or None, self.secret_params),
                status=response.status,
                response_headers=headers,
                body=mask_json_body(response.body, self.secret_params) or b"",
                mime_type=content_type,
                started=started,
                elapsed_ms=(time.monotonic() - t0) * 1000,
                # scrapy-playwright answers with the page's DOM once rendered.
                rendered=bool(request.meta.get("playwright")),
            )
        )
        return response

    def _masked(self, name: str, value: str) -> str:
        if name.lower() in CREDENTIAL_HEADERS:
            return SECRET_PLACEHOLDER
        # A Referer header repeats the previous URL, secrets included.
        return mask_query(value, self.secret_params) if value.startswith(("http://", "https://")) else value

    def spider_closed(self, spider: Spider) -> None:
        write_har(self.path, self.entries)
