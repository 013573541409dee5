"""Volcano Engine: the compute promotion page."""

from __future__ import annotations

from typing import Any

from parsel import Selector

from spiders.offers import OfferPage, OfferSpider, cards

PROMOTION_URL = "https://www.volcengine.com/activity/compute"


def parse_promotions(page: Selector) -> list[dict[str, Any]]:
    return cards(
        page,
        "[data-activity-id]",
        id_attr="data-activity-id",
        title_css=".title",
        body_css=".desc, .tag",
        what="Volcengine promotions",
    )


class VolcengineOffersSpider(OfferSpider):
    name = "volcengine-offers"
    provider = "volcengine"
    currency = "CNY"
    offer_pages = (OfferPage(PROMOTION_URL, parse_promotions),)
