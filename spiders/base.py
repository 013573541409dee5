"""What every provider spider shares: failure bookkeeping, progress and the
raw item envelope. A spider extracts raw items and nothing more."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar

import scrapy
from scrapy.http import Response
from scrapy_playwright.page import PageMethod
from twisted.python.failure import Failure

from spiders.crawling.middlewares import SECRET_PARAMS_SETTING
from spiders.har import SECRET_PLACEHOLDER, browser_capture_path, mask_query


def _route_from_har(har: str) -> Callable[..., Any]:
    async def init(page: Any, request: scrapy.Request) -> None:
        await page.route_from_har(har, not_found="abort", update=False)

    return init


class SourceFailure(Exception):
    """The source answered, but not with something we can use."""


class ProviderSpider(scrapy.Spider):
    provider: ClassVar[str]
    default_regions: ClassVar[tuple[str, ...]] = ()
    uses_browser: ClassVar[bool] = False

    def __init__(self, regions: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.regions: list[str] = [r for r in regions.split(",") if r] or list(self.default_regions)
        self.failures: list[str] = []
        self.notes: list[str] = []
        self.pages = 0
        self.progress: Callable[[int], None] = lambda pages: None

    def request(self, url: str, callback: Callable[..., Any], **kwargs: Any) -> scrapy.Request:
        return scrapy.Request(url, callback=callback, errback=self.on_error, **kwargs)

    def browser_request(
        self,
        url: str,
        callback: Callable[..., Any],
        *,
        wait_for: str,
        timeout_ms: int = 30000,
        meta: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> scrapy.Request:
        """A page rendered by Chromium (scrapy-playwright), waited for with an
        explicit selector. In replay the browser is served from the HAR and
        an unknown URL fails; in record mode its traffic is saved beside the
        crawl's own capture. The spider must set `uses_browser = True`."""
        page_meta: dict[str, Any] = {
            "playwright": True,
            "playwright_page_methods": [
                PageMethod("wait_for_selector", wait_for, state="attached", timeout=timeout_ms)
            ],
        }
        replay = self.settings.get("GPU_TRACKER_REPLAY")
        record = self.settings.get("GPU_TRACKER_RECORD")
        if replay:
            page_meta["playwright_page_init_callback"] = _route_from_har(str(replay))
        elif record:
            page_meta["playwright_context"] = "record"
            page_meta["playwright_context_kwargs"] = {
                "record_har_path": browser_capture_path(str(record)),
                "record_har_content": "embed",
            }
        return scrapy.Request(
            url,
            callback=callback,
            errback=self.on_error,
            meta={**page_meta, **(meta or {})},
            dont_filter=True,
            **kwargs,
        )

    def public_url(self, url: str) -> str:
        """`url` as it may be shown, logged or stored: secret query parameters
        (the spider's GPU_TRACKER_SECRET_QUERY_PARAMS setting) masked."""
        settings = getattr(self, "settings", None)
        return mask_query(url, settings.getlist(SECRET_PARAMS_SETTING) if settings else [])

    def on_error(self, failure: Failure) -> None:
        request = getattr(failure, "request", None)
        message, where = str(failure.value), ""
        if request is not None:
            shown = self.public_url(request.url)
            where = "" if request.url in message or shown in message else f" ({shown})"
            message = message.replace(request.url, shown)
        if "Failed to launch" in message:
            where += (
                "; install Chromium (apt-get install chromium) or point [crawl] browser_path at a Chromium executable"
            )
        self.failures.append(f"{message}{where}" if message else f"{type(failure.value).__name__}{where}")

    def key_hint(self) -> str:
        """Where the source's key goes: its setting and environment variable."""
        env = f"GPU_TRACKER_{self.provider.upper().replace('-', '_')}_API_KEY"
        return f"set [providers.{self.provider}] api_key or {env}"

    def require_key(self, key: str, noun: str = "API key") -> None:
        """A live crawl without its key stops with one sentence; a replay needs none."""
        if not key and not self.settings.get("GPU_TRACKER_REPLAY"):
            raise SourceFailure(f"{self.name}: no {noun} ({self.key_hint()})")

    def refused(self, response: Response, noun: str = "API key") -> None:
        """An answer that refuses the key (HTTP 401 or 403) fails the run saying so."""
        if response.status in (401, 403):
            raise SourceFailure(f"{self.name}: the {noun} was refused (HTTP {response.status}); {self.key_hint()}")

    def more_pages(self, number: int, last: int, most: int) -> bool:
        """Whether to ask for page `number + 1` of `last`; a listing longer
        than the `most` pages we read fails the run rather than end short."""
        if last > most and number >= most:
            raise SourceFailure(f"{self.name}: the listing has {last} pages, more than the {most} read")
        return number < last

    def fetched(self, response: Response) -> None:
        """Counts a page, or raises when the answer is not a usable one."""
        if response.status != 200:
            raise SourceFailure(f"HTTP {response.status} from {self.public_url(response.url)}")
        self.pages += 1
        self.progress(self.pages)

    @staticmethod
    def observed_at(response: Response) -> str:
        """The capture's time in replay, the response's time otherwise."""
        started = response.meta.get("har_started")
        return str(started) if started else datetime.now(UTC).isoformat()

    def items(
        self, response: Response, kind: str, records: Iterable[Mapping[str, Any]], **extra: Any
    ) -> Iterable[dict[str, Any]]:
        observed = self.observed_at(response)
        source_url = self.public_url(response.url)
        for record in records:
            yield {"kind": kind, "observed_at": observed, "source_url": source_url, **extra, "data": record}


class BearerSpider(ProviderSpider):
    """A spider of a JSON API that takes the user's key as a Bearer token
    (`[providers.<provider>] api_key`); captures keep a placeholder for it
    (spiders/crawling/middlewares.py CREDENTIAL_HEADERS), and a replay needs none."""

    api_url: str
    custom_settings: dict[str, Any] | None = {"REFERER_ENABLED": False}  # noqa: RUF012 (scrapy.Spider declares it per instance)

    def __init__(self, api_key: str = "", api_url: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_key = api_key
        self.api_url = api_url or type(self).api_url

    def bearer_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key or SECRET_PLACEHOLDER}", "Accept": "application/json"}
