"""Volcano Engine's spot interruption rates (source `volcengine-spot-advice`):
ECS 2020-04-01 `DescribeSpotAdvice` (a GET at the regional endpoint, as
volcenginesdkecs sends it), per region, for the GPU types
`DescribeInstanceTypes` lists, asked by `InstanceTypeIds.N` (1 to 10 a call,
as the API reference allows) and paged by `NextToken`. Signed and sent as
`volcengine-api` does (spiders/volcengine/api.py): the same AccessKey pair.

The answer's `Result` (SDK model DescribeSpotAdviceResponse):
`AvailableSpotResources[]{ZoneId, InstanceType, InterruptionRate,
InterruptionRateRange, AverageSpotDiscount}`, `NextToken`: "the past 30
days" release rate in percent and as a range, and the average discount
rate. Every field is optional in the model: what lacks one is kept as it is
and left to the normalizer (tracker/normalize/providers/china_spot.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.http import Response

from spiders.api import ApiCall
from spiders.pages import name, objects
from spiders.volcengine.api import VolcengineApiSpider, serialized
from spiders.volcengine.api_pages import parse_instance_types, result

# The API reference: InstanceTypeIds.N, N from 1 to 10.
TYPES_PER_CALL = 10
PAGE_SIZE = 100


def flat(params: dict[str, Any]) -> dict[str, Any]:
    """A request as the SDK puts a GET on the wire: lists as `Name.1`, `Name.2`."""
    from volcenginesdkcore.flatten import Flatten

    return dict(Flatten(params).flat())


def parse_spot_advice(data: Any) -> tuple[list[dict[str, Any]], str]:
    """One record per zone and instance type as the answer gives them, and the next page's token."""
    found = result(data, "DescribeSpotAdvice")
    out = [
        {
            "zone": resource.get("ZoneId"),
            "instance_type": resource.get("InstanceType"),
            "interruption": resource.get("InterruptionRateRange"),
            "interruption_rate": resource.get("InterruptionRate"),
            "discount_percent": resource.get("AverageSpotDiscount"),
        }
        for resource in objects(found, "AvailableSpotResources")
    ]
    token = found.get("NextToken") or ""
    return out, name(token, "volcengine-spot-advice: NextToken") if token else ""


class VolcengineSpotAdviceSpider(VolcengineApiSpider):
    name = "volcengine-spot-advice"
    sdk_module = "volcenginesdkecs"

    def spot_call(self, region: str, types: list[str], token: str = "") -> ApiCall:
        from volcenginesdkecs.models import DescribeSpotAdviceRequest

        request = DescribeSpotAdviceRequest(instance_type_ids=types, max_results=PAGE_SIZE, next_token=token or None)
        return ApiCall(
            "DescribeSpotAdvice", region, flat(serialized(request)), self.parse_spot, context={"types": types}
        )

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
        records, token = parse_spot_advice(data)
        yield from self.items(response, "volcengine.spot_advice", records, region=call.region)
        if token:
            yield self.send(self.spot_call(call.region, list(call.context["types"]), token))
