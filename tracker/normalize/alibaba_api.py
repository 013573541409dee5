"""What the ECS API answers mean (alibaba-api).

- `DescribeInstanceTypes` gives the GPU model (`GPUSpec`, "NVIDIA A10"),
  count and memory per type; the spec table fills what it leaves out.
- `DescribePrice` gives one price per region, type and variant: per hour for
  pay as you go and spot, per month (1mo), per year (1yr) and for the whole
  three years (3yr). `TradePrice` is paid, `OriginalPrice` the list price.
- `DescribeAvailableResource` says, per zone, whether a type is Available or
  SoldOut for that way of paying: each price is stored once per zone that
  lists the type, with that zone's availability; a type no zone lists keeps
  one regional row with no availability.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from db.schema import PriceModel, Unit
from tracker.normalize import Normalized, NormalizeError, zone_quotes
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

VARIANTS: dict[str, tuple[PriceModel, str, Unit]] = {
    "on_demand": (PriceModel.on_demand, "", Unit.hour),
    "spot": (PriceModel.spot, "", Unit.hour),
    "1mo": (PriceModel.monthly, "1mo", Unit.month),
    "1yr": (PriceModel.yearly, "1yr", Unit.year),
    "3yr": (PriceModel.yearly, "3yr", Unit.term),
}
VENDOR = re.compile(r"^(NVIDIA|AMD)\s+", re.IGNORECASE)


def _gpu_fields(instance_type: str, record: dict[str, Any] | None) -> dict[str, Any]:
    """Counts from the API; the GPU's name and memory from the spec table when
    it knows the type (its names are the ones every provider shares), else the
    API's `GPUSpec` without the vendor and `GPUMemorySize` (per card) x count."""
    spec = lookup("alibaba", instance_type)
    fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
    if not record:
        return fields
    for name in ("gpu_count", "vcpu", "memory_gb"):
        if record.get(name) not in (None, "", 0):
            fields[name] = to_decimal(record[name], what=name)
    if not fields.get("gpu_model") and record.get("gpu_model"):
        fields["gpu_model"] = VENDOR.sub("", str(record["gpu_model"])).strip()
    if fields.get("gpu_memory_gb") is None and record.get("gpu_memory_gb") and fields.get("gpu_count"):
        fields["gpu_memory_gb"] = to_decimal(record["gpu_memory_gb"], what="GPUMemorySize") * fields["gpu_count"]
    return fields


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    types: dict[str, dict[str, Any]] = {}
    stock: dict[tuple[str, str, str], list[tuple[str, str]]] = defaultdict(list)
    prices: list[dict[str, Any]] = []
    for item in items:
        data, kind = item.get("data"), item.get("kind")
        if not isinstance(data, dict):
            raise NormalizeError("alibaba-api: an item has no data record")
        if kind == "alibaba.api.type":
            types[str(data["instance_type"])] = data
        elif kind == "alibaba.api.stock":
            for variant in item.get("variants") or ():
                stock[item["region"], str(data["instance_type"]), variant].append((data["zone"], data["availability"]))
        elif kind == "alibaba.api.price":
            prices.append(item)
        else:
            raise NormalizeError(f"alibaba-api: unknown item kind {kind!r}")
    unknown: set[str] = set()
    for item in prices:
        data, region = item["data"], str(item["region"])
        instance_type, variant = str(data["instance_type"]), str(data["variant"])
        if variant not in VARIANTS:
            raise NormalizeError(f"alibaba-api: unknown price variant {variant!r}")
        model, term, unit = VARIANTS[variant]
        try:
            price = to_decimal(data["price"], what="TradePrice")
            listed = (
                to_decimal(data["list_price"], what="OriginalPrice") if data.get("list_price") is not None else None
            )
            fields = _gpu_fields(instance_type, types.get(instance_type))
        except MoneyError as exc:
            raise NormalizeError(f"alibaba-api: {exc} for {instance_type} in {region}") from None
        if price <= 0:
            out.notes.append(f"alibaba-api: {instance_type} ({variant}) in {region} is priced {price}; skipped")
            continue
        if fields.get("gpu_model") is None:
            unknown.add(instance_type)
        out.quotes.extend(
            zone_quotes(
                "alibaba",
                stock.get((region, instance_type, variant)) or [("", None)],
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
    out.notes.extend(f"alibaba-api: no GPU model for {t}; stored without one" for t in sorted(unknown))
    return out
