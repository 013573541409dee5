"""Azure side costs (source `azure-side-costs`) from the Retail Prices API,
the API the `azure` source reads: per region three filtered queries,
followed through NextPageLink to the end.

- Bandwidth: internet egress ("Standard Data Transfer Out", tiered by
  tierMinimumUnits in GB a month) and inter-region transfer ("Standard
  Inter-Region Data Transfer"), product "Rtn Preference: MGN";
- Managed disks: Premium SSD and Standard SSD, priced per disk tier (P30,
  E30 ...) a month, not per GB;
- IP addresses: a Standard static public IPv4 per hour."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from scrapy.http import Response

from spiders.azure.spider import API_URL, API_VERSION
from spiders.base import ProviderSpider
from spiders.pages import PageShapeError, json_page

QUERIES = {
    "bandwidth": "serviceName eq 'Bandwidth' and productName eq 'Rtn Preference: MGN'",
    "disks": "serviceName eq 'Storage' and (productName eq 'Premium SSD Managed Disks'"
    " or productName eq 'Standard SSD Managed Disks')",
    "ip": "serviceName eq 'Virtual Network' and productName eq 'IP Addresses'",
}


def query_url(what: str, region: str, api_url: str = API_URL) -> str:
    query = f"{QUERIES[what]} and armRegionName eq '{region}'"
    return f"{api_url}?api-version={API_VERSION}&$filter={quote(query, safe='')}"


def parse_side_page(body: bytes) -> tuple[list[dict[str, Any]], str | None]:
    """Every meter on one page (the query chose them), and the next page's link."""
    page = json_page(body, "Azure", "Items")
    items = [i for i in page["Items"] if isinstance(i, dict)]
    missing = sum(1 for i in items if "retailPrice" not in i or "meterName" not in i)
    if missing:
        raise PageShapeError(f"Azure: retailPrice or meterName missing in {missing}/{len(items)} items")
    next_link = page.get("NextPageLink") or None
    if next_link is not None and not (isinstance(next_link, str) and next_link.startswith(("https://", "http://"))):
        raise PageShapeError(f"Azure: NextPageLink is not a link: {str(next_link)[:80]!r}")
    return items, next_link


class AzureSideCostsSpider(ProviderSpider):
    name = "azure-side-costs"
    provider = "azure"
    default_regions = ("eastus", "westeurope")

    def __init__(self, api_url: str = API_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_url = api_url

    async def start(self) -> Any:
        for region in self.regions:
            for what in QUERIES:
                yield self.request(query_url(what, region, self.api_url), self.parse, cb_kwargs={"region": region})

    def parse(self, response: Response, region: str) -> Iterable[Any]:
        self.fetched(response)
        items, next_link = parse_side_page(response.body)
        yield from self.items(response, "azure.side_meter", items, region=region)
        if next_link:
            yield self.request(next_link, self.parse, cb_kwargs={"region": region})
