"""Volcano Engine: the Ark Coding Plan activity page, the one Volcano Engine
activity page public material shows (www.volcengine.com/activity/codingplan);
no public page of GPU compute promotions was found, so the former
/activity/compute URL is gone (docs/providers/volcengine.md)."""

from __future__ import annotations

from parsel import Selector

from spiders.items import OfferRecord
from spiders.offers import OfferPage, OfferSpider, page_blocks

CODING_PLAN_URL = "https://www.volcengine.com/activity/codingplan"


def parse_coding_plan(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="Volcengine Coding Plan page", levels=(1, 2, 3), items=True, rows=True)


class VolcengineOffersSpider(OfferSpider):
    name = "volcengine-offers"
    provider = "volcengine"
    currency = "CNY"
    offer_pages = (OfferPage(CODING_PLAN_URL, parse_coding_plan),)
