"""Volcano Engine OpenAPI answers: `{"ResponseMetadata": {RequestId, Action,
Version, Service, Region, Error?: {Code, Message}}, "Result": {...}}`.
`Result` is the SDK model: ECS 2020-04-01 `DescribeInstanceTypesResponse`
(`InstanceTypes[].Gpu.GpuDevices[]{ProductName, Count, Memory.Size}`),
`DescribeAvailableResourceResponse` (`AvailableZones[].AvailableResources[].
SupportedResources[]{Value, Status}`); billing 2022-01-01
`QueryPriceForPayAsYouGoResponse` / `QueryPriceForSubscriptionResponse`
(`ConfigList[]{ConfigurationCode, Price, OriginalAmount, DiscountAmount}`,
`Currency`), amounts as decimal strings."""

from __future__ import annotations

from typing import Any

from spiders.pages import PageShapeError, member

STOCK = {"Available": "available", "SoldOut": "sold_out"}


def api_error(data: Any) -> tuple[str, str] | None:
    error = member(member(data, "ResponseMetadata"), "Error")
    if isinstance(error, dict) and error.get("Code"):
        return str(error["Code"]), str(error.get("Message") or "")
    return None


def result(data: Any, action: str) -> dict[str, Any]:
    found = member(data, "Result")
    if not isinstance(found, dict):
        raise PageShapeError(f"volcengine-api: the {action} answer has no Result object")
    return found


def parse_instance_types(data: Any) -> tuple[list[dict[str, Any]], str]:
    """GPU instance types (with GpuDevices), and the next page's token."""
    found = result(data, "DescribeInstanceTypes")
    out = []
    for t in found.get("InstanceTypes") or []:
        devices = member(member(t, "Gpu"), "GpuDevices") or []
        if not member(t, "InstanceTypeId"):
            raise PageShapeError("volcengine-api: an instance type has no InstanceTypeId")
        if not devices:
            continue
        if len({member(d, "ProductName") for d in devices}) != 1:
            raise PageShapeError(f"volcengine-api: {t['InstanceTypeId']} has GPUs of several models")
        count = sum(int(member(d, "Count") or 0) for d in devices)
        per_card = member(member(devices[0], "Memory"), "Size")
        out.append(
            {
                "instance_type": t["InstanceTypeId"],
                "family": t.get("InstanceTypeFamily"),
                "gpu_model": member(devices[0], "ProductName"),
                "gpu_count": count,
                # Memory.Size is MiB, as for the machine's memory.
                "gpu_memory_mib": per_card * count if per_card else None,
                "vcpu": member(member(t, "Processor"), "Cpus"),
                "memory_mib": member(member(t, "Memory"), "Size"),
            }
        )
    return out, str(found.get("NextToken") or "")


def parse_stock(data: Any) -> list[dict[str, Any]]:
    out = []
    for zone in result(data, "DescribeAvailableResource").get("AvailableZones") or []:
        for resource in member(zone, "AvailableResources") or []:
            if member(resource, "Type") != "InstanceType":
                continue
            for supported in member(resource, "SupportedResources") or []:
                status = member(supported, "Status")
                if status not in STOCK or not member(zone, "ZoneId"):
                    raise PageShapeError(
                        f"volcengine-api: a SupportedResource in {member(zone, 'ZoneId')} has status {status!r}"
                    )
                out.append(
                    {"zone": zone["ZoneId"], "instance_type": supported.get("Value"), "availability": STOCK[status]}
                )
    return out


def parse_prices(data: Any, action: str) -> list[dict[str, Any]]:
    found = result(data, action)
    out = []
    for line in found.get("ConfigList") or []:
        if member(line, "Price") in (None, "") or not member(line, "ConfigurationCode"):
            raise PageShapeError(f"volcengine-api: a {action} line has no ConfigurationCode or Price")
        out.append(
            {
                "configuration_code": line["ConfigurationCode"],
                "price": line["Price"],
                "original": line.get("OriginalAmount"),
                "currency": found.get("Currency") or "CNY",
            }
        )
    return out
