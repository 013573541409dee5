"""Azure: the free account page, one card per offer with its offer id
(MS-AZR-0044P is the free account)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from parsel import Selector
from scrapy.http import Response

from spiders.offers import OfferSpider
from spiders.pages.offer_cards import cards

OFFERS_URL = "https://azure.microsoft.com/en-us/free/"


def parse_free_page(page: Selector) -> list[dict[str, Any]]:
    return cards(page, "[data-offer-id]", id_attr="data-offer-id", title_css="h3",
                 body_css="p", what="Azure free account")


class AzureOffersSpider(OfferSpider):
    name = "azure-offers"
    provider = "azure"
    currency = "USD"

    async def start(self) -> Any:
        yield self.request(OFFERS_URL, self.parse)

    def parse(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        yield from self.offer_items(response, parse_free_page(response.selector))
