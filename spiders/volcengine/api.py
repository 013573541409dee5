"""Volcano Engine through its OpenAPI: ECS (2020-04-01) `DescribeInstanceTypes`
for the GPU devices, `DescribeAvailableResource` per region for stock, and
billing (2022-01-01) `QueryPriceForPayAsYouGo` and `QueryPriceForSubscription`
per region for the GPU types it lists.

Requests carry the SDK's request models, serialized as the SDK does, and are
signed with volcenginesdkcore's SignerV4 (the signature in headers). ECS is
asked at the SDK's regional endpoint (ecs.<region>.volcengineapi.com), so
captures tell regions apart; billing is global, its body names the region."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, ClassVar
from urllib.parse import quote, urlencode

from scrapy.http import Response

from spiders.api import ApiCall, ApiError, Signed, SignedApiSpider
from spiders.volcengine.api_pages import api_error, parse_instance_types, parse_prices, parse_stock
from spiders.volcengine.items import ApiType

ECS_VERSION, BILLING_VERSION = "2020-04-01", "2022-01-01"
BILLING_HOST = "billing.volcengineapi.com"
BILLING_REGION = "cn-beijing"
# variant -> (action, months of use)
PRICES = {
    "on_demand": ("QueryPriceForPayAsYouGo", 1),
    "1mo": ("QueryPriceForSubscription", 1),
    "1yr": ("QueryPriceForSubscription", 12),
}


def serialized(model: Any) -> Any:
    """A request model as the SDK puts it on the wire (its JSON names)."""
    from volcenginesdkcore.interceptor.interceptors.build_request_interceptor import sanitize_for_serialization

    return sanitize_for_serialization(model)


def charge_item_code(instance_type: str, region: str) -> str:
    """`ecs.gni2.3xlarge` in cn-beijing -> `ecs.gni2_3xlarge_cn-beijing`, the
    form public clients read from the price page's ChargeItemCode."""
    head, _, rest = instance_type.partition(".")
    return f"{head}.{rest.replace('.', '_')}_{region}"


class VolcengineApiSpider(SignedApiSpider):
    name = "volcengine-api"
    provider = "volcengine"
    sdk_module = "volcenginesdkbilling"
    default_regions = ("cn-beijing", "cn-shanghai", "cn-guangzhou")
    auth_codes: ClassVar[tuple[str, ...]] = (
        "InvalidAccessKey",
        "SignatureDoesNotMatch",
        "InvalidCredential",
        "AccessDenied",
        "InvalidAuthorization",
    )
    retry_codes: ClassVar[tuple[str, ...]] = ("RequestLimitExceeded", "AccountFlowLimitExceeded", "FlowLimitExceeded")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.gpu_types: dict[str, ApiType] = {}

    def start_calls(self) -> Iterable[ApiCall]:
        yield self.types_call("")

    def types_call(self, token: str) -> ApiCall:
        from volcenginesdkecs.models import DescribeInstanceTypesRequest

        request = DescribeInstanceTypesRequest(max_results=100, next_token=token or None)
        return ApiCall("DescribeInstanceTypes", self.regions[0], serialized(request), self.parse_types)

    def stock_call(self, region: str) -> ApiCall:
        from volcenginesdkecs.models import DescribeAvailableResourceRequest

        request = DescribeAvailableResourceRequest(destination_resource="InstanceType", instance_charge_type="PostPaid")
        return ApiCall("DescribeAvailableResource", region, serialized(request), self.parse_stock)

    def price_call(self, region: str, types: list[str], variant: str) -> ApiCall:
        from volcenginesdkbilling import models

        action, months = PRICES[variant]
        if action == "QueryPriceForPayAsYouGo":
            lines: list[Any] = [
                models.ConfigListForQueryPriceForPayAsYouGoInput(
                    configuration_code=t, charge_item_code=charge_item_code(t, region), quantity=1, use_duration=1
                )
                for t in types
            ]
            request: Any = models.QueryPriceForPayAsYouGoRequest(product="ECS", config_list=lines)
        else:
            lines = [
                models.ConfigListForQueryPriceForSubscriptionInput(
                    configuration_code=t, charge_item_code=charge_item_code(t, region), quantity=1, use_duration=months
                )
                for t in types
            ]
            request = models.QueryPriceForSubscriptionRequest(product="ECS", config_list=lines)
        return ApiCall(action, region, serialized(request), self.parse_prices, context={"variant": variant})

    def sign(self, call: ApiCall) -> Signed:
        from volcenginesdkcore.endpoint.providers.standard_provider import StandardEndpointResolver
        from volcenginesdkcore.signv4 import SignerV4

        key_id, secret = self.keys()
        if call.action.startswith("QueryPriceFor"):
            version, service, host, region = BILLING_VERSION, "billing", BILLING_HOST, BILLING_REGION
            query = [("Action", call.action), ("Version", version)]
            body = json.dumps(call.params)
            headers = {"Content-Type": "application/json"}
            method = "POST"
        else:
            version, service, region = ECS_VERSION, "ecs", call.region
            host = StandardEndpointResolver().endpoint_for("ecs", region).host
            query = [
                *sorted((k, str(v)) for k, v in call.params.items()),
                ("Action", call.action),
                ("Version", version),
            ]
            body, headers, method = "", {"Content-Type": "text/plain"}, "GET"
        headers["Host"] = host
        SignerV4.sign("/", method, headers, body, None, query, key_id, secret, region, service)
        url = f"https://{host}/?{urlencode(query, quote_via=quote)}"
        return Signed(method, url, headers, body.encode("utf-8") if body else None)

    def error_of(self, status: int, data: Any) -> ApiError | None:
        found = api_error(data)
        return ApiError(*found) if found else None

    def parse_types(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        types, token = parse_instance_types(data)
        self.gpu_types.update((t["instance_type"], t) for t in types)
        yield from self.items(response, "volcengine.api.type", types)
        if token:
            yield self.send(self.types_call(token))
            return
        for region in self.regions:
            yield self.send(self.stock_call(region))

    def parse_stock(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        stock = [s for s in parse_stock(data) if s["instance_type"] in self.gpu_types]
        yield from self.items(response, "volcengine.api.stock", stock, region=call.region)
        types = sorted({s["instance_type"] for s in stock})
        if types:
            for variant in PRICES:
                yield self.send(self.price_call(call.region, types, variant))

    def parse_prices(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        lines = parse_prices(data, call.action)
        asked = {line["ConfigurationCode"] for line in call.params["ConfigList"]}
        got = {line["configuration_code"] for line in lines}
        if not got & asked:
            # An answer that prices none of what was asked is broken as a whole.
            from spiders.base import SourceFailure

            raise SourceFailure(f"volcengine-api: {call.action} in {call.region} priced none of {len(asked)} types")
        variant = call.context["variant"]
        yield from self.items(response, "volcengine.api.price", lines, region=call.region, variant=variant)
        # A type the answer leaves out is that type's problem: recorded, the rest stored.
        missing = [{"instance_type": t, "variant": variant} for t in sorted(asked - got)]
        yield from self.items(response, "volcengine.api.unpriced", missing, region=call.region, action=call.action)
