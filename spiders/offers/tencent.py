"""Tencent Cloud: the new-user vouchers, from the JSON the activity page
loads, and the free experience area (cloud.tencent.com/act/free)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from parsel import Selector
from scrapy.http import Response

from spiders.offers import OfferSpider
from spiders.pages import PageShapeError
from spiders.pages.offer_cards import cards

FREE_AREA_URL = "https://cloud.tencent.com/act/free"
VOUCHERS_URL = "https://cloud.tencent.com/act/api/newuser/coupons?scene=cvm&lang=zh"
_VOUCHER_FIELDS = ("couponId", "name", "threshold", "discount", "validDays")


def parse_vouchers(body: bytes) -> list[dict[str, Any]]:
    """`{code, data: {list: [{couponId, name, threshold, discount, validDays, scope, userType}]}}`;
    threshold and discount are yuan."""
    try:
        page = json.loads(body)
        coupons = page["data"]["list"]
    except (ValueError, KeyError, TypeError):
        raise PageShapeError("Tencent vouchers: the answer has no data.list") from None
    if page.get("code") != 0:
        raise PageShapeError(f"Tencent vouchers: the answer says code {page.get('code')!r}: {page.get('msg')}")
    missing = sum(1 for c in coupons if any(c.get(f) in (None, "") for f in _VOUCHER_FIELDS))
    if missing or not coupons:
        raise PageShapeError(f"Tencent vouchers: {missing}/{len(coupons)} coupons lack one of {_VOUCHER_FIELDS}")
    return [{"id": c["couponId"], "title": c["name"], "text": " ".join(filter(None, (c.get("scope"), c.get("userType")))),
             "kind": "voucher", "amount": c["discount"], "min_spend": c["threshold"], "currency": "CNY",
             "duration_days": c["validDays"]} for c in coupons]


def parse_free_area(page: Selector) -> list[dict[str, Any]]:
    return cards(page, ".free-product[data-product-id]", id_attr="data-product-id", title_css=".product-name",
                 body_css=".product-desc, .product-tag", what="Tencent free area")


class TencentOffersSpider(OfferSpider):
    name = "tencent-offers"
    provider = "tencent"
    currency = "CNY"

    async def start(self) -> Any:
        yield self.request(VOUCHERS_URL, self.parse_vouchers, headers={"Referer": "https://cloud.tencent.com/act/new"})
        yield self.request(FREE_AREA_URL, self.parse_free_area)

    def parse_vouchers(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        yield from self.offer_items(response, parse_vouchers(response.body))

    def parse_free_area(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        yield from self.offer_items(response, parse_free_area(response.selector))
