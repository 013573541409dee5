"""Volcano Engine: the compute promotion page."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from parsel import Selector
from scrapy.http import Response

from spiders.offers import OfferSpider
from spiders.pages.offer_cards import cards

PROMOTION_URL = "https://www.volcengine.com/activity/compute"


def parse_promotions(page: Selector) -> list[dict[str, Any]]:
    return cards(page, "[data-activity-id]", id_attr="data-activity-id", title_css=".title",
                 body_css=".desc, .tag", what="Volcengine promotions")


class VolcengineOffersSpider(OfferSpider):
    name = "volcengine-offers"
    provider = "volcengine"
    currency = "CNY"

    async def start(self) -> Any:
        yield self.request(PROMOTION_URL, self.parse)

    def parse(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        yield from self.offer_items(response, parse_promotions(response.selector))
