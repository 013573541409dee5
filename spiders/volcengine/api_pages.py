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

from spiders.pages import PageShapeError, count, member, name, objects
from spiders.volcengine.items import ApiPrice, ApiStock, ApiType

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


def parse_instance_types(data: Any) -> tuple[list[ApiType], str]:
    """GPU instance types (with GpuDevices), and the next page's token."""
    found = result(data, "DescribeInstanceTypes")
    out: list[ApiType] = []
    for t in objects(found, "InstanceTypes"):
        type_id = name(t.get("InstanceTypeId"), "volcengine-api: an InstanceTypeId")
        devices = objects(member(t, "Gpu"), "GpuDevices")
        if not devices:
            continue
        models = {name(d.get("ProductName"), f"volcengine-api: a GPU ProductName of {type_id}") for d in devices}
        if len(models) != 1:
            raise PageShapeError(f"volcengine-api: {type_id} has GPUs of several models")
        cards = sum(count(d.get("Count"), f"volcengine-api: a GPU Count of {type_id}") for d in devices)
        per_card = count(member(devices[0].get("Memory"), "Size"), f"volcengine-api: GPU Memory.Size of {type_id}")
        out.append(
            {
                "instance_type": type_id,
                "family": t.get("InstanceTypeFamily"),
                "gpu_model": models.pop(),
                "gpu_count": str(cards),
                # Memory.Size is MiB, as for the machine's memory.
                "gpu_memory_mib": str(per_card * cards) if per_card else None,
                "vcpu": member(t.get("Processor"), "Cpus"),
                "memory_mib": member(t.get("Memory"), "Size"),
            }
        )
    token = found.get("NextToken") or ""
    return out, name(token, "volcengine-api: NextToken") if token else ""


def parse_stock(data: Any) -> list[ApiStock]:
    out: list[ApiStock] = []
    for zone in objects(result(data, "DescribeAvailableResource"), "AvailableZones"):
        for resource in objects(zone, "AvailableResources"):
            if resource.get("Type") != "InstanceType":
                continue
            for supported in objects(resource, "SupportedResources"):
                status = supported.get("Status")
                if not isinstance(status, str) or status not in STOCK:
                    raise PageShapeError(f"volcengine-api: a SupportedResource has status {status!r}")
                out.append(
                    {
                        "zone": name(zone.get("ZoneId"), "volcengine-api: a ZoneId"),
                        "instance_type": name(supported.get("Value"), "volcengine-api: a SupportedResource Value"),
                        "availability": STOCK[status],
                    }
                )
    return out


def parse_prices(data: Any, action: str) -> list[ApiPrice]:
    found = result(data, action)
    out: list[ApiPrice] = []
    for line in objects(found, "ConfigList"):
        if line.get("Price") in (None, ""):
            raise PageShapeError(f"volcengine-api: a {action} line has no Price")
        out.append(
            {
                "configuration_code": name(
                    line.get("ConfigurationCode"), f"volcengine-api: a {action} ConfigurationCode"
                ),
                "price": line["Price"],
                "original": line.get("OriginalAmount"),
                "currency": found.get("Currency") or "CNY",
            }
        )
    return out
