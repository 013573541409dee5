"""Alibaba Cloud side costs (source `alibaba-side-costs`), through ECS
`DescribePrice` with the AccessKey and the signing of `alibaba-api`:

- internet egress: `ResourceType=bandwidth` with
  `InternetChargeType=PayByTraffic`; the API reference says a bandwidth
  inquiry answers the pay-by-traffic price only, which is a price per GB;
- disks: `ResourceType=disk` with `DataDisk.1.Category`, `DataDisk.1.Size`
  (and `DataDisk.1.PerformanceLevel` for ESSD) and `PriceUnit=Hour`, the one
  price unit the reference allows for disks: the disk's price an hour, which
  the normalizer turns into a price per GB-month
  (tracker/normalize/side_costs/alibaba.py).

Each answer's `PriceInfo.Price` is read as `parse_line` says: the line of
`DetailInfos` that prices the resource asked (`bandwidth`, `dataDisk`),
else, with no lines at all, the order total, said so in `basis`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.http import Response

from spiders.alibaba.api import AlibabaApiSpider, query_of
from spiders.alibaba.api_pages import PRICE_LINES
from spiders.api import ApiCall
from spiders.pages import PageShapeError, member, objects

# (DataDisk.1.Category, DataDisk.1.PerformanceLevel) of the disks priced, at DISK_GB GiB.
DISKS = (("cloud_essd", "PL0"), ("cloud_essd", "PL1"))
DISK_GB = 100
BANDWIDTH_OUT_MBPS = 10
# The Resource of each inquiry's own line (any case).
LINES = {"bandwidth": {"bandwidth"}, "disk": {"datadisk", "disk"}}


def parse_line(data: Any, asked: str) -> dict[str, Any]:
    """The price of the resource asked: its `DetailInfos` line under either
    container name, else (no lines) the order total. `basis` says which:
    `line`, `total`, or `unknown` (lines, none the one asked; `resources`
    names them)."""
    price = member(member(data, "PriceInfo"), "Price")
    if not isinstance(price, dict) or price.get("TradePrice") is None:
        raise PageShapeError("alibaba-side-costs: the DescribePrice answer has no PriceInfo.Price.TradePrice")
    lines = [line for container in PRICE_LINES for line in objects(price, "DetailInfos", container)]
    mine = [d for d in lines if str(d.get("Resource") or "").lower() in LINES[asked]]
    source = mine[0] if mine else price
    found = {
        "price": source.get("TradePrice"),
        "list_price": source.get("OriginalPrice"),
        "currency": price.get("Currency") or "CNY",
        "basis": "line" if mine else ("unknown" if lines else "total"),
    }
    if lines and not mine:
        found["resources"] = sorted({str(d.get("Resource")) for d in lines})
    return found


class AlibabaSideCostsSpider(AlibabaApiSpider):
    name = "alibaba-side-costs"

    def start_calls(self) -> Iterable[ApiCall]:
        for region in self.regions:
            yield self.bandwidth_call(region)
            for category, level in DISKS:
                yield self.disk_call(region, category, level)

    def bandwidth_call(self, region: str) -> ApiCall:
        query = query_of(
            "DescribePrice",
            region_id=region,
            resource_type="bandwidth",
            internet_charge_type="PayByTraffic",
            internet_max_bandwidth_out=BANDWIDTH_OUT_MBPS,
        )
        return ApiCall("DescribePrice", region, query, self.parse_side, context={"item": {"asked": "bandwidth"}})

    def disk_call(self, region: str, category: str, level: str) -> ApiCall:
        from alibabacloud_ecs20140526 import models

        disk = models.DescribePriceRequestDataDisk(category=category, size=DISK_GB, performance_level=level or None)
        query = query_of("DescribePrice", region_id=region, resource_type="disk", price_unit="Hour", data_disk=[disk])
        item = {"asked": "disk", "category": category, "performance_level": level, "disk_gb": DISK_GB}
        return ApiCall("DescribePrice", region, query, self.parse_side, context={"item": item})

    def parse_side(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        asked = call.context["item"]
        record = {**parse_line(data, asked["asked"]), **asked}
        yield from self.items(response, "alibaba.side_price", [record], region=call.region)
