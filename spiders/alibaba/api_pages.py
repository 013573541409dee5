"""Alibaba Cloud ECS API 2014-05-26 answers (the SDK models in
alibabacloud_ecs20140526/models.py): `DescribeInstanceTypes`
(`InstanceTypes.InstanceType[]`, `NextToken`), `DescribeAvailableResource`
(`AvailableZones.AvailableZone[].AvailableResources.AvailableResource[].
SupportedResources.SupportedResource[]`), `DescribePrice` (`PriceInfo.Price`).
An error is `{Code, Message, RequestId, ...}` with an HTTP 4xx/5xx status."""

from __future__ import annotations

from typing import Any

from spiders.pages import PageShapeError, count, member, name, objects

STOCK = {"Available": "available", "SoldOut": "sold_out"}


def api_error(status: int, data: Any) -> tuple[str, str] | None:
    code = member(data, "Code")
    if code and (status >= 400 or "PriceInfo" not in data):
        return str(code), str(member(data, "Message") or "")
    return None


def parse_instance_types(data: Any) -> tuple[list[dict[str, Any]], str]:
    """GPU instance types (GPUAmount > 0) with what we read, and the next page's token."""
    if not isinstance(member(data, "InstanceTypes"), dict):
        raise PageShapeError("alibaba-api: the DescribeInstanceTypes answer has no InstanceTypes object")
    types = []
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


def parse_stock(data: Any) -> list[dict[str, Any]]:
    """(zone, instance type, status) of every instance type the answer lists."""
    if not isinstance(member(data, "AvailableZones"), dict):
        raise PageShapeError("alibaba-api: the DescribeAvailableResource answer has no AvailableZones object")
    out = []
    for zone in objects(data, "AvailableZones", "AvailableZone"):
        for resource in objects(zone, "AvailableResources", "AvailableResource"):
            if resource.get("Type") != "InstanceType":
                continue
            for supported in objects(resource, "SupportedResources", "SupportedResource"):
                status = supported.get("Status")
                if not isinstance(status, str) or status not in STOCK:
                    raise PageShapeError(f"alibaba-api: a SupportedResource has status {status!r}")
                out.append(
                    {
                        "zone": name(zone.get("ZoneId"), "alibaba-api: a ZoneId"),
                        "instance_type": name(supported.get("Value"), "alibaba-api: a SupportedResource Value"),
                        "availability": STOCK[status],
                    }
                )
    return out


def parse_price(data: Any) -> dict[str, Any]:
    """The instance's own price: the `instanceType` line of DetailInfos when
    there is one (the total also counts the system disk), else the total."""
    price = member(member(data, "PriceInfo"), "Price")
    if not isinstance(price, dict) or price.get("TradePrice") is None:
        raise PageShapeError("alibaba-api: the DescribePrice answer has no PriceInfo.Price.TradePrice")
    lines = [d for d in objects(price, "DetailInfos", "DetailInfo") if d.get("Resource") == "instanceType"]
    source = lines[0] if lines else price
    return {
        "price": source.get("TradePrice"),
        "list_price": source.get("OriginalPrice"),
        "currency": price.get("Currency") or "CNY",
        "whole": not lines,
    }
