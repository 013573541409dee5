"""RunPod: the GraphQL API's GPU catalog (prices per GPU-hour, data centres,
the community cloud's countries), then the stock of every GPU type per place
and GPU count (1, 2, 4, 8): per data centre for the secure cloud (`runpod`,
list prices), per country for the community cloud (`runpod-community`, a
marketplace). The price fields need no key; `[providers.runpod] api_key` is
sent as the `api_key` parameter, as RunPod's SDK sends it, when set."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from typing import Any, ClassVar
from urllib.parse import urlencode

import scrapy
from scrapy.http import Response

from spiders.base import ProviderSpider, SourceFailure
from spiders.crawling.middlewares import SECRET_PARAMS_SETTING
from spiders.har import with_query
from spiders.runpod.pages import parse_catalog, parse_stock

API_URL = "https://api.runpod.io/graphql"
COUNTS = (1, 2, 4, 8)
CATALOG = (
    "query GpuTypes { countryCodes dataCenters { id name listed } gpuTypes { id displayName memoryInGb "
    "secureCloud communityCloud securePrice secureSpotPrice communityPrice communitySpotPrice maxGpuCount } }"
)
STOCK = (
    "query GpuStock($lowestPriceInput: GpuLowestPriceInput) { gpuTypes { id "
    "lowestPrice(input: $lowestPriceInput) { stockStatus uninterruptablePrice minimumBidPrice } } }"
)


def graphql_body(query: str, variables: dict[str, Any] | None = None) -> bytes:
    """A request body written one way, so that a replay finds its answer."""
    return json.dumps({"query": query, "variables": variables or {}}, sort_keys=True, separators=(",", ":")).encode()


def stock_variables(secure: bool, place: str, gpu_count: int) -> dict[str, Any]:
    where = {"dataCenterId": place} if secure else {"countryCode": place}
    return {"lowestPriceInput": {"gpuCount": gpu_count, "secureCloud": secure, **where}}


class RunpodSpider(ProviderSpider):
    """The secure cloud: RunPod's list prices, with stock per data centre."""

    name = "runpod"
    provider = "runpod"
    secure: ClassVar[bool] = True
    custom_settings: dict[str, Any] | None = {SECRET_PARAMS_SETTING: ["api_key"], "REFERER_ENABLED": False}  # noqa: RUF012 (scrapy.Spider declares it per instance)

    def __init__(self, api_key: str = "", api_url: str = API_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_key = api_key
        self.api_url = api_url

    @property
    def url(self) -> str:
        return with_query(self.api_url, urlencode({"api_key": self.api_key})) if self.api_key else self.api_url

    def places(self) -> list[str]:
        """The data centres to ask (the regions; none: every listed one)."""
        return self.regions

    def post(self, body: bytes, callback: Any, **kwargs: Any) -> scrapy.Request:
        return self.request(
            self.url,
            callback,
            method="POST",
            body=body,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
            dont_filter=True,
            **kwargs,
        )

    async def start(self) -> AsyncIterator[Any]:
        yield self.post(graphql_body(CATALOG), self.parse_catalog)

    def parse_catalog(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        types, centres, countries = parse_catalog(response.body)
        yield from self.items(response, "runpod.gpu_type", types, regions=self.places())
        places = centres if self.secure else countries
        wanted = self.places()
        missing = sorted(set(wanted) - set(places))
        if missing:
            raise SourceFailure(f"{self.name}: RunPod lists no {', '.join(missing)}; it lists {', '.join(places)}")
        for place in [p for p in places if p in wanted] if wanted else places:
            for count in COUNTS:
                body = graphql_body(STOCK, stock_variables(self.secure, place, count))
                yield self.post(body, self.parse_stock, cb_kwargs={"place": place, "count": count})

    def parse_stock(self, response: Response, place: str, count: int) -> Iterable[Any]:
        self.fetched(response)
        yield from self.items(response, "runpod.stock", parse_stock(response.body, place, count), regions=self.regions)


class RunpodCommunitySpider(RunpodSpider):
    """The community cloud: hosts' GPUs, the lowest price and stock per country."""

    name = "runpod-community"
    secure = False

    def __init__(self, countries: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.countries = [c.strip().upper() for c in countries.split(",") if c.strip()]

    def places(self) -> list[str]:
        """The countries to ask: `[providers.runpod] countries`, or the regions
        that are country codes (the secure cloud's data centres are not);
        none: every country RunPod lists."""
        return self.countries or [r for r in self.regions if len(r) == 2 and r.isalpha() and r.isupper()]
