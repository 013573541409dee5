"""Pages a user names in `[[watch]]`: fetched as they are, or through the
browser when `browser = true`, waiting for the selector to match."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from parsel import Selector
from scrapy.http import TextResponse

from spiders.base import ProviderSpider
from spiders.items import WatchMatch
from spiders.pages import PageShapeError


class WatchSpider(ProviderSpider):
    name = "watch"
    provider = "watch"

    def __init__(
        self,
        url: str = "",
        selector: str = "",
        watch: str = "",
        watch_provider: str = "",
        offer_kind: str = "",
        ignore: str = "[]",
        currency: str = "",
        wait_for: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.url, self.selector, self.watch = url, selector, watch
        self.wait_for = wait_for or selector
        self.extra = {
            "watch": watch,
            "provider": watch_provider,
            "offer_kind": offer_kind,
            "ignore": json.loads(ignore),
            "currency": currency or None,
        }

    async def start(self) -> Any:
        yield self.page_request()

    def page_request(self) -> Any:
        return self.request(self.url, self.parse)

    def parse(self, response: TextResponse) -> Iterable[Any]:  # type: ignore[override]  # HTML asked for: Scrapy answers with a TextResponse
        self.fetched(response)
        records = parse_matches(response.selector, self.selector, what=f"watch:{self.watch} ({response.url})")
        yield from self.items(response, "watch.match", records, **self.extra)


class BrowserWatchSpider(WatchSpider):
    name = "watch-browser"
    uses_browser = True

    def page_request(self) -> Any:
        return self.browser_request(self.url, self.parse, wait_for=self.wait_for)


_TEXT = ".//text()[not(ancestor::script) and not(ancestor::style) and not(ancestor::noscript)]"


def element_id(element: Selector) -> str:
    """The element's own name for itself, when it has one."""
    for attr in ("data-offer-id", "data-id", "id", "data-sku", "data-instance-type"):
        value = element.attrib.get(attr)
        if value:
            return value.strip()
    return ""


def parse_matches(page: Selector, selector: str, *, what: str) -> list[WatchMatch]:
    matches = page.css(selector)
    if not matches:
        raise PageShapeError(f"{what}: the selector {selector!r} matched nothing")
    records: list[WatchMatch] = []
    for index, element in enumerate(matches):
        text = " ".join(t.strip() for t in element.xpath(_TEXT).getall() if t.strip())
        records.append(
            {
                "index": index,
                "id": element_id(element),
                "text": text,
                "href": element.attrib.get("href") or element.css("a::attr(href)").get() or "",
            }
        )
    if not any(r["text"] for r in records):
        raise PageShapeError(f"{what}: the elements matching {selector!r} hold no text")
    return records
