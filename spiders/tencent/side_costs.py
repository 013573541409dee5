"""Tencent Cloud side costs (source `tencent-side-costs`), through the APIs
and the AccessKey of `tencent-api`, signed TC3-HMAC-SHA256 by
tencentcloud-sdk-python:

- internet egress: CVM `InquiryPriceRunInstances` of one pay-as-you-go
  instance whose public traffic is billed by the GB
  (`InternetAccessible.InternetChargeType` TRAFFIC_POSTPAID_BY_HOUR), in the
  region's first available zone (CVM `DescribeZones`): the answer's
  `Price.BandwidthPrice` is a price per GB (`ChargeUnit` GB);
- disks: CBS `InquiryPriceCreateDisks` of one pay-as-you-go disk of
  `DISK_GB` GiB of each of `DISK_TYPES`: `DiskPrice` is that disk's price an
  hour (`ChargeUnit` HOUR), which the normalizer turns into a price per
  GB-month (tracker/normalize/side_costs/tencent.py).

Each region is asked at its own endpoints (cvm.<region>.tencentcloudapi.com,
cbs.<region>.tencentcloudapi.com), so a capture tells regions apart by URL."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable
from typing import Any, ClassVar

from scrapy.http import Response

from spiders.api import ApiCall, ApiError, Signed, SignedApiSpider
from spiders.pages import PageShapeError, member
from spiders.tencent.api_pages import api_error

# action -> (service, its client's module and class)
SERVICES = {
    "DescribeZones": ("cvm", "tencentcloud.cvm.v20170312.cvm_client", "CvmClient"),
    "InquiryPriceRunInstances": ("cvm", "tencentcloud.cvm.v20170312.cvm_client", "CvmClient"),
    "InquiryPriceCreateDisks": ("cbs", "tencentcloud.cbs.v20170312.cbs_client", "CbsClient"),
}
# The disk types of InquiryPriceCreateDisksRequest.DiskType the SDK documents
# (premium cloud disk, SSD, enhanced SSD), priced at one size.
DISK_TYPES = ("CLOUD_PREMIUM", "CLOUD_SSD", "CLOUD_HSSD")
DISK_GB = 100
# The public image of the API reference's InquiryPriceRunInstances examples
# (an inquiry needs one; the bandwidth price does not depend on it).
IMAGE_ID = "img-pmqg1cw7"
BANDWIDTH_OUT_MBPS = 10


def request_of(action: str, fields: dict[str, Any]) -> dict[str, Any]:
    """`fields` through the SDK's own request model, as it puts them on the wire."""
    service = SERVICES[action][0]
    models = importlib.import_module(f"tencentcloud.{service}.v20170312.models")
    request = getattr(models, f"{action}Request")()
    request.from_json_string(json.dumps(fields))
    return dict(json.loads(request.to_json_string()))


class TencentSideCostsSpider(SignedApiSpider):
    name = "tencent-side-costs"
    provider = "tencent"
    sdk_module = "tencentcloud.cbs"
    default_regions = ("ap-guangzhou", "ap-shanghai", "ap-beijing")
    auth_codes: ClassVar[tuple[str, ...]] = ("AuthFailure", "UnauthorizedOperation")
    retry_codes: ClassVar[tuple[str, ...]] = ("RequestLimitExceeded",)

    def start_calls(self) -> Iterable[ApiCall]:
        for region in self.regions:
            yield ApiCall("DescribeZones", region, {}, self.parse_zones)
            for disk_type in DISK_TYPES:
                yield self.disk_call(region, disk_type)

    def disk_call(self, region: str, disk_type: str) -> ApiCall:
        fields = {"DiskType": disk_type, "DiskSize": DISK_GB, "DiskCount": 1, "DiskChargeType": "POSTPAID_BY_HOUR"}
        return ApiCall(
            "InquiryPriceCreateDisks",
            region,
            request_of("InquiryPriceCreateDisks", fields),
            self.parse_disk,
            context={"disk_type": disk_type, "disk_gb": DISK_GB},
        )

    def bandwidth_call(self, region: str, zone: str) -> ApiCall:
        fields = {
            "Placement": {"Zone": zone},
            "ImageId": IMAGE_ID,
            "InstanceChargeType": "POSTPAID_BY_HOUR",
            "InternetAccessible": {
                "InternetChargeType": "TRAFFIC_POSTPAID_BY_HOUR",
                "InternetMaxBandwidthOut": BANDWIDTH_OUT_MBPS,
                "PublicIpAssigned": True,
            },
        }
        return ApiCall(
            "InquiryPriceRunInstances",
            region,
            request_of("InquiryPriceRunInstances", fields),
            self.parse_bandwidth,
            context={"zone": zone},
        )

    def sign(self, call: ApiCall) -> Signed:
        from tencentcloud.common.credential import Credential
        from tencentcloud.common.http.request import RequestInternal
        from tencentcloud.common.profile.client_profile import ClientProfile
        from tencentcloud.common.profile.http_profile import HttpProfile

        service, module, client_class = SERVICES[call.action]
        endpoint = f"{service}.{call.region}.tencentcloudapi.com"
        profile = ClientProfile(httpProfile=HttpProfile(endpoint=endpoint))
        client = getattr(importlib.import_module(module), client_class)(Credential(*self.keys()), call.region, profile)
        request = RequestInternal(endpoint, "POST", "/")
        client._build_req_inter(call.action, dict(call.params), request)
        return Signed("POST", f"https://{endpoint}/", dict(request.header), request.data.encode("utf-8"))

    def error_of(self, status: int, data: Any) -> ApiError | None:
        found = api_error(data)
        return ApiError(*found) if found else None

    def parse_zones(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        zones = member(member(data, "Response"), "ZoneSet")
        if not isinstance(zones, list):
            raise PageShapeError("tencent-side-costs: the DescribeZones answer has no Response.ZoneSet list")
        open_zones = sorted(
            str(z["Zone"]) for z in zones if isinstance(z, dict) and z.get("Zone") and z.get("ZoneState") == "AVAILABLE"
        )
        if not open_zones:
            self.notes.append(f"tencent-side-costs: no available zone in {call.region}; its egress is not priced")
            return
        yield self.send(self.bandwidth_call(call.region, open_zones[0]))

    def parse_bandwidth(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        price = member(member(member(data, "Response"), "Price"), "BandwidthPrice")
        if not isinstance(price, dict):
            raise PageShapeError("tencent-side-costs: the InquiryPriceRunInstances answer has no Price.BandwidthPrice")
        record = {**price, "zone": call.context["zone"]}
        yield from self.items(response, "tencent.side_bandwidth", [record], region=call.region, currency="CNY")

    def parse_disk(self, response: Response, data: Any, call: ApiCall) -> Iterable[Any]:
        price = member(member(data, "Response"), "DiskPrice")
        if not isinstance(price, dict):
            raise PageShapeError("tencent-side-costs: the InquiryPriceCreateDisks answer has no Response.DiskPrice")
        record = {**price, "disk_type": call.context["disk_type"], "disk_gb": call.context["disk_gb"]}
        yield from self.items(response, "tencent.side_disk", [record], region=call.region, currency="CNY")
