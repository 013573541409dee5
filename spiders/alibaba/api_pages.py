"""Alibaba Cloud ECS API 2014-05-26 answers (the SDK models in
alibabacloud_ecs20140526/models.py): `DescribeInstanceTypes`
(`InstanceTypes.InstanceType[]`, `NextToken`), `DescribeAvailableResource`
(`AvailableZones.AvailableZone[].AvailableResources.AvailableResource[].
SupportedResources.SupportedResource[]`), `DescribePrice` (`PriceInfo.Price`).
An error is `{Code, Message, RequestId, ...}` with an HTTP 4xx/5xx status.

Where the API reference and the SDK model name a thing differently, both
are read: DescribePrice's price lines are `DetailInfos.DetailInfo[]` with
Resource `instanceType` in the SDK model and `DetailInfos.ResourcePriceModel[]`
with Resource `instance` in the reference; DescribeAvailableResource's
Type and Status are `InstanceType`/`Available`/`SoldOut` in the model and
in lower-camel case (`instanceType`, `available`) in older reference pages.
"""

from __future__ import annotations

from typing import Any

from spiders.alibaba.items import ApiPrice, ApiStock, ApiType
from spiders.pages import PageShapeError, count, member, name, objects

# Status (any case) -> availability; StatusCategory when Status says nothing we know.
STOCK = {"available": "available", "soldout": "sold_out"}
STOCK_CATEGORY = {"withstock": "available", "withoutstock": "sold_out", "closedwithstock": "limited"}
# DescribePrice line containers: the SDK model's name, then the API reference's.
PRICE_LINES = ("DetailInfo", "ResourcePriceModel")
# The Resource of the instance's own line: `instanceType` (SDK), `instance` (reference).
INSTANCE_LINES = {"instancetype", "instance"}


def api_error(status: int, data: Any) -> tuple[str, str] | None:
    code = member(data, "Code")
    if code and (status >= 400 or "PriceInfo" not in data):
        return str(code), str(member(data, "Message") or "")
    return None


def parse_instance_types(data: Any) -> tuple[list[ApiType], str]:
    """GPU instance types (GPUAmount > 0) with what we read, and the next page's token."""
    if not isinstance(member(data, "InstanceTypes"), dict):
        raise PageShapeError("alibaba-api: the DescribeInstanceTypes answer has no InstanceTypes object")
    types: list[ApiType] = []
    for t in objects(data, "InstanceTypes", "InstanceType"):
        type_id = name(t.get("InstanceTypeId"), "alibaba-api: an InstanceTypeId")
        if count(t.get("GPUAmount"), f"alibaba-api: GPUAmount of {type_id}") > 0:
            types.append(
                {
                    "instance_type": type_id,
                    "family": t.get("InstanceTypeFamily"),
                    "gpu_model": t.get("GPUSpec") if isinstance(t.get("GPUSpec"), str) else None,
                    "gpu_count": t.get("GPUAmount"),
                    "gpu_memory_gb": t.get("GPUMemorySize"),
                    "vcpu": t.get("CpuCoreCount"),
                    "memory_gb": t.get("MemorySize"),
                }
            )
    token = data.get("NextToken") or ""
    return types, name(token, "alibaba-api: NextToken") if token else ""


def _stock_of(supported: dict[str, Any]) -> str | None:
    status = str(supported.get("Status") or "").lower()
    if status in STOCK:
        return STOCK[status]
    return STOCK_CATEGORY.get(str(supported.get("StatusCategory") or "").lower())


def parse_stock(data: Any) -> list[ApiStock]:
    """(zone, instance type, availability) of every instance type the answer
    lists; a status we do not know is kept raw, with no availability."""
    if not isinstance(member(data, "AvailableZones"), dict):
        raise PageShapeError("alibaba-api: the DescribeAvailableResource answer has no AvailableZones object")
    out: list[ApiStock] = []
    for zone in objects(data, "AvailableZones", "AvailableZone"):
        for resource in objects(zone, "AvailableResources", "AvailableResource"):
            if str(resource.get("Type") or "").lower() != "instancetype":
                continue
            for supported in objects(resource, "SupportedResources", "SupportedResource"):
                record: ApiStock = {
                    "zone": name(zone.get("ZoneId"), "alibaba-api: a ZoneId"),
                    "instance_type": name(supported.get("Value"), "alibaba-api: a SupportedResource Value"),
                    "availability": _stock_of(supported),
                }
                if record["availability"] is None:
                    record["status"] = f"{supported.get('Status')!s}/{supported.get('StatusCategory')!s}"
                out.append(record)
    return out


def parse_price(data: Any) -> ApiPrice:
    """The instance's own price: its line of `DetailInfos` (under either
    container name) when there is one. `basis` says what was read: `instance`
    (its line), `total` (no price lines at all: the order total, which may
    count an image or disks) or `unknown` (lines, none of them the
    instance's; `resources` names them) — a total is never taken for the
    instance's price without saying so."""
    price = member(member(data, "PriceInfo"), "Price")
    if not isinstance(price, dict) or price.get("TradePrice") is None:
        raise PageShapeError("alibaba-api: the DescribePrice answer has no PriceInfo.Price.TradePrice")
    lines = [line for container in PRICE_LINES for line in objects(price, "DetailInfos", container)]
    mine = [d for d in lines if str(d.get("Resource") or "").lower() in INSTANCE_LINES]
    source = mine[0] if mine else price
    found: ApiPrice = {
        "price": source.get("TradePrice"),
        "list_price": source.get("OriginalPrice"),
        "currency": price.get("Currency") or "CNY",
        "basis": "instance" if mine else ("unknown" if lines else "total"),
    }
    if lines and not mine:
        found["resources"] = sorted({str(d.get("Resource")) for d in lines})
    return found
