"""Offer spiders: one per provider, each crawled as the source
`<provider>-offers`. They fetch the promotion pages (or the JSON those pages
load) and emit one raw `offer` item per promotion, with the words as seen;
tracker/normalize/offers.py reads them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from scrapy.http import Response

from spiders.base import ProviderSpider


class OfferSpider(ProviderSpider):
    # The currency of amounts the page writes without a sign ("5000代金券").
    currency: ClassVar[str]

    def offer_items(self, response: Response, records: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
        absolute = [{**r, "url": response.urljoin(r["url"])} if r.get("url") else r for r in records]
        return self.items(response, "offer", absolute, provider=self.provider, currency=self.currency)
