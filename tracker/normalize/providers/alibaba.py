"""What Alibaba Cloud's price sources mean.

- The CDN price file: each `region::type::network::os::io` key lists prices
  by period. `hours` period 1 is the on-demand hourly price, `months` period
  1 the monthly subscription (term 1mo) and `years` period 1 the yearly one
  (term 1yr). Longer periods are not stored: the file does not say whether
  they are per month or per term. Only VPC, I/O optimized keys are kept; the
  classic network is legacy.
- DescribePrice (spot, with credentials): TradePrice is what a spot hour
  costs, OriginalPrice the undiscounted pay-as-you-go price it is cut from.
- The file names no GPU: the spec comes from gpu_specs/alibaba.csv.
- One odd record (a price of 0, two prices for one period) is skipped with
  a note; when every record is odd, the file changed and the run fails.

## The official API (alibaba-api)

What the ECS API answers mean (alibaba-api).

- `DescribeInstanceTypes` gives the GPU model (`GPUSpec`, "NVIDIA A10"),
  count and memory per type; the spec table fills what it leaves out.
- `DescribePrice` gives one price per region, type and variant: per hour for
  pay as you go and spot, per month (1mo), per year (1yr) and for the whole
  three years (3yr). `TradePrice` is paid, `OriginalPrice` the list price.
- `DescribeAvailableResource` says, per zone, whether a type is Available or
  SoldOut for that way of paying (either casing the references use): each
  price is stored once per zone that lists the type, with that zone's
  availability; a type no zone lists keeps one regional row with no
  availability.
- The price is the instance's own line of `DetailInfos` (the SDK's
  `DetailInfo` or the reference's `ResourcePriceModel`). An answer with no
  lines at all is stored at its order total, with a note and `price_basis`
  in attrs; an answer whose lines name no instance is skipped with a note.
- A type DescribePrice cannot price (`PriceNotFound`, `InstanceType.Offline`)
  or whose line is missing is skipped with a note naming it; its last price
  stands (never "removed"), and the rest of the run is stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, cast

from db.schema import PriceModel, PriceQuote, Unit
from spiders.alibaba.items import (
    AlibabaApiItem,
    AlibabaItem,
    ApiPriceItem,
    ApiStockItem,
    ApiType,
    PeriodPrice,
    PriceFileRecord,
    SpotPrice,
)
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.api import ApiNormalizer, Price, Variant, Zones
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

PERIODS = {
    "hours": (PriceModel.on_demand, "", Unit.hour),
    "months": (PriceModel.monthly, "1mo", Unit.month),
    "years": (PriceModel.yearly, "1yr", Unit.year),
}


def _period_one(entries: list[PeriodPrice], what: str) -> Any | None:
    found = [e["price"] for e in entries if str(e.get("period")) == "1"]
    if len(found) > 1 and len(set(map(str, found))) > 1:
        raise NormalizeError(f"Alibaba: two {what} prices for period 1: {', '.join(map(str, found))}")
    return found[0] if found else None


def _price_variants(data: PriceFileRecord) -> list[dict[str, Any]]:
    variants = []
    for field, (model, term, unit) in PERIODS.items():
        raw = _period_one(cast(list[PeriodPrice], data.get(field) or []), field)  # hours, months or years
        if raw is None or str(raw).strip() == "":
            continue
        price = to_decimal(raw, what=f"{field} price")
        if price <= 0:
            raise NormalizeError(f"Alibaba: {field} price {raw!r} is not a positive amount")
        variants.append({"price_model": model, "term": term, "unit": unit, "price": price})
    return variants


def _spot_variant(data: SpotPrice) -> dict[str, Any]:
    price = to_decimal(data.get("TradePrice"), what="TradePrice")
    original = data.get("OriginalPrice")
    list_price = to_decimal(original, what="OriginalPrice") if original not in (None, "") else None
    return {
        "price_model": PriceModel.spot,
        "term": "",
        "unit": Unit.hour,
        "price": price,
        "list_price": list_price if list_price is not None and list_price != price else None,
    }


def _record_variants(item: AlibabaItem) -> tuple[str, str, list[dict[str, Any]]] | None:
    """(currency, OS, price variants) of one item; None for keys not kept."""
    instance_type = str(item["data"].get("instance_type", ""))
    # `kind` says which record `data` is.
    if item["kind"] == "alibaba.price":
        data = cast(PriceFileRecord, item["data"])
        if data.get("network") != "vpc" or data.get("io") != "optimized":
            return None
        try:
            variants = _price_variants(data)
        except (MoneyError, NormalizeError) as exc:
            reason = str(exc).removeprefix("Alibaba: ")
            raise NormalizeError(f"Alibaba: {reason} for {instance_type} in {item['data'].get('region')}") from None
        return str(item.get("currency", "")), str(data.get("os", "linux")).lower(), variants
    if item["kind"] == "alibaba.spot":
        try:
            spot = cast(SpotPrice, item["data"])
            return str(spot.get("Currency", "")), "linux", [_spot_variant(spot)]
        except MoneyError as exc:
            raise NormalizeError(f"Alibaba DescribePrice: {exc} for {instance_type}") from None
    raise NormalizeError(f"Alibaba: unknown item kind {item['kind']!r}")


def normalize(items: Iterable[AlibabaItem]) -> Normalized:
    out = Normalized()
    unknown: set[str] = set()
    odd: list[str] = []
    for item in items:
        data = item["data"]
        instance_type = str(data.get("instance_type", ""))
        try:
            found = _record_variants(item)
        except NormalizeError as exc:
            if item.get("kind") not in ("alibaba.price", "alibaba.spot"):
                raise
            odd.append(str(exc))
            continue
        if found is None:
            continue
        currency, os_name, variants = found
        spec = lookup("alibaba", instance_type)
        if spec is None:
            unknown.add(instance_type)
        observed = parse_time(item["observed_at"])
        for variant in variants:
            out.quotes.append(
                PriceQuote(
                    provider="alibaba",
                    region=str(data.get("region", "")),
                    instance_type=instance_type,
                    os=os_name,
                    currency=currency,
                    source_url=item["source_url"],
                    observed_at=observed,
                    **(spec.as_fields() if spec else {}),
                    **variant,
                )
            )
    if odd and not out.quotes:
        raise NormalizeError(odd[0])
    out.notes.extend(f"alibaba: skipped: {reason}" for reason in odd)
    out.notes.extend(f"alibaba: no GPU spec for {t}; stored without GPU fields" for t in sorted(unknown))
    return out


# The API items' kinds, and what each is (see ApiNormalizer.kinds).
KINDS = {
    "alibaba.api.type": "type",
    "alibaba.api.stock": "stock",
    "alibaba.api.price": "price",
    "alibaba.api.unpriced": "price",  # held: `unpriced` says why
}
VARIANTS: dict[str, Variant] = {
    "on_demand": (PriceModel.on_demand, "", Unit.hour),
    "spot": (PriceModel.spot, "", Unit.hour),
    "1mo": (PriceModel.monthly, "1mo", Unit.month),
    "1yr": (PriceModel.yearly, "1yr", Unit.year),
    "3yr": (PriceModel.yearly, "3yr", Unit.term),
}
VENDOR = re.compile(r"^(NVIDIA|AMD)\s+", re.IGNORECASE)


def _gpu_fields(instance_type: str, record: ApiType | None) -> dict[str, Any]:
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


class AlibabaApi(ApiNormalizer):
    source, provider = "alibaba-api", "alibaba"
    kinds = KINDS
    variants = VARIANTS
    amount_names = ("TradePrice", "OriginalPrice")
    empty_list_is_none = False
    odd_note = "stock status not known for {}; stored without availability"

    def __init__(self) -> None:
        super().__init__()
        self.totals: list[str] = []  # prices stored at the order total

    def stocked(self, item: ApiStockItem) -> None:
        row = item["data"]
        if row.get("availability") is None and row.get("status"):
            self.odd.add(f"{row['instance_type']} in {row['zone']} ({row['status']})")
        for variant in item.get("variants") or ():
            self.stock[item["region"], str(row["instance_type"]), variant].append(
                (row["zone"], row.get("availability"))
            )

    def unpriced(self, item: ApiPriceItem) -> str | None:
        """DescribePrice's error for the one type, or an answer whose lines name no instance."""
        data = item["data"]
        if item.get("kind") == "alibaba.api.unpriced":
            return f"DescribePrice answered {data.get('code')}: {data.get('message')}"
        if data.get("basis") == "unknown":
            return (
                "DescribePrice has price lines (DetailInfos.DetailInfo or DetailInfos.ResourcePriceModel) "
                f"but none for the instance (Resource {', '.join(data.get('resources') or [])})"
            )
        return None

    def fields(self, price: Price) -> dict[str, Any]:
        return _gpu_fields(price.name, self.types.get(price.name))

    def zones(self, price: Price) -> Zones:
        return self.stock.get((price.region, price.name, price.variant)) or [("", None)]

    def attrs(self, item: ApiPriceItem, price: Price) -> dict[str, str]:
        if item["data"].get("basis") != "total":
            return {}
        self.totals.append(f"{price.name} ({price.variant}) in {price.region}")
        return {"price_basis": "order total"}

    def closing_notes(self) -> list[str]:
        if not self.totals:
            return []
        return [
            "alibaba-api: DescribePrice gave no DetailInfos.DetailInfo or DetailInfos.ResourcePriceModel line for "
            f"{', '.join(self.totals)}; stored at the order total (it may count an image or disks), "
            "attrs price_basis 'order total'"
        ]


def normalize_api(items: Iterable[AlibabaApiItem]) -> Normalized:
    return AlibabaApi().normalize(items)
