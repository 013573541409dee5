"""Tencent Cloud: the new-user vouchers, from the JSON the activity page
loads, and the free experience area (cloud.tencent.com/act/free)."""

from __future__ import annotations

from typing import Any

from parsel import Selector

from spiders.offers import OfferPage, OfferSpider, cards
from spiders.pages import PageShapeError, load_json, member

FREE_AREA_URL = "https://cloud.tencent.com/act/free"
VOUCHERS_URL = "https://cloud.tencent.com/act/api/newuser/coupons?scene=cvm&lang=zh"
REFERER = "https://cloud.tencent.com/act/new"
_VOUCHER_FIELDS = ("couponId", "name", "threshold", "discount", "validDays")


def parse_vouchers(body: bytes) -> list[dict[str, Any]]:
    """`{code, data: {list: [{couponId, name, threshold, discount, validDays, scope, userType}]}}`;
    threshold and discount are yuan."""
    page = load_json(body, "Tencent vouchers: the answer", exact=False)
    coupons = member(member(page, "data"), "list")
    if not isinstance(coupons, list):
        raise PageShapeError("Tencent vouchers: the answer has no data.list list")
    if page.get("code") != 0:
        raise PageShapeError(f"Tencent vouchers: the answer says code {page.get('code')!r}: {page.get('msg')}")
    missing = sum(1 for c in coupons if not isinstance(c, dict) or any(c.get(f) in (None, "") for f in _VOUCHER_FIELDS))
    if missing or not coupons:
        raise PageShapeError(f"Tencent vouchers: {missing}/{len(coupons)} coupons lack one of {_VOUCHER_FIELDS}")
    if any(not isinstance(c.get(f), (str, type(None))) for c in coupons for f in ("scope", "userType")):
        raise PageShapeError("Tencent vouchers: a coupon's scope or userType is not text")
    return [
        {
            "id": c["couponId"],
            "title": c["name"],
            "text": " ".join(filter(None, (c.get("scope"), c.get("userType")))),
            "kind": "voucher",
            "amount": c["discount"],
            "min_spend": c["threshold"],
            "currency": "CNY",
            "duration_days": c["validDays"],
        }
        for c in coupons
    ]


def parse_free_area(page: Selector) -> list[dict[str, Any]]:
    return cards(
        page,
        ".free-product[data-product-id]",
        id_attr="data-product-id",
        title_css=".product-name",
        body_css=".product-desc, .product-tag",
        what="Tencent free area",
    )


class TencentOffersSpider(OfferSpider):
    name = "tencent-offers"
    provider = "tencent"
    currency = "CNY"
    offer_pages = (
        OfferPage(VOUCHERS_URL, parse_vouchers, json=True, headers={"Referer": REFERER}),
        OfferPage(FREE_AREA_URL, parse_free_area),
    )
