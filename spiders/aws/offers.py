"""AWS: the Free plan credits, from the JSON directory the aws.amazon.com/free
page loads, and AWS Activate, whose credits page is rendered by JavaScript."""

from __future__ import annotations

from typing import Any

from parsel import Selector

from spiders.offers import OfferPage, OfferSpider, cards
from spiders.pages import PageShapeError, load_json

FREE_PLAN_URL = (
    "https://aws.amazon.com/api/dirs/items/search?item.directoryId=free-tier-products"
    "&sort_by=item.additionalFields.SortRank&sort_order=asc&size=50&item.locale=en_US"
)
ACTIVATE_URL = "https://aws.amazon.com/startups/credits"


def parse_free_plan(body: bytes) -> list[dict[str, Any]]:
    """`{metadata, items: [{item: {id, name, additionalFields: {title, body, ...}}}]}`."""
    page = load_json(body, "AWS free plan: the directory answer", exact=False)
    items = page.get("items") if isinstance(page, dict) else None
    if not isinstance(items, list):
        raise PageShapeError("AWS free plan: the directory answer has no items list")
    records = []
    for entry in items:
        item = entry.get("item") if isinstance(entry, dict) else None
        if not isinstance(item, dict):
            raise PageShapeError(f"AWS free plan: an entry has no item object: {str(entry)[:120]}")
        fields = item.get("additionalFields") or {}
        if not isinstance(fields, dict):
            raise PageShapeError(f"AWS free plan: additionalFields is not an object: {str(item)[:120]}")
        if not item.get("name") or not fields.get("title"):
            raise PageShapeError(f"AWS free plan: an item lacks name or title: {str(item)[:120]}")
        # The spider joins `url` to the page's; every field is text.
        record = {
            "id": item["name"],
            "title": fields["title"],
            "text": fields.get("body", ""),
            "url": fields.get("ctaLink", ""),
        }
        odd = [k for k, v in record.items() if not isinstance(v, str)]
        if odd:
            raise PageShapeError(f"AWS free plan: {', '.join(odd)} of {str(item['name'])[:40]!r} is not text")
        records.append(record)
    if not records:
        raise PageShapeError("AWS free plan: the directory lists no offers")
    return records


def parse_activate(page: Selector) -> list[dict[str, Any]]:
    return cards(
        page,
        "[data-program]",
        id_attr="data-program",
        title_css=".program-name",
        body_css=".program-credit, .program-detail",
        what="AWS Activate",
    )


class AwsOffersSpider(OfferSpider):
    name = "aws-offers"
    provider = "aws"
    currency = "USD"
    uses_browser = True
    offer_pages = (
        OfferPage(FREE_PLAN_URL, parse_free_plan, json=True),
        OfferPage(ACTIVATE_URL, parse_activate, wait_for="[data-program] .program-credit"),
    )
