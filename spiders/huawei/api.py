"""Huawei Cloud through its official APIs: IAM `KeystoneListProjects` for the
region's project (as huaweicloudsdkcore does itself), ECS `ListFlavors` for
the GPU flavors and their per-zone sale state, and BSS
`ListOnDemandResourceRatings` (one hour) and `ListRateOnPeriodDetail` (one
month, one year) for their prices, each a batch of up to 100 flavors.

Requests are the SDK's request models (huaweicloudsdkecs, huaweicloudsdkbss),
serialized as the SDK does and signed SDK-HMAC-SHA256 by huaweicloudsdkcore's
Signer, the signature in headers."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, ClassVar

from scrapy.http import Response

from spiders.api import ApiCall, ApiError, Signed, SignedApiSpider
from spiders.huawei.api_pages import api_error, parse_flavors, parse_on_demand, parse_period, project_id

BSS_HOST = "bss.myhuaweicloud.com"
BATCH = 100
# variant -> (BSS action, period_type, period_num); period_type 2 is months, 3 years.
PRICES: dict[str, tuple[str, int, int]] = {
    "on_demand": ("ListOnDemandResourceRatings", 0, 0),
    "1mo": ("ListRateOnPeriodDetail", 2, 1),
    "1yr": ("ListRateOnPeriodDetail", 3, 1),
}
PATHS = {
    "ListOnDemandResourceRatings": "/v2/bills/ratings/on-demand-resources",
    "ListRateOnPeriodDetail": "/v2/bills/ratings/period-resources/subscribe-rate",
}


def _serialized(model: Any) -> Any:
    from huaweicloudsdkcore.utils.http_utils import sanitize_for_serialization

    return sanitize_for_serialization(model)


class HuaweiApiSpider(SignedApiSpider):
    name = "huawei-api"
    provider = "huawei"
    sdk_module = "huaweicloudsdkbss"
    default_regions = ("cn-north-4", "cn-east-3", "cn-south-1")
    auth_codes: ClassVar[tuple[str, ...]] = ("APIGW.0301", "APIGW.0302", "APIGW.0303", "APIGW.0305", "IAM.", "CBC.0151")
    retry_codes: ClassVar[tuple[str, ...]] = ("APIGW.0308",)

    def start_calls(self) -> Iterable[ApiCall]:
        for region in self.regions:
            yield self.project_call(region)

    def project_call(self, region: str) -> ApiCall:
        return ApiCall("KeystoneListProjects", region, {"name": region}, self.parse_project)

    def flavors_call(self, region: str, project: str) -> ApiCall:
        return ApiCall("ListFlavors", region, {}, self.parse_flavors, context={"project": project})

    def price_call(self, region: str, project: str, flavors: list[str], variant: str) -> ApiCall:
        from huaweicloudsdkbss.v2 import model

        action, period_type, period_num = PRICES[variant]
        common = {
            "cloud_service_type": "hws.service.type.ec2",
            "resource_type": "hws.resource.type.vm",
            "region": region,
            "subscription_num": 1,
        }
        if action == "ListOnDemandResourceRatings":
            infos: list[Any] = [
                model.DemandProductInfo(
                    id=str(n),
                    resource_spec=f"{f}.linux",
                    usage_factor="Duration",
                    usage_value=1,
                    usage_measure_id=4,  # hours
                    **common,
                )
                for n, f in enumerate(flavors)
            ]
            body: Any = model.RateOnDemandReq(project_id=project, product_infos=infos)
        else:
            infos = [
                model.PeriodProductInfo(
                    id=str(n), resource_spec=f"{f}.linux", period_type=period_type, period_num=period_num, **common
                )
                for n, f in enumerate(flavors)
            ]
            body = model.RateOnPeriodReq(project_id=project, product_infos=infos)
        return ApiCall(
            action, region, _serialized(body), self.parse_prices, context={"variant": variant, "flavors": flavors}
        )

    def sign(self, call: ApiCall) -> Signed:
        from huaweicloudsdkcore.auth.credentials import BasicCredentials
        from huaweicloudsdkcore.auth.internal import IamHelper
        from huaweicloudsdkcore.http.http_config import HttpConfig
        from huaweicloudsdkcore.sdk_request import SdkRequest
        from huaweicloudsdkcore.signer.signer import Signer
        from huaweicloudsdkecs.v2.region.ecs_region import EcsRegion

        if call.action == "KeystoneListProjects":
            request = IamHelper.get_keystone_list_projects_request(
                HttpConfig.get_default_config(), IamHelper.DEFAULT_ENDPOINT, call.region
            )
        elif call.action == "ListFlavors":
            host = EcsRegion.value_of(call.region).endpoint.removeprefix("https://")
            path = f"/v1/{call.context['project']}/cloudservers/flavors"
            request = SdkRequest("GET", "https", host, path, path, [], {}, "")
        else:
            body = json.dumps(call.params)
            headers = {"Content-Type": "application/json;charset=UTF-8"}
            request = SdkRequest("POST", "https", BSS_HOST, PATHS[call.action], PATHS[call.action], [], headers, body)
        Signer(BasicCredentials(*self.keys())).sign(request)
        headers = {k: str(v) for k, v in request.header_params.items()}
        url = f"https://{request.host}{request.uri}"
        body_bytes = request.body if isinstance(request.body, bytes) and request.body else None
        return Signed(request.method, url, headers, body_bytes)

    def error_of(self, status: int, data: Any) -> ApiError | None:
        found = api_error(status, data)
        return ApiError(*found) if found else None

    def parse_project(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        yield self.send(self.flavors_call(call.region, project_id(data, call.region)))

    def parse_flavors(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        flavors = parse_flavors(data)
        yield from self.items(response, "huawei.api.flavor", flavors, region=call.region)
        names = sorted(f["flavor"] for f in flavors)
        for start in range(0, len(names), BATCH):
            for variant in PRICES:
                yield self.send(
                    self.price_call(call.region, call.context["project"], names[start : start + BATCH], variant)
                )

    def parse_prices(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        variant, flavors = call.context["variant"], call.context["flavors"]
        rated = parse_on_demand(data) if variant == "on_demand" else parse_period(data)
        if not rated:
            from spiders.base import SourceFailure

            # An answer that prices none of the batch is broken as a whole.
            raise SourceFailure(f"huawei-api: {call.action} in {call.region} priced none of {len(flavors)} flavors")
        # A flavor the answer leaves out is that flavor's problem: recorded, the rest stored.
        missing = [{"flavor": f, "variant": variant} for n, f in enumerate(flavors) if str(n) not in rated]
        records = [{"flavor": f, "variant": variant, **rated[str(n)]} for n, f in enumerate(flavors) if str(n) in rated]
        yield from self.items(response, "huawei.api.price", records, region=call.region, currency="CNY")
        yield from self.items(response, "huawei.api.unpriced", missing, region=call.region, action=call.action)
