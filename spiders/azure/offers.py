"""Azure: the free account page, one card per offer with its offer id
(MS-AZR-0044P is the free account)."""

from __future__ import annotations

from typing import Any

from parsel import Selector

from spiders.offers import OfferPage, OfferSpider, cards

OFFERS_URL = "https://azure.microsoft.com/en-us/free/"


def parse_free_page(page: Selector) -> list[dict[str, Any]]:
    return cards(
        page, "[data-offer-id]", id_attr="data-offer-id", title_css="h3", body_css="p", what="Azure free account"
    )


class AzureOffersSpider(OfferSpider):
    name = "azure-offers"
    provider = "azure"
    currency = "USD"
    offer_pages = (OfferPage(OFFERS_URL, parse_free_page),)
