"""Offer spiders: one per provider, each crawled as the source
`<provider>-offers`. They fetch the promotion pages (or the JSON those pages
load) and emit one raw `offer` item per promotion, with the words as seen;
tracker/normalize/offers.py reads them.

A provider's spider lists its pages; each page names its pure parser, which
gets the parsed HTML (`Selector`) or, with `json=True`, the body bytes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from scrapy.http import Response

from spiders.base import ProviderSpider


@dataclass(frozen=True)
class OfferPage:
    url: str
    parse: Callable[[Any], list[dict[str, Any]]]
    json: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    # A CSS selector: render the page in Chromium and wait for it.
    wait_for: str | None = None


class OfferSpider(ProviderSpider):
    # The currency of amounts the page writes without a sign ("5000代金券").
    currency: ClassVar[str]
    offer_pages: ClassVar[tuple[OfferPage, ...]]

    async def start(self) -> Any:
        for page in self.offer_pages:
            if page.wait_for:
                yield self.browser_request(page.url, self.parse, wait_for=page.wait_for, cb_kwargs={"page": page})
            else:
                yield self.request(page.url, self.parse, headers=page.headers, cb_kwargs={"page": page})

    def parse(self, response: Response, page: OfferPage) -> Iterable[Any]:
        self.fetched(response)
        records = page.parse(response.body if page.json else response.selector)
        absolute = [{**r, "url": response.urljoin(r["url"])} if r.get("url") else r for r in records]
        yield from self.items(response, "offer", absolute, provider=self.provider, currency=self.currency)
