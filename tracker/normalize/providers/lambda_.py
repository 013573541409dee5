"""What the Lambda Cloud API's instance types mean.

- `price_cents_per_hour` is the on-demand price of the whole instance, in US
  cents per hour: stored in USD per hour (1592 -> 15.92). Lambda publishes
  one price per type, the same in every region.
- Stock: `regions_with_capacity_available` lists the regions that can launch
  the type now. Each type is stored once per region the crawl covers (the
  regions asked for, else every region `/regions` lists): `available` where
  it has capacity, `sold_out` elsewhere. A sold-out type keeps its price.
- vCPUs, memory (GiB, stored as memory_gb) and the GPU count come from the
  type's own `specs`; the GPU model and its memory from gpu_specs/lambda.csv.
  A type with no GPU (`specs.gpus` 0, the CPU instances) is not stored.
- One odd type (no price, a price that is not a whole number of cents, no
  specs) is skipped with a note; when every type is odd the answer changed
  shape and the run fails.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any, cast

from db.schema import PriceModel, Unit
from spiders.lambda_.items import LambdaInstanceType, LambdaItem, LambdaRegion, LambdaTypeItem
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.money import whole_number
from tracker.normalize.specs import lookup, no_count_notes

PROVIDER = "lambda"


def _odd(record: Any) -> str | None:
    """Why a type cannot be priced, or None when it can."""
    instance_type = record.get("instance_type") if isinstance(record, dict) else None
    if not isinstance(instance_type, dict):
        return "no instance_type object"
    if not isinstance(instance_type.get("name"), str) or not instance_type["name"]:
        return "no name"
    cents = whole_number(instance_type.get("price_cents_per_hour"))
    if cents is None or cents <= 0:
        return f"price_cents_per_hour is {instance_type.get('price_cents_per_hour')!r}"
    specs = instance_type.get("specs")
    if not isinstance(specs, dict) or whole_number(specs.get("gpus")) is None:
        return "no specs.gpus count"
    capacity = record.get("regions_with_capacity_available")
    if not isinstance(capacity, list) or not all(isinstance(r, dict) and r.get("name") for r in capacity):
        return "regions_with_capacity_available is not a list of regions"
    return None


def _fields(instance_type: LambdaInstanceType) -> dict[str, Any]:
    """The type's own figures, then the spec table's GPU model and memory."""
    specs = instance_type["specs"]
    spec = lookup(PROVIDER, instance_type["name"])
    fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
    count = Decimal(whole_number(specs["gpus"]) or 0)
    if spec and spec.gpu_count and spec.gpu_memory_gb is not None and count != spec.gpu_count:
        fields["gpu_memory_gb"] = spec.gpu_memory_gb / spec.gpu_count * count
    fields["gpu_count"] = count
    for name, key in (("vcpu", "vcpus"), ("memory_gb", "memory_gib")):
        value = whole_number(specs.get(key))
        if value:
            fields[name] = Decimal(value)
    return fields


def normalize(items: Iterable[LambdaItem]) -> Normalized:
    out = Normalized()
    listed: dict[str, None] = {}
    types: list[LambdaTypeItem] = []
    asked: list[str] = []
    for item in items:
        # `kind` says which record `data` is.
        if item.get("kind") == "lambda.region":
            listed[str(cast(LambdaRegion, item["data"])["name"])] = None
        elif item.get("kind") == "lambda.instance_type":
            types.append(cast(LambdaTypeItem, item))
        else:
            raise NormalizeError(f"Lambda: unknown item kind {item.get('kind')!r}")
        asked = list(item.get("regions") or asked)
    out.notes.extend(
        f"lambda: region {r} is not in Lambda's region list; not stored" for r in asked if listed and r not in listed
    )
    odd, gpu_types, unknown = 0, set(), set()
    for entry in types:
        record = entry["data"]
        problem = _odd(record)
        if problem:
            odd += 1
            out.notes.append(f"lambda: instance type {record.get('key', '?')} skipped: {problem}")
            continue
        instance_type = record["instance_type"]
        name = instance_type["name"]
        fields = _fields(instance_type)
        if not fields["gpu_count"]:
            continue
        gpu_types.add(name)
        if lookup(PROVIDER, name) is None:
            unknown.add(name)
        capacity = {str(r["name"]) for r in record["regions_with_capacity_available"]}
        regions = [r for r in asked if not listed or r in listed] or list(listed) or sorted(capacity)
        price = Decimal(whole_number(instance_type["price_cents_per_hour"]) or 0) / 100
        observed = parse_time(entry["observed_at"])
        for region in regions:
            out.quotes.append(
                make_quote(
                    PROVIDER,
                    region=region,
                    instance_type=name,
                    price_model=PriceModel.on_demand,
                    unit=Unit.hour,
                    price=price,
                    currency="USD",
                    availability="available" if region in capacity else "sold_out",
                    source_url=entry["source_url"],
                    observed_at=observed,
                    **fields,
                )
            )
    if types and odd == len(types):
        raise NormalizeError(f"Lambda: none of the {odd} instance types could be read ({out.notes[0]})")
    if not types:
        raise NormalizeError("Lambda: the answer listed no instance types")
    out.notes.extend(f"lambda: no GPU spec for {t}; stored without the GPU model" for t in sorted(unknown))
    out.notes.extend(no_count_notes(PROVIDER, gpu_types))
    return out
