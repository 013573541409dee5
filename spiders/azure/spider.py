"""Azure: the public Retail Prices API, one filtered query per region,
followed through NextPageLink to the end."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from scrapy.http import Response

from spiders.azure.pages import parse_retail_page
from spiders.base import ProviderSpider
from spiders.har import with_query

API_URL = "https://prices.azure.com/api/retail/prices"
API_VERSION = "2023-01-01-preview"


def region_url(region: str, api_url: str = API_URL) -> str:
    query = f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}'"
    return with_query(api_url, f"api-version={API_VERSION}&$filter={quote(query, safe='')}")


class AzureSpider(ProviderSpider):
    name = "azure"
    provider = "azure"
    default_regions = ("eastus", "westeurope")

    def __init__(self, api_url: str = API_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_url = api_url

    async def start(self) -> Any:
        for region in self.regions:
            yield self.request(region_url(region, self.api_url), self.parse, cb_kwargs={"region": region})

    def parse(self, response: Response, region: str) -> Iterable[Any]:
        self.fetched(response)
        items, next_link = parse_retail_page(response.body)
        yield from self.items(response, "azure.retail_item", items, region=region)
        if next_link:
            yield self.request(next_link, self.parse, cb_kwargs={"region": region})
