"""Huawei Cloud: the free-trial zone (activity.huaweicloud.com/free_test/)
and the promotion page (activity.huaweicloud.com/promotion/), read as
product cards under the page's headings.

Evidence (docs/providers/huawei.md): both URLs in Huawei's own links and in
public READMEs and crawler configurations."""

from __future__ import annotations

from parsel import Selector

from spiders.items import OfferRecord
from spiders.offers import OfferPage, OfferSpider, page_blocks

FREE_TRIAL_URL = "https://activity.huaweicloud.com/free_test/index.html"
PROMOTION_URL = "https://activity.huaweicloud.com/promotion/"


def parse_free_trials(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="Huawei free trials", prefix="free-test", levels=(1, 2, 3), items=True, rows=True)


def parse_promotions(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="Huawei promotions", prefix="promotion", levels=(1, 2, 3), items=True, rows=True)


class HuaweiOffersSpider(OfferSpider):
    name = "huawei-offers"
    provider = "huawei"
    currency = "CNY"
    offer_pages = (OfferPage(FREE_TRIAL_URL, parse_free_trials), OfferPage(PROMOTION_URL, parse_promotions))
