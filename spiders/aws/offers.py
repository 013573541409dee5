"""AWS: the Free Tier products from the JSON directory the aws.amazon.com/free
page loads, the Free Tier chapter of the Billing User Guide (the Free plan's
credits), and AWS Activate, whose credits page is rendered by JavaScript.

Evidence (docs/providers/aws.md): the directory URL, its parameters and its
field names (`item.id`, `additionalFields.serviceName`, `calloutLarge`,
`calloutSmall`, `frontDescription`, `backDescription`, `offerDetail`, tags
`free-tier-products#tier#...`) are those a public client reads
(jumping-dragon/freebies-analyzer, src/server/api/routers/aws.ts)."""

from __future__ import annotations

from parsel import Selector

from spiders.items import OfferRecord
from spiders.offers import OfferPage, OfferSpider, page_blocks
from spiders.pages import PageShapeError, load_json, member

FREE_TIER_URL = (
    "https://aws.amazon.com/api/dirs/items/search?item.directoryId=free-tier-products"
    "&sort_by=item.additionalFields.SortRank&sort_order=asc&size=50&item.locale=en_US"
)
GUIDE_URL = "https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/billing-free-tier.html"
ACTIVATE_URL = "https://aws.amazon.com/startups/credits"
_PREFIX = "free-tier-products#"
# The card's words, in the order the page shows them; backDescription is HTML.
_WORDS = ("calloutLarge", "calloutSmall", "frontDescription", "backDescription", "offerDetail")


def _words(value: object) -> str:
    if not isinstance(value, str):
        return ""
    return " ".join(t.strip() for t in Selector(text=f"<div>{value}</div>").xpath("//text()").getall() if t.strip())


def parse_free_tier(body: bytes) -> list[OfferRecord]:
    """`{metadata: {count, totalHits}, items: [{item: {id, name, additionalFields:
    {serviceName, calloutLarge, calloutSmall, frontDescription, backDescription,
    offerDetail, ...}}, tags: [{id, name}]}]}`: one record per card. A card
    without an id or a serviceName is skipped; most cards so is a changed shape."""
    page = load_json(body, "AWS Free Tier: the directory answer", exact=False)
    items = member(page, "items")
    if not isinstance(items, list) or not items:
        raise PageShapeError("AWS Free Tier: the directory answer has no items")
    records: list[OfferRecord] = []
    for entry in items:
        item = member(entry, "item")
        fields = member(item, "additionalFields")
        ident, name = member(item, "id"), member(fields, "serviceName")
        if not isinstance(ident, str) or not isinstance(name, str) or not ident or not name.strip():
            continue
        tags = member(entry, "tags")
        tiers = [
            str(member(t, "name") or str(member(t, "id")).rsplit("#", 1)[-1])
            for t in (tags if isinstance(tags, list) else [])
            if "#tier#" in str(member(t, "id"))
        ]
        words = [_words(fields.get(k)) for k in _WORDS] + tiers
        url = fields.get("frontCtaUrl")
        records.append(
            {
                "id": ident.removeprefix(_PREFIX),
                "title": name.strip(),
                "text": " ".join(w for w in words if w),
                "url": url if isinstance(url, str) else "",
            }
        )
    if len(records) * 2 < len(items):
        raise PageShapeError(
            f"AWS Free Tier: {len(items) - len(records)} of {len(items)} cards have no item.id or serviceName"
        )
    return records


def parse_guide(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="AWS Free Tier guide", prefix="guide", levels=(1, 2, 3), root="#main-col-body, main")


def parse_activate(page: Selector) -> list[OfferRecord]:
    return page_blocks(page, what="AWS Activate", levels=(2, 3))


class AwsOffersSpider(OfferSpider):
    name = "aws-offers"
    provider = "aws"
    currency = "USD"
    uses_browser = True
    offer_pages = (
        OfferPage(FREE_TIER_URL, parse_free_tier, json=True),
        OfferPage(GUIDE_URL, parse_guide),
        OfferPage(ACTIVATE_URL, parse_activate, wait_for="main h2"),
    )
