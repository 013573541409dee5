"""GCP: the free program page (the Free Trial credit and the Free Tier)."""

from __future__ import annotations

from typing import Any

from parsel import Selector

from spiders.offers import OfferPage, OfferSpider, cards

FREE_URL = "https://cloud.google.com/free"


def parse_free_page(page: Selector) -> list[dict[str, Any]]:
    return cards(
        page,
        "section[data-program-id]",
        id_attr="data-program-id",
        title_css="h2",
        body_css=".program-summary, .program-terms li",
        what="GCP free program",
    )


class GcpOffersSpider(OfferSpider):
    name = "gcp-offers"
    provider = "gcp"
    currency = "USD"
    offer_pages = (OfferPage(FREE_URL, parse_free_page),)
