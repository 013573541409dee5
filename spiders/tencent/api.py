"""Tencent Cloud through the CVM API (2017-03-12): `DescribeZoneInstanceConfigInfos`
per region and charge type, signed TC3-HMAC-SHA256 by tencentcloud-sdk-python.

Each region is asked at its own endpoint (cvm.<region>.tencentcloudapi.com),
so a capture tells regions apart by URL; the charge type is in the body."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, ClassVar

from scrapy.http import Response

from spiders.api import ApiCall, ApiError, Signed, SignedApiSpider
from spiders.tencent.api_pages import api_error, parse_quota_set

CHARGE_TYPES = ("POSTPAID_BY_HOUR", "SPOTPAID", "PREPAID")
ACTION = "DescribeZoneInstanceConfigInfos"


class TencentApiSpider(SignedApiSpider):
    name = "tencent-api"
    provider = "tencent"
    sdk_module = "tencentcloud.cvm"
    default_regions = ("ap-guangzhou", "ap-shanghai", "ap-beijing")
    auth_codes: ClassVar[tuple[str, ...]] = ("AuthFailure", "UnauthorizedOperation")
    retry_codes: ClassVar[tuple[str, ...]] = ("RequestLimitExceeded",)

    def start_calls(self) -> Iterable[ApiCall]:
        from tencentcloud.cvm.v20170312 import models

        for region in self.regions:
            for charge_type in CHARGE_TYPES:
                request = models.DescribeZoneInstanceConfigInfosRequest()
                request.from_json_string(
                    json.dumps({"Filters": [{"Name": "instance-charge-type", "Values": [charge_type]}]})
                )
                yield ApiCall(ACTION, region, json.loads(request.to_json_string()), self.parse_quota)

    def sign(self, call: ApiCall) -> Signed:
        from tencentcloud.common.credential import Credential
        from tencentcloud.common.http.request import RequestInternal
        from tencentcloud.common.profile.client_profile import ClientProfile
        from tencentcloud.common.profile.http_profile import HttpProfile
        from tencentcloud.cvm.v20170312.cvm_client import CvmClient

        endpoint = f"cvm.{call.region}.tencentcloudapi.com"
        profile = ClientProfile(httpProfile=HttpProfile(endpoint=endpoint))
        client = CvmClient(Credential(*self.keys()), call.region, profile)
        request = RequestInternal(endpoint, "POST", "/")
        client._build_req_inter(call.action, dict(call.params), request)
        return Signed("POST", f"https://{endpoint}/", dict(request.header), request.data.encode("utf-8"))

    def error_of(self, status: int, data: Any) -> ApiError | None:
        found = api_error(data)
        return ApiError(*found) if found else None

    def parse_quota(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        yield from self.items(response, "tencent.api", parse_quota_set(data), region=call.region, currency="CNY")
