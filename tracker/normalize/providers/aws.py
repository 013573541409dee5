"""What the AWS pricing-page and spot items mean.

- `aws.ondemand`: one row of a location's on-demand table; `price` is the
  hourly rate in the manifest's currency, kept exactly as written.
- `aws.spot`: one size and OS column of the spot feed; "N/A*" means not
  offered. A size listed twice with the same price is one quote; listed twice
  with different prices, the higher one is kept (deterministic, and never an
  optimistic guess) and the run notes say so.
- `aws.spot_advisor`: the interruption-frequency band of a spot pool,
  attached to the spot quote as attrs `interruption` ("<5%") and
  `spot_savings_percent`.

GPU model, count and the rest come from gpu_specs/aws.csv; vCPU, memory and
network fall back to what the pricing page says. A GPU-looking type missing
from the table is stored without GPU fields and reported in the run notes; so
is a type the table has without a GPU count (its quotes get no per-GPU-hour
price).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, cast

from db.schema import PriceModel, PriceQuote, Unit
from spiders.aws.items import AwsAdviceItem, AwsItem, AwsOnDemandItem, AwsSpotItem
from spiders.aws.names import spot_region
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import GpuSpec, lookup, no_count_notes, spec_table

SPOT_OS = {"linux": "linux", "mswin": "windows"}
ADVISOR_OS = {"Linux": "linux", "Windows": "windows"}
_AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s*(GiB|GB|Gigabit|Megabit)", re.IGNORECASE)


def os_slug(name: str) -> str:
    """'Linux' -> 'linux', 'Windows with SQL Std' -> 'windows+sql-std'."""
    return "+".join(part.strip().replace(" ", "-") for part in name.lower().split(" with "))


def _amount(text: object) -> Decimal | None:
    """'128 GiB' -> 128; 'Up to 25 Gigabit' -> 25; '75000 Megabit' -> 75."""
    found = _AMOUNT.search(str(text or ""))
    if not found:
        return None
    value = Decimal(found.group(1))
    return value / 1000 if found.group(2).lower() == "megabit" else value


def spec_fields(instance_type: str, row: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], bool]:
    """(GPU and machine fields, whether the spec table knows the type)."""
    spec = lookup("aws", instance_type)
    fields: dict[str, Any] = spec.as_fields() if spec else {}
    if row:
        vcpu = str(row.get("vCPU", ""))
        fallback = {
            "vcpu": Decimal(vcpu) if vcpu.isdigit() else None,
            "memory_gb": _amount(row.get("Memory")),
            "network_gbps": _amount(row.get("Network Performance")),
        }
        for name, value in fallback.items():
            if fields.get(name) is None and value is not None:
                fields[name] = value
    return fields, isinstance(spec, GpuSpec)


def _price(value: object, instance_type: str, where: str) -> Decimal:
    try:
        price = to_decimal(value, what="price")
    except MoneyError as exc:
        raise NormalizeError(f"AWS: {exc} for {instance_type} in {where}") from None
    if price <= 0:
        raise NormalizeError(f"AWS: price {value!r} for {instance_type} in {where} is not a positive amount")
    return price


def ondemand_quote(item: AwsOnDemandItem) -> PriceQuote:
    row = item["data"]
    instance_type = str(row["Instance Type"])
    fields, _ = spec_fields(instance_type, row)
    return PriceQuote(
        provider="aws",
        region=item["region"],
        instance_type=instance_type,
        os=os_slug(item["os"]),
        price_model=PriceModel.on_demand,
        price=_price(row["price"], instance_type, item["region"]),
        currency=item["currency"],
        unit=Unit.hour,
        source_url=item["source_url"],
        observed_at=parse_time(item["observed_at"]),
        **fields,
    )


def _spot_prices(items: list[AwsSpotItem], notes: list[str]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(region, size, os) -> the one item to keep; see the module notes."""
    kept: dict[tuple[str, str, str], dict[str, Any]] = {}
    conflicts: set[tuple[str, str, str]] = set()
    for item in items:
        data = item["data"]
        if data["price"].startswith("N/A"):
            continue
        if data["os"] not in SPOT_OS:
            raise NormalizeError(f"AWS: unknown spot price column {data['os']!r} in {data['region']}")
        key = (spot_region(data["region"]), data["size"], SPOT_OS[data["os"]])
        price = _price(data["price"], data["size"], key[0])
        seen = kept.get(key)
        if seen is None:
            kept[key] = {**item, "price": price}
        elif seen["price"] != price:
            conflicts.add(key)
            if price > seen["price"]:
                kept[key] = {**item, "price": price}
    notes.extend(
        f"aws: spot feed lists {size} ({os}) in {region} twice with different prices; kept the higher, "
        f"{kept[(region, size, os)]['price']}"
        for region, size, os in sorted(conflicts)
    )
    return kept


def _advice(items: list[AwsAdviceItem]) -> dict[tuple[str, str, str], dict[str, str]]:
    advice = {}
    for item in items:
        data = item["data"]
        os_name = ADVISOR_OS.get(data["os"])
        if os_name:
            attrs = {"interruption": data["interruption"]}
            if data.get("savings_percent"):
                attrs["spot_savings_percent"] = data["savings_percent"]
            advice[(data["region"], data["instance_type"], os_name)] = attrs
    return advice


def spot_quotes(items: list[AwsSpotItem], advisor: list[AwsAdviceItem], notes: list[str]) -> list[PriceQuote]:
    advice = _advice(advisor)
    quotes = []
    for (region, size, os_name), item in sorted(_spot_prices(items, notes).items()):
        fields, _ = spec_fields(size)
        quotes.append(
            PriceQuote(
                provider="aws",
                region=region,
                instance_type=size,
                os=os_name,
                price_model=PriceModel.spot,
                price=item["price"],
                currency="USD",
                unit=Unit.hour,
                source_url=item["source_url"],
                observed_at=parse_time(item["observed_at"]),
                attrs=advice.get((region, size, os_name), {}),
                **fields,
            )
        )
    return quotes


def unknown_gpu_notes(instance_types: Iterable[str], table: dict[str, GpuSpec] | None = None) -> list[str]:
    """Notes for GPU-looking types the spec table lacks, and for those it
    has without a GPU count (`table`: the table to check, gpu_specs/aws.csv
    by default)."""
    types = set(instance_types)
    table = spec_table("aws") if table is None else table
    unknown = sorted(t for t in types if t.lower() not in table)
    return [
        f"aws: {t} looks like a GPU instance but is not in gpu_specs/aws.csv; stored without GPU fields"
        for t in unknown
    ] + no_count_notes("aws", types, table)


def normalize(items: Iterable[AwsItem]) -> Normalized:
    out = Normalized()
    by_kind: dict[str, list[AwsItem]] = {"aws.ondemand": [], "aws.spot": [], "aws.spot_advisor": []}
    for item in items:
        if item.get("kind") not in by_kind:
            raise NormalizeError(f"AWS: unknown item kind {item.get('kind')!r}")
        by_kind[item["kind"]].append(item)
    try:
        out.quotes.extend(ondemand_quote(i) for i in cast(list[AwsOnDemandItem], by_kind["aws.ondemand"]))
    except KeyError as exc:
        raise NormalizeError(f"AWS: an on-demand row lacks {exc}") from None
    # Each kind's records are of its own shape (spiders/aws/items.py).
    spot = cast(list[AwsSpotItem], by_kind["aws.spot"])
    out.quotes.extend(spot_quotes(spot, cast(list[AwsAdviceItem], by_kind["aws.spot_advisor"]), out.notes))
    out.notes.extend(unknown_gpu_notes(q.instance_type for q in out.quotes))
    return out
