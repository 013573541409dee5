"""Tencent Cloud: the CVM purchase page's backend, `DescribeZoneInstanceConfigInfos`
through the workbench proxy, one POST per zone and charge type.

Zones come from the `zones` setting, else from a built-in list per region. A
region without known zones is asked once per charge type without a zone
filter: the answer then covers every zone of the region, each item naming its
own zone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import scrapy
from scrapy.http import Response

from spiders.base import ProviderSpider
from spiders.har import with_query
from spiders.tencent.pages import CHARGE_TYPES, parse_zone_configs

ACTION = "DescribeZoneInstanceConfigInfos"
API_VERSION = "2017-03-12"


@dataclass(frozen=True)
class Site:
    api_url: str
    origin: str
    currency: str


def action_url(api_url: str, region: str) -> str:
    return with_query(api_url, f"i=cvm/{ACTION}&uin=&region={region}")


SITES = {
    "cn": Site("https://workbench.cloud.tencent.com/cgi/api", "https://buy.cloud.tencent.com", "CNY"),
    "intl": Site("https://workbench.tencentcloud.com/cgi/api", "https://buy.tencentcloud.com", "USD"),
}

# The zones where Tencent sells GPU instances, per region, as its purchase
# page listed them; other regions are asked for whole (see zones_of).
DEFAULT_ZONES: dict[str, tuple[str, ...]] = {
    "ap-guangzhou": ("ap-guangzhou-6", "ap-guangzhou-7"),
    "ap-beijing": ("ap-beijing-3", "ap-beijing-6", "ap-beijing-7"),
    "ap-chengdu": ("ap-chengdu-1",),
    "ap-chongqing": ("ap-chongqing-1",),
    "ap-bangkok": ("ap-bangkok-2",),
}


def zone_region(zone: str) -> str:
    """'ap-guangzhou-6' -> 'ap-guangzhou'."""
    head, _, tail = zone.rpartition("-")
    return head if tail.isdigit() else zone


def request_body(region: str, charge_type: str, zone: str | None) -> dict[str, Any]:
    """The body the purchase page (and public clients of it) posts: the API
    version and platform in `data`, and the proxy's `cgiName`."""
    filters: list[dict[str, Any]] = [{"Name": "instance-charge-type", "Values": [charge_type]}]
    if zone:
        filters.append({"Name": "zone", "Values": [zone]})
    return {
        "serviceType": "cvm",
        "action": ACTION,
        "region": region,
        "data": {"Filters": filters, "Platform": "LINUX", "Version": API_VERSION},
        "cgiName": "api",
    }


class TencentSpider(ProviderSpider):
    name = "tencent"
    provider = "tencent"
    default_regions = ("ap-guangzhou", "ap-beijing")

    def __init__(self, zones: str = "", site: str = "cn", api_url: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.site = SITES[site]
        self.api_url = api_url or self.site.api_url
        self.zones = [z for z in zones.split(",") if z]

    def zones_of(self, region: str) -> list[str | None]:
        configured = [z for z in self.zones if zone_region(z) == region]
        if configured:
            return list(configured)
        known = DEFAULT_ZONES.get(region)
        if known:
            return list(known)
        self.notes.append(f"tencent: no zone list for {region}; asked for the whole region")
        return [None]

    async def start(self) -> Any:
        for region in self.regions:
            for zone in self.zones_of(region):
                for charge_type in CHARGE_TYPES:
                    yield self.post(region, charge_type, zone)

    def post(self, region: str, charge_type: str, zone: str | None) -> scrapy.Request:
        referer = f"{self.site.origin}/price/cvm"
        return self.request(
            action_url(self.api_url, region),
            self.parse,
            method="POST",
            body=json.dumps(request_body(region, charge_type, zone)),
            headers={"Content-Type": "application/json; charset=UTF-8", "Origin": self.site.origin, "Referer": referer},
            cb_kwargs={"region": region, "charge_type": charge_type},
            dont_filter=True,
        )

    def parse(self, response: Response, region: str, charge_type: str) -> Iterable[Any]:
        self.fetched(response)
        items = parse_zone_configs(response.body, self.notes)
        yield from self.items(
            response,
            "tencent.zone_instance",
            items,
            region=region,
            charge_type=charge_type,
            currency=self.site.currency,
        )
