"""Alibaba Cloud through the ECS API (2014-05-26): `DescribeInstanceTypes`
for the GPU types, `DescribeAvailableResource` per region for stock (pay as
you go, spot, subscription), and `DescribePrice` per region and GPU type for
pay as you go, spot, one month, one year and three years.

Requests are built by alibabacloud-ecs20140526's own client (its request
models and parameter names) and signed ACS3-HMAC-SHA256 with the SDK's
signer, the signature and its nonce in headers, so a capture matches on the
query alone."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar
from urllib.parse import quote, urlencode

from scrapy.http import Response

from spiders.alibaba.api_pages import api_error, parse_instance_types, parse_price, parse_stock
from spiders.alibaba.items import ApiType
from spiders.api import ApiCall, ApiError, Signed, SignedApiSpider

TYPES_ENDPOINT = "ecs.aliyuncs.com"
# (variant, DescribePrice parameters)
PRICES: dict[str, dict[str, Any]] = {
    "on_demand": {"price_unit": "Hour", "spot_strategy": "NoSpot"},
    "spot": {"price_unit": "Hour", "spot_strategy": "SpotAsPriceGo"},
    "1mo": {"price_unit": "Month", "period": 1},
    "1yr": {"price_unit": "Year", "period": 1},
    "3yr": {"price_unit": "Year", "period": 3},
}
# (charge type, spot strategy) of each stock question, and the variants it answers for.
STOCK: dict[tuple[str, str], tuple[str, ...]] = {
    ("PostPaid", "NoSpot"): ("on_demand",),
    ("PostPaid", "SpotAsPriceGo"): ("spot",),
    ("PrePaid", "NoSpot"): ("1mo", "1yr", "3yr"),
}


def _client(access_key_id: str, access_key_secret: str, endpoint: str) -> Any:
    """The SDK's ECS client, keeping the request it would send instead of sending it."""
    from alibabacloud_ecs20140526.client import Client
    from alibabacloud_tea_openapi import utils_models

    class Built(Client):
        def call_api(self, params: Any, request: Any, runtime: Any) -> dict[str, Any]:
            self.built = (params, request)
            return {"body": {}, "headers": {}, "statusCode": 200}

    return Built(
        utils_models.Config(access_key_id=access_key_id, access_key_secret=access_key_secret, endpoint=endpoint)
    )


def query_of(action: str, **fields: Any) -> dict[str, str]:
    """The query the SDK builds for `action` from its request model's fields."""
    from alibabacloud_ecs20140526 import models

    client = _client("-", "-", TYPES_ENDPOINT)
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in action).lstrip("_")
    request = getattr(models, f"{action}Request")(**fields)
    getattr(client, snake)(request)
    return dict(client.built[1].query)


class AlibabaApiSpider(SignedApiSpider):
    name = "alibaba-api"
    provider = "alibaba"
    sdk_module = "alibabacloud_ecs20140526"
    default_regions = ("cn-hangzhou", "cn-beijing", "cn-shanghai")
    auth_codes: ClassVar[tuple[str, ...]] = (
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "IncompleteSignature",
        "Forbidden",
        "InvalidAccessKeySecret",
    )
    retry_codes: ClassVar[tuple[str, ...]] = ("Throttling", "ServiceUnavailable")
    # DescribePrice's documented errors for the one type asked: no price now
    # (HTTP 400), the type withdrawn or short of supply (HTTP 403).
    item_codes: ClassVar[tuple[str, ...]] = ("PriceNotFound", "InstanceType.Offline")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.gpu_types: dict[str, ApiType] = {}

    def start_calls(self) -> Iterable[ApiCall]:
        yield self.types_call("")

    def types_call(self, token: str) -> ApiCall:
        fields: dict[str, Any] = {"minimum_gpuamount": 1, "max_results": 1600}
        if token:
            fields["next_token"] = token
        return ApiCall("DescribeInstanceTypes", "global", query_of("DescribeInstanceTypes", **fields), self.parse_types)

    def stock_call(self, region: str, charge: str, spot: str) -> ApiCall:
        query = query_of(
            "DescribeAvailableResource",
            region_id=region,
            destination_resource="InstanceType",
            io_optimized="optimized",  # the API reference recommends it with InstanceType
            instance_charge_type=charge,
            spot_strategy=spot,
        )
        return ApiCall(
            "DescribeAvailableResource", region, query, self.parse_stock, context={"variants": STOCK[charge, spot]}
        )

    def price_call(self, region: str, instance_type: str, variant: str) -> ApiCall:
        query = query_of(
            "DescribePrice",
            region_id=region,
            resource_type="instance",
            instance_type=instance_type,
            instance_network_type="vpc",
            **PRICES[variant],
        )
        return ApiCall(
            "DescribePrice",
            region,
            query,
            self.parse_price,
            context={"item": {"instance_type": instance_type, "variant": variant}},
        )

    def sign(self, call: ApiCall) -> Signed:
        from alibabacloud_tea_openapi.utils import Utils
        from darabonba.request import DaraRequest

        host = TYPES_ENDPOINT if call.region == "global" else f"ecs.{call.region}.aliyuncs.com"
        request = DaraRequest()
        request.method, request.pathname, request.query = "POST", "/", dict(call.params)
        payload = Utils.hash(b"", "ACS3-HMAC-SHA256").hex()
        request.headers = {
            "host": host,
            "x-acs-version": "2014-05-26",
            "x-acs-action": call.action,
            "x-acs-date": Utils.get_timestamp(),
            "x-acs-signature-nonce": Utils.get_nonce(),
            "accept": "application/json",
            "x-acs-content-sha256": payload,
        }
        key_id, secret = self.keys()
        headers = dict(request.headers)
        headers["Authorization"] = Utils.get_authorization(request, "ACS3-HMAC-SHA256", payload, key_id, secret)
        url = f"https://{host}/?{urlencode(sorted(request.query.items()), quote_via=quote)}"
        return Signed("POST", url, headers)

    def error_of(self, status: int, data: Any) -> ApiError | None:
        found = api_error(status, data)
        return ApiError(*found) if found else None

    def parse_types(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        types, token = parse_instance_types(data)
        self.gpu_types.update((t["instance_type"], t) for t in types)
        yield from self.items(response, "alibaba.api.type", types)
        if token:
            yield self.send(self.types_call(token))
            return
        for region in self.regions:
            for charge, spot in STOCK:
                yield self.send(self.stock_call(region, charge, spot))

    def parse_stock(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        stock = [s for s in parse_stock(data) if s["instance_type"] in self.gpu_types]
        variants = call.context["variants"]
        yield from self.items(response, "alibaba.api.stock", stock, region=call.region, variants=list(variants))
        for instance_type in sorted({s["instance_type"] for s in stock}):
            for variant in variants:
                yield self.send(self.price_call(call.region, instance_type, variant))

    def parse_price(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        record = {**parse_price(data), **call.context["item"]}
        yield from self.items(response, "alibaba.api.price", [record], region=call.region)
