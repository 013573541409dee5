"""Alibaba Cloud: the China site's free-trial page (free.aliyun.com), the
international free page, and the GPU promotion page."""

from __future__ import annotations

from typing import Any

from parsel import Selector

from spiders.offers import OfferPage, OfferSpider, cards

TRIALS_URL = "https://free.aliyun.com/"
INTL_FREE_URL = "https://www.alibabacloud.com/free"
GPU_PROMO_URL = "https://www.aliyun.com/product/ecs/gpu"


def parse_trials(page: Selector) -> list[dict[str, Any]]:
    return cards(
        page,
        ".trial-card[data-product-code]",
        id_attr="data-product-code",
        title_css=".trial-title",
        body_css=".trial-desc, .trial-spec, .trial-limit",
        what="Alibaba free trials",
    )


def parse_intl_free(page: Selector) -> list[dict[str, Any]]:
    return cards(
        page, "[data-offer]", id_attr="data-offer", title_css="h3", body_css="p", what="Alibaba Cloud free page"
    )


def parse_gpu_promo(page: Selector) -> list[dict[str, Any]]:
    return cards(
        page,
        ".promo-item[data-promo-id]",
        id_attr="data-promo-id",
        title_css=".promo-title",
        body_css=".promo-desc",
        what="Alibaba GPU promotions",
    )


class AlibabaOffersSpider(OfferSpider):
    name = "alibaba-offers"
    provider = "alibaba"
    currency = "CNY"
    offer_pages = (
        OfferPage(TRIALS_URL, parse_trials),
        OfferPage(INTL_FREE_URL, parse_intl_free),
        OfferPage(GPU_PROMO_URL, parse_gpu_promo),
    )
