"""GCP: the free program's documentation page (the Free Trial credit, the
Free Tier and its usage limits), a static docs page.

Evidence (docs/providers/gcp.md): the stored copy of
docs.cloud.google.com/free/docs/free-cloud-features (a term list for new
and existing customers, then "Google Cloud Free Trial", "Free Tier" and
their sub-sections with anchors such as #free-tier and #free-tier-usage-limits)."""

from __future__ import annotations

from parsel import Selector

from spiders.items import OfferRecord
from spiders.offers import OfferPage, OfferSpider, page_blocks

FREE_DOCS_URL = "https://docs.cloud.google.com/free/docs/free-cloud-features"


def parse_free_docs(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="GCP free program docs", levels=(1, 2, 3), rows=True, terms=True)


class GcpOffersSpider(OfferSpider):
    name = "gcp-offers"
    provider = "gcp"
    currency = "USD"
    offer_pages = (OfferPage(FREE_DOCS_URL, parse_free_docs),)
