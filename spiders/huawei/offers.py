"""Huawei Cloud: the free-trial zone (a single-page app; its products come
from a JSON call), and the promotion page with the 云创计划 vouchers and the
GPU renewal discount."""

from __future__ import annotations

from typing import Any

from parsel import Selector

from spiders.offers import OfferPage, OfferSpider, cards
from spiders.pages import PageShapeError, load_json, member

FREE_TRIAL_API = "https://activity.huaweicloud.com/free_test/api/v1/products?lang=zh-cn"
PROMOTION_URL = "https://activity.huaweicloud.com/promotion/index.html"
HEADERS = {
    "Origin": "https://activity.huaweicloud.com",
    "Referer": "https://activity.huaweicloud.com/free_test/index.html",
}


def parse_free_trials(body: bytes) -> list[dict[str, Any]]:
    """`{retCode: "0", result: {products: [{productId, productName, description, userLevel, labels}]}}`;
    `stock` is left out: it changes by the minute."""
    page = load_json(body, "Huawei free trials: the answer", exact=False)
    products = member(member(page, "result"), "products")
    if not isinstance(products, list):
        raise PageShapeError("Huawei free trials: the answer has no result.products list")
    if str(page.get("retCode")) != "0":
        raise PageShapeError(f"Huawei free trials: retCode {page.get('retCode')!r}: {page.get('retMsg')}")
    if not products or any(
        not isinstance(p, dict) or not p.get("productId") or not p.get("productName") for p in products
    ):
        raise PageShapeError("Huawei free trials: no products, or one without productId or productName")
    records = []
    for p in products:
        description, labels = p.get("description") or "", p.get("labels") or []
        if (
            not isinstance(description, str)
            or not isinstance(labels, list)
            or not all(isinstance(label, str) for label in labels)
        ):
            raise PageShapeError(
                f"Huawei free trials: {p['productId']!r} has a description that is not text "
                "or labels that are not a list of text"
            )
        records.append(
            {
                "id": p["productId"],
                "title": p["productName"],
                "text": " ".join([description, *labels]).strip(),
                "kind": "free_trial",
            }
        )
    return records


def parse_promotions(page: Selector) -> list[dict[str, Any]]:
    return cards(
        page,
        ".activity-card[data-activity]",
        id_attr="data-activity",
        title_css=".activity-title",
        body_css=".activity-benefit, .activity-rule",
        what="Huawei promotions",
    )


class HuaweiOffersSpider(OfferSpider):
    name = "huawei-offers"
    provider = "huawei"
    currency = "CNY"
    offer_pages = (
        OfferPage(FREE_TRIAL_API, parse_free_trials, json=True, headers=HEADERS),
        OfferPage(PROMOTION_URL, parse_promotions),
    )
