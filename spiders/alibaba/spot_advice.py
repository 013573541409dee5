"""Alibaba Cloud's spot interruption rates (source `alibaba-spot-advice`):
ECS 2014-05-26 `DescribeSpotAdvice`, per region, for the GPU types
`DescribeInstanceTypes` lists (asked by `InstanceTypes.N`, at most 10 a
call, as the API reference allows). Signed and sent as `alibaba-api` does
(spiders/alibaba/api.py), so it needs the same AccessKey pair.

The answer (SDK model DescribeSpotAdviceResponseBody; the API reference's
example): `AvailableSpotZones.AvailableSpotZone[]{ZoneId,
AvailableSpotResources.AvailableSpotResource[]{InstanceType,
InterruptRateDesc, InterruptionRate, AverageSpotDiscount}}`, "the previous
30 days": the release rate as a range ("0-3%", "3-5%", "5-10%", "10-100%")
and in percent, and the average spot price as a percentage of the
pay-as-you-go price. Every field is optional in the model: what lacks one
is kept as it is and left to the normalizer (tracker/normalize/providers/
china_spot.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.http import Response

from spiders.alibaba.api import AlibabaApiSpider, query_of
from spiders.alibaba.api_pages import parse_instance_types
from spiders.api import ApiCall
from spiders.pages import PageShapeError, member, name, objects

# The API reference: "You can specify up to 10 instance types."
TYPES_PER_CALL = 10


def parse_spot_advice(data: Any) -> list[dict[str, Any]]:
    """One record per zone and instance type, the values as the answer gives them."""
    if not isinstance(member(data, "AvailableSpotZones"), dict):
        raise PageShapeError("alibaba-spot-advice: the DescribeSpotAdvice answer has no AvailableSpotZones object")
    out: list[dict[str, Any]] = []
    for zone in objects(data, "AvailableSpotZones", "AvailableSpotZone"):
        resources = objects(zone, "AvailableSpotResources", "AvailableSpotResource")
        if not resources:
            continue  # a zone with nothing to say (the older reference example has one)
        zone_id = name(zone.get("ZoneId"), "alibaba-spot-advice: a ZoneId")
        for resource in resources:
            out.append(
                {
                    "zone": zone_id,
                    "instance_type": resource.get("InstanceType"),
                    "interruption": resource.get("InterruptRateDesc"),
                    "interruption_rate": resource.get("InterruptionRate"),
                    "spot_price_percent": resource.get("AverageSpotDiscount"),
                }
            )
    return out


class AlibabaSpotAdviceSpider(AlibabaApiSpider):
    name = "alibaba-spot-advice"

    def spot_call(self, region: str, types: list[str]) -> ApiCall:
        query = query_of("DescribeSpotAdvice", region_id=region, instance_types=types)
        return ApiCall("DescribeSpotAdvice", region, query, self.parse_spot)

    def parse_types(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        types, token = parse_instance_types(data)
        self.gpu_types.update((t["instance_type"], t) for t in types)
        if token:
            yield self.send(self.types_call(token))
            return
        names = sorted(self.gpu_types)
        for region in self.regions:
            for start in range(0, len(names), TYPES_PER_CALL):
                yield self.send(self.spot_call(region, names[start : start + TYPES_PER_CALL]))

    def parse_spot(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        records = parse_spot_advice(data)
        yield from self.items(response, "alibaba.spot_advice", records, region=call.region)
