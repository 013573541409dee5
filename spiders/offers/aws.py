"""AWS: the Free plan credits, from the JSON directory the aws.amazon.com/free
page loads, and AWS Activate, whose credits page is rendered by JavaScript."""

from __future__ import annotations

import json
from typing import Any

from parsel import Selector

from spiders.offers import OfferPage, OfferSpider
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
    offer_pages = (OfferPage(FREE_PLAN_URL, parse_free_plan, json=True),
                   OfferPage(ACTIVATE_URL, parse_activate, wait_for="[data-program] .program-credit"))
