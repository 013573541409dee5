"""GCP side costs (source `gcp-side-costs`): the same Cloud Billing Catalog
of Compute Engine that the `gcp` source reads (same key, same pages), kept
to the SKUs of data sent and of disks, matched by their category, never by
their description (which changed from "Network Internet Egress ..." to
"Network Internet Data Transfer Out ..."): `SIDE_GROUPS`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.http import Response

from spiders.gcp.spider import GcpSpider
from spiders.pages import PageShapeError, json_page

# (resourceFamily, resourceGroup) -> the side cost it prices.
SIDE_GROUPS = {
    ("Network", "PremiumInternetEgress"): "internet_egress",
    ("Network", "InterregionEgress"): "inter_region",
    ("Network", "InterZoneEgress"): "inter_zone",
    ("Storage", "SSD"): "disk",
    ("Storage", "PDStandard"): "disk",
}


def side_group(sku: Any) -> str | None:
    category = sku.get("category") if isinstance(sku, dict) else None
    if not isinstance(category, dict) or category.get("usageType", "OnDemand") != "OnDemand":
        return None
    return SIDE_GROUPS.get((str(category.get("resourceFamily")), str(category.get("resourceGroup"))))


def parse_side_page(body: bytes) -> tuple[list[dict[str, Any]], str | None]:
    page = json_page(body, "GCP", "skus")
    token = page.get("nextPageToken", "")
    if not isinstance(token, str):
        raise PageShapeError(f"GCP: nextPageToken is {token!r}, not a string")
    skus = [s for s in page["skus"] if side_group(s)]
    missing = sum(1 for s in skus if not s.get("skuId") or not isinstance(s.get("pricingInfo"), list))
    if missing:
        raise PageShapeError(f"GCP: skuId or pricingInfo missing in {missing}/{len(skus)} SKUs")
    return skus, token or None


class GcpSideCostsSpider(GcpSpider):
    name = "gcp-side-costs"
    default_regions = ("us-central1", "us-east4", "europe-west4")

    def parse(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        skus, token = parse_side_page(response.body)
        yield from self.items(response, "gcp.side_sku", skus, regions=self.regions)
        if token:
            yield self.request(self.page_url(token), self.parse)
