"""Azure: the free account's offer page (MS-AZR-0044P: the credit and its
terms) and the free services table (one row per service: what is free, how
much, for how long).

Evidence (docs/providers/azure.md): stored copies of the offer pages under
azure.microsoft.com/<locale>/offers/ and /pricing/offers/; the free services
page read row by row by a public client (jumping-dragon/freebies-analyzer,
src/server/api/routers/azure.ts: service, description, type, free amount,
free period)."""

from __future__ import annotations

from parsel import Selector

from spiders.items import OfferRecord
from spiders.offers import OfferPage, OfferSpider, page_blocks

OFFER_URL = "https://azure.microsoft.com/en-us/pricing/offers/ms-azr-0044p/"
FREE_SERVICES_URL = "https://azure.microsoft.com/en-us/pricing/free-services/"


def parse_offer(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="Azure free account offer", prefix="ms-azr-0044p")


def parse_free_services(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="Azure free services", prefix="free-services", levels=(), rows=True)


class AzureOffersSpider(OfferSpider):
    name = "azure-offers"
    provider = "azure"
    currency = "USD"
    offer_pages = (OfferPage(OFFER_URL, parse_offer), OfferPage(FREE_SERVICES_URL, parse_free_services))
