"""Alibaba Cloud: the China site's trial centre (free.aliyun.com) and the
international free trial page (www.alibabacloud.com/free), read as product
cards (list items titled by their heading) under the page's headings.

Evidence (docs/providers/alibaba.md): both URLs as Alibaba's own pages and
public READMEs link them ("开发者试用中心", "国际版免费试用")."""

from __future__ import annotations

from parsel import Selector

from spiders.items import OfferRecord
from spiders.offers import OfferPage, OfferSpider, page_blocks

TRIALS_URL = "https://free.aliyun.com/"
INTL_FREE_URL = "https://www.alibabacloud.com/free"


def parse_trials(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="Alibaba trial centre", prefix="free", levels=(1, 2, 3), items=True, rows=True)


def parse_intl_free(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="Alibaba Cloud free page", prefix="intl", levels=(1, 2, 3), items=True, rows=True)


class AlibabaOffersSpider(OfferSpider):
    name = "alibaba-offers"
    provider = "alibaba"
    currency = "CNY"
    offer_pages = (OfferPage(TRIALS_URL, parse_trials), OfferPage(INTL_FREE_URL, parse_intl_free))
