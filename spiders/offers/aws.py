"""AWS: the Free plan credits, from the JSON directory the aws.amazon.com/free
page loads, and AWS Activate, whose credits page is rendered by JavaScript."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from parsel import Selector
from scrapy.http import Response

from spiders.offers import OfferSpider
from spiders.pages import PageShapeError
from spiders.pages.offer_cards import cards

FREE_PLAN_URL = ("https://aws.amazon.com/api/dirs/items/search?item.directoryId=free-tier-products"
                 "&sort_by=item.additionalFields.SortRank&sort_order=asc&size=50&item.locale=en_US")
ACTIVATE_URL = "https://aws.amazon.com/startups/credits"


def parse_free_plan(body: bytes) -> list[dict[str, Any]]:
    """`{metadata, items: [{item: {id, name, additionalFields: {title, body, ...}}}]}`."""
    try:
        page = json.loads(body)
        items = page["items"]
    except (ValueError, KeyError, TypeError):
        raise PageShapeError("AWS free plan: the directory answer has no items list") from None
    records = []
    for entry in items:
        item = entry.get("item") or {}
        fields = item.get("additionalFields") or {}
        if not item.get("name") or not fields.get("title"):
            raise PageShapeError(f"AWS free plan: an item lacks name or title: {str(item)[:120]}")
        records.append({"id": item["name"], "title": fields["title"], "text": fields.get("body", ""),
                        "url": fields.get("ctaLink", "")})
    if not records:
        raise PageShapeError("AWS free plan: the directory lists no offers")
    return records


def parse_activate(page: Selector) -> list[dict[str, Any]]:
    return cards(page, "[data-program]", id_attr="data-program", title_css=".program-name",
                 body_css=".program-credit, .program-detail", what="AWS Activate")


class AwsOffersSpider(OfferSpider):
    name = "aws-offers"
    provider = "aws"
    currency = "USD"
    uses_browser = True

    async def start(self) -> Any:
        yield self.request(FREE_PLAN_URL, self.parse_free_plan)
        yield self.browser_request(ACTIVATE_URL, self.parse_activate, wait_for="[data-program] .program-credit")

    def parse_free_plan(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        yield from self.offer_items(response, parse_free_plan(response.body))

    def parse_activate(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        yield from self.offer_items(response, parse_activate(response.selector))
