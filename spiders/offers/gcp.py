"""GCP: the free program page (the Free Trial credit and the Free Tier)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from parsel import Selector
from scrapy.http import Response

from spiders.offers import OfferSpider
from spiders.pages.offer_cards import cards

FREE_URL = "https://cloud.google.com/free"


def parse_free_page(page: Selector) -> list[dict[str, Any]]:
    return cards(page, "section[data-program-id]", id_attr="data-program-id", title_css="h2",
                 body_css=".program-summary, .program-terms li", what="GCP free program")


class GcpOffersSpider(OfferSpider):
    name = "gcp-offers"
    provider = "gcp"
    currency = "USD"

    async def start(self) -> Any:
        yield self.request(FREE_URL, self.parse)

    def parse(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        yield from self.offer_items(response, parse_free_page(response.selector))
