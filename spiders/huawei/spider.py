"""Huawei Cloud: the price calculator's backend. `menuInfo` first, for the
regions the calculator prices ECS in, then `productInfo` per region.

Without configured regions every region menuInfo lists is crawled; a
configured region the calculator does not list fails the run, naming it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import scrapy
from scrapy.http import Response

from spiders.base import ProviderSpider, SourceFailure
from spiders.huawei.pages import parse_menu, parse_product_info

API_PATH = "api/calculator/rest/cbc/portalcalculatornodeservice/v4/api"


@dataclass(frozen=True)
class Site:
    api_url: str
    referer: str
    language: str
    currency: str


def menu_url(api_url: str, language: str) -> str:
    return f"{api_url}/menuInfo?" + urlencode({"sign": "common", "language": language})


def product_url(api_url: str, region: str) -> str:
    query = {"urlPath": "ecs", "tag": "general.online.portal", "region": region, "tab": "calc", "sign": "common"}
    return f"{api_url}/productInfo?" + urlencode(query)


SITES = {
    "cn": Site(
        f"https://portal.huaweicloud.com/{API_PATH}",
        "https://www.huaweicloud.com/pricing/calculator.html",
        "zh-cn",
        "CNY",
    ),
    "intl": Site(
        f"https://portal-intl.huaweicloud.com/{API_PATH}",
        "https://www.huaweicloud.com/intl/en-us/pricing/calculator.html",
        "en-us",
        "USD",
    ),
}
ORIGIN = "https://www.huaweicloud.com"


class HuaweiSpider(ProviderSpider):
    name = "huawei"
    provider = "huawei"

    def __init__(self, site: str = "cn", api_url: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.site = SITES[site]
        self.api_url = (api_url or self.site.api_url).rstrip("/")

    def get(self, url: str, callback: Any, **kwargs: Any) -> scrapy.Request:
        headers = {"Accept": "application/json", "Origin": ORIGIN, "Referer": self.site.referer}
        return self.request(url, callback, headers=headers, **kwargs)

    async def start(self) -> Any:
        yield self.get(menu_url(self.api_url, self.site.language), self.parse_menu)

    def parse_menu(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        offered = parse_menu(response.body)
        unknown = [r for r in self.regions if r not in offered]
        if unknown:
            raise SourceFailure(
                f"Huawei: the calculator does not price ECS in {', '.join(unknown)} (it does in {', '.join(offered)})"
            )
        self.regions = self.regions or offered
        for region in self.regions:
            yield self.get(product_url(self.api_url, region), self.parse_region, cb_kwargs={"region": region})

    def parse_region(self, response: Response, region: str) -> Iterable[Any]:
        self.fetched(response)
        flavors = parse_product_info(response.body)
        yield from self.items(response, "huawei.ecs_flavor", flavors, region=region, currency=self.site.currency)
