"""What Volcano Engine's price table means.

- `PriceInfoList` Period `hourly` is the on-demand price per hour; `monthly`
  with Times 1 (or no Times) is the monthly subscription, term 1mo; Times 12
  (24, 36) is the subscription for that many years, priced for the term as
  public clients of the page read it. Other multiples are not stored.
  Prices are in CNY, the only currency the China site's table uses.
- vCPU and memory come from the template's AbilityAttrs where it states them;
  the GPU from gpu_specs/volcengine.csv.
- Availability: the template lists, per configuration and region, the zones
  that sell it. Zones listed: available; the configuration listed in the
  region with no zone: sold out; not listed: unknown.

## The official API (volcengine-api)

What the Volcano Engine OpenAPI answers mean (volcengine-api).

- ECS `DescribeInstanceTypes`: the GPU devices' model (`ProductName`,
  "NVIDIA A10") and count, memory in MiB; the spec table's GPU names win
  when it knows the type, so every provider names a card alike.
- billing `QueryPriceForPayAsYouGo` (one hour of use) is on demand per hour;
  `QueryPriceForSubscription` for 1 and 12 months of use is 1mo and 1yr.
  `Price` is paid, `OriginalAmount` the list price; amounts are strings.
- ECS `DescribeAvailableResource` (pay as you go) says per zone whether a
  type is Available or SoldOut: on-demand prices are stored once per zone
  with that availability; subscription prices once per region.
- A type a price answer leaves out is skipped with a note naming it; its
  last price stands (never "removed"). An answer that prices none of the
  types asked fails the run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from spiders.volcengine.items import (
    ApiPriceItem,
    ApiStockItem,
    ApiType,
    PriceInfo,
    TableItem,
    VolcengineApiItem,
)
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.api import ApiNormalizer, Price, Variant, Zones
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

CURRENCY = "CNY"
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)")


def _leading_number(text: str | None) -> Decimal | None:
    match = _NUMBER.match(text or "")
    return Decimal(match.group(1)) if match else None


def _times(value: object) -> int | None:
    text = str(1 if value in (None, "") else value)
    return int(text) if text.isdigit() else None


def _variant(entry: PriceInfo, configuration: str, notes: list[str]) -> dict[str, Any] | None:
    """The entry as a price, or None for one we do not store (an odd one
    with a note: one bad entry never fails the whole table)."""
    period, times = str(entry.get("Period")), _times(entry.get("Times"))
    if period == "hourly":
        model, term, unit = PriceModel.on_demand, "", Unit.hour
    elif period == "monthly":
        if times == 1:
            model, term, unit = PriceModel.monthly, "1mo", Unit.month
        elif times and times % 12 == 0:
            years = times // 12
            model, term, unit = PriceModel.yearly, f"{years}yr", Unit.year if years == 1 else Unit.term
        else:
            return None
    else:
        raise NormalizeError(f"Volcano Engine: unknown Period {period!r} for {configuration}")
    try:
        price = to_decimal(entry.get("Price"), what=f"{period} Price")
    except MoneyError as exc:
        raise NormalizeError(f"Volcano Engine: {exc} for {configuration}") from None
    if price <= 0:
        notes.append(f"volcengine: {period} price {entry.get('Price')!r} of {configuration} is not a price; skipped")
        return None
    return {"price_model": model, "term": term, "unit": unit, "price": price}


def normalize(items: Iterable[TableItem]) -> Normalized:
    out = Normalized()
    unknown: set[str] = set()
    for item in items:
        data = item["data"]
        configuration = str(data.get("configuration", ""))
        spec = lookup("volcengine", configuration)
        fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
        if spec is None:
            unknown.add(configuration)
        abilities = data.get("abilities") or {}
        for name, key in (("vcpu", "vcpu"), ("memory", "memory_gb")):
            stated = _leading_number(abilities.get(name))
            if stated is not None:
                fields[key] = stated
        observed = parse_time(item["observed_at"])
        zones = data.get("zones")
        availability = None if not isinstance(zones, list) else ("available" if zones else "sold_out")
        region = str(data.get("Region", ""))
        for entry in data.get("PriceInfoList") or []:
            variant = _variant(entry, configuration, out.notes)
            if variant is None:
                continue
            out.quotes.append(
                PriceQuote(
                    provider="volcengine",
                    region=region,
                    instance_type=configuration,
                    currency=CURRENCY,
                    availability=availability,
                    source_url=item["source_url"],
                    observed_at=observed,
                    **fields,
                    **variant,
                )
            )
    out.notes.extend(f"volcengine: no GPU spec for {t}; stored without GPU fields" for t in sorted(unknown))
    return out


# The API items' kinds, and what each is (see ApiNormalizer.kinds).
KINDS = {
    "volcengine.api.type": "type",
    "volcengine.api.stock": "stock",
    "volcengine.api.price": "price",
    "volcengine.api.unpriced": "left out",
}
VARIANTS: dict[str, Variant] = {
    "on_demand": (PriceModel.on_demand, "", Unit.hour),
    "1mo": (PriceModel.monthly, "1mo", Unit.month),
    "1yr": (PriceModel.yearly, "1yr", Unit.year),
}
VENDOR = re.compile(r"^(NVIDIA|AMD)\s+", re.IGNORECASE)
MIB = Decimal(1024)


def _fields(instance_type: str, record: ApiType | None) -> dict[str, Any]:
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


class VolcengineApi(ApiNormalizer):
    source, provider = "volcengine-api", "volcengine"
    kinds = KINDS
    variants = VARIANTS
    name_key = "configuration_code"
    amount_keys = ("price", "original")
    amount_names = ("Price", "OriginalAmount")

    def stocked(self, item: ApiStockItem) -> None:
        row = item["data"]
        self.stock[str(item["region"]), str(row["instance_type"])].append((row["zone"], row["availability"]))

    def variant(self, item: ApiPriceItem) -> str:
        return str(item.get("variant"))

    def fields(self, price: Price) -> dict[str, Any]:
        return _fields(price.name, self.types.get(price.name))

    def zones(self, price: Price) -> Zones:
        zones = self.stock.get((price.region, price.name)) if price.variant == "on_demand" else None
        return zones or [("", None)]


def normalize_api(items: Iterable[VolcengineApiItem]) -> Normalized:
    return VolcengineApi().normalize(items)
