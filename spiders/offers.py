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

from parsel import Selector
from scrapy.http import Response

from spiders.base import ProviderSpider
from spiders.pages import PageShapeError


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


_TEXT = ".//text()[not(ancestor::script) and not(ancestor::style)]"


def text_of(node: Selector | None) -> str:
    if node is None:
        return ""
    return " ".join(t.strip() for t in node.xpath(_TEXT).getall() if t.strip())


def cards(
    page: Selector, card_css: str, *, id_attr: str, title_css: str, body_css: str, what: str
) -> list[dict[str, Any]]:
    """One record per card: {id, title, text, url}. No cards, or a card
    without its id or title, is a page we no longer know."""
    found = page.css(card_css)
    if not found:
        raise PageShapeError(f"{what}: no promotion cards ({card_css}) on the page")
    records = []
    for card in found:
        ident, title = card.attrib.get(id_attr, "").strip(), text_of(card.css(title_css)[:1] or None)
        if not ident or not title:
            raise PageShapeError(f"{what}: a card has no {id_attr} or no title ({title_css})")
        body = " ".join(text_of(n) for n in card.css(body_css))
        records.append({"id": ident, "title": title, "text": body, "url": card.css("a::attr(href)").get() or ""})
    return records
