"""What the Volcano Engine OpenAPI answers mean (volcengine-api).

- ECS `DescribeInstanceTypes`: the GPU devices' model (`ProductName`,
  "NVIDIA A10") and count, memory in MiB; the spec table's GPU names win
  when it knows the type, so every provider names a card alike.
- billing `QueryPriceForPayAsYouGo` (one hour of use) is on demand per hour;
  `QueryPriceForSubscription` for 1 and 12 months of use is 1mo and 1yr.
  `Price` is paid, `OriginalAmount` the list price; amounts are strings.
- ECS `DescribeAvailableResource` (pay as you go) says per zone whether a
  type is Available or SoldOut: on-demand prices are stored once per zone
  with that availability; subscription prices once per region.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, Unit
from tracker.normalize import Normalized, NormalizeError, zone_quotes
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

VARIANTS = {
    "on_demand": (PriceModel.on_demand, "", Unit.hour),
    "1mo": (PriceModel.monthly, "1mo", Unit.month),
    "1yr": (PriceModel.yearly, "1yr", Unit.year),
}
VENDOR = re.compile(r"^(NVIDIA|AMD)\s+", re.IGNORECASE)
MIB = Decimal(1024)


def _fields(instance_type: str, record: dict[str, Any] | None) -> dict[str, Any]:
    spec = lookup("volcengine", instance_type)
    fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
    if not record:
        return fields
    if record.get("gpu_count"):
        fields["gpu_count"] = to_decimal(record["gpu_count"], what="GpuDevices.Count")
    if record.get("vcpu"):
        fields["vcpu"] = to_decimal(record["vcpu"], what="Processor.Cpus")
    if record.get("memory_mib"):
        fields["memory_gb"] = to_decimal(record["memory_mib"], what="Memory.Size") / MIB
    if not fields.get("gpu_model") and record.get("gpu_model"):
        fields["gpu_model"] = VENDOR.sub("", str(record["gpu_model"])).strip()
    if fields.get("gpu_memory_gb") is None and record.get("gpu_memory_mib"):
        fields["gpu_memory_gb"] = to_decimal(record["gpu_memory_mib"], what="GpuDevices.Memory.Size") / MIB
    return fields


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    types: dict[str, dict[str, Any]] = {}
    stock: dict[tuple[str, str], list[tuple[str, str | None]]] = defaultdict(list)
    prices: list[dict[str, Any]] = []
    for item in items:
        data, kind = item.get("data"), item.get("kind")
        if not isinstance(data, dict):
            raise NormalizeError("volcengine-api: an item has no data record")
        if kind == "volcengine.api.type":
            types[str(data["instance_type"])] = data
        elif kind == "volcengine.api.stock":
            stock[str(item["region"]), str(data["instance_type"])].append((data["zone"], data["availability"]))
        elif kind == "volcengine.api.price":
            prices.append(item)
        else:
            raise NormalizeError(f"volcengine-api: unknown item kind {kind!r}")
    unknown: set[str] = set()
    for item in prices:
        data, region, variant = item["data"], str(item["region"]), str(item.get("variant"))
        if variant not in VARIANTS:
            raise NormalizeError(f"volcengine-api: unknown price variant {variant!r}")
        instance_type = str(data["configuration_code"])
        model, term, unit = VARIANTS[variant]
        try:
            price = to_decimal(data["price"], what="Price")
            listed = to_decimal(data["original"], what="OriginalAmount") if data.get("original") else None
            fields = _fields(instance_type, types.get(instance_type))
        except MoneyError as exc:
            raise NormalizeError(f"volcengine-api: {exc} for {instance_type} in {region}") from None
        if price <= 0:
            out.notes.append(f"volcengine-api: {instance_type} ({variant}) in {region} is priced {price}; skipped")
            continue
        if fields.get("gpu_model") is None:
            unknown.add(instance_type)
        zones = stock.get((region, instance_type)) if variant == "on_demand" else None
        out.quotes.extend(
            zone_quotes(
                "volcengine",
                zones or [("", None)],
                item,
                list_price=listed,
                region=region,
                instance_type=instance_type,
                price_model=model,
                term=term,
                unit=unit,
                price=price,
                currency=str(data.get("currency") or "CNY"),
                **fields,
            )
        )
    out.notes.extend(f"volcengine-api: no GPU model for {t}; stored without one" for t in sorted(unknown))
    return out
