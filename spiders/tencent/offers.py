"""Tencent Cloud: the new-customer page (cloud.tencent.com/act/new: the
voucher ladder, one list item per voucher) and the free experience area
(cloud.tencent.com/act/free: product cards).

Evidence (docs/providers/tencent.md): both URLs in Tencent's own page
configuration and in public READMEs; the ladder's shape ("满100减50 满200减100
… 满10000减500", then the time, audience and 15-day validity rules) from a
stored copy of the page's text."""

from __future__ import annotations

from parsel import Selector

from spiders.items import OfferRecord
from spiders.offers import OfferPage, OfferSpider, page_blocks

NEW_USER_URL = "https://cloud.tencent.com/act/new"
FREE_AREA_URL = "https://cloud.tencent.com/act/free"


def parse_new_user(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="Tencent new-customer page", prefix="new", levels=(1, 2, 3), items=True, rows=True)


def parse_free_area(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="Tencent free area", prefix="free", levels=(1, 2, 3), items=True, rows=True)


class TencentOffersSpider(OfferSpider):
    name = "tencent-offers"
    provider = "tencent"
    currency = "CNY"
    offer_pages = (OfferPage(NEW_USER_URL, parse_new_user), OfferPage(FREE_AREA_URL, parse_free_area))
