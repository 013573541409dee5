"""Oracle Cloud Infrastructure: the public price list of Oracle's cost
estimator (`cetools`), which needs no key, in one currency (USD unless
`[providers.oci] currency` says otherwise). OCI's list prices are the same
in every commercial region: the crawl's regions only say where to store them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from scrapy.http import Response

from spiders.base import ProviderSpider
from spiders.har import with_query
from spiders.oci.pages import parse_products

API_URL = "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/"


class OciSpider(ProviderSpider):
    name = "oci"
    provider = "oci"
    default_regions = ("us-ashburn-1", "eu-frankfurt-1")

    def __init__(self, api_url: str = API_URL, currency: str = "USD", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_url = api_url
        self.currency = currency.upper()

    async def start(self) -> Any:
        yield self.request(with_query(self.api_url, urlencode({"currencyCode": self.currency})), self.parse)

    def parse(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        products, updated, following = parse_products(response.body)
        yield from self.items(
            response, "oci.product", products, regions=self.regions, currency=self.currency, last_updated=updated
        )
        if following:
            yield self.request(response.urljoin(following), self.parse)
