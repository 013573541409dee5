"""Huawei Cloud: the free-trial zone (a single-page app; its products come
from a JSON call), and the promotion page with the 云创计划 vouchers and the
GPU renewal discount."""

from __future__ import annotations

import json
from typing import Any

from parsel import Selector

from spiders.offers import OfferPage, OfferSpider
from spiders.pages import PageShapeError
from spiders.pages.offer_cards import cards

FREE_TRIAL_API = "https://activity.huaweicloud.com/free_test/api/v1/products?lang=zh-cn"
PROMOTION_URL = "https://activity.huaweicloud.com/promotion/index.html"
HEADERS = {"Origin": "https://activity.huaweicloud.com",
           "Referer": "https://activity.huaweicloud.com/free_test/index.html"}


def parse_free_trials(body: bytes) -> list[dict[str, Any]]:
    """`{retCode: "0", result: {products: [{productId, productName, description, userLevel, labels}]}}`;
    `stock` is left out: it changes by the minute."""
    try:
        page = json.loads(body)
        products = page["result"]["products"]
    except (ValueError, KeyError, TypeError):
        raise PageShapeError("Huawei free trials: the answer has no result.products") from None
    if str(page.get("retCode")) != "0":
        raise PageShapeError(f"Huawei free trials: retCode {page.get('retCode')!r}: {page.get('retMsg')}")
    if not products or any(not p.get("productId") or not p.get("productName") for p in products):
        raise PageShapeError("Huawei free trials: no products, or one without productId or productName")
    return [{"id": p["productId"], "title": p["productName"],
             "text": " ".join([p.get("description", ""), *p.get("labels", [])]).strip(),
             "kind": "free_trial"} for p in products]


def parse_promotions(page: Selector) -> list[dict[str, Any]]:
    return cards(page, ".activity-card[data-activity]", id_attr="data-activity", title_css=".activity-title",
                 body_css=".activity-benefit, .activity-rule", what="Huawei promotions")


class HuaweiOffersSpider(OfferSpider):
    name = "huawei-offers"
    provider = "huawei"
    currency = "CNY"
    offer_pages = (OfferPage(FREE_TRIAL_API, parse_free_trials, json=True, headers=HEADERS),
                   OfferPage(PROMOTION_URL, parse_promotions))
