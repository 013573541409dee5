"""What a Tencent Cloud `DescribeZoneInstanceConfigInfos` item means.

- POSTPAID_BY_HOUR is on demand and SPOTPAID is spot, both per hour:
  `UnitPriceDiscount` is the price paid, `UnitPrice` the list price; an item
  without `UnitPriceDiscount` (the API reference marks it optional) is
  priced at `UnitPrice`.
- PREPAID is monthly (one month, the purchase page's default period):
  `DiscountPrice` is the price paid, `OriginalPrice` the list price, and
  likewise without `DiscountPrice`.
- `Status` SELL is available and SOLD_OUT is sold out. A sold-out item
  quoted at 0 has no price to store and is skipped.
- One odd item (an unknown Status, an item on sale at 0 as in the API
  reference's own example, a price we cannot read) is skipped with a note;
  when every item is odd, the answer changed shape and the run fails.
- Prices are per zone; vCPU, memory and the GPU count come from the item
  itself, the GPU model and memory from the spec table.

## The official API (tencent-api)

What a CVM API `DescribeZoneInstanceConfigInfos` item means (tencent-api).

- POSTPAID_BY_HOUR is on demand and SPOTPAID spot, per hour: the price paid
  is `UnitPriceDiscount` when the answer gives it, else `UnitPrice`, which
  is also the list price (the API reference marks every `ItemPrice` field
  optional, and its own example has only `UnitPrice` and `ChargeUnit`).
- PREPAID is one month at `DiscountPrice` (list `OriginalPrice`, each
  falling back to the other), and, when the answer has them, one year
  (`...OneYear`) and three years (`...ThreeYear`, the whole term's price).
- `Status` SELL is available, SOLD_OUT sold out. An item with no usable price
  (a sold-out one quoted 0, an odd one) is skipped with a note, never the run.
- Tiered hourly prices (both sources): when `Price` has `UnitPriceSecondStep`
  / `UnitPriceThirdStep` (and their `Discount` twins), `UnitPrice` covers the
  first 96 hours of use only (the SDK model's own words); the first step is
  stored as the price and the schedule in attrs `hourly_steps`, with a note.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from spiders.tencent.items import ItemPrice, QuotaItem, TencentApiItem, TencentItem
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.api import ApiNormalizer
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

ITEM_FIELDS = ("InstanceType", "Zone", "InstanceChargeType", "Status", "Price")
AVAILABILITY = {"SELL": "available", "SOLD_OUT": "sold_out"}
# charge type -> (price model, term, unit, list price field, price field)
CHARGE_TYPES: dict[str, tuple[PriceModel, str, Unit, str, str]] = {
    "POSTPAID_BY_HOUR": (PriceModel.on_demand, "", Unit.hour, "UnitPrice", "UnitPriceDiscount"),
    "SPOTPAID": (PriceModel.spot, "", Unit.hour, "UnitPrice", "UnitPriceDiscount"),
    "PREPAID": (PriceModel.monthly, "1mo", Unit.month, "OriginalPrice", "DiscountPrice"),
}
HOURLY_CHARGE_UNITS = {"", "HOUR"}
# Tiered hourly prices (ItemPrice, SDK model): when the answer has a second
# step, UnitPrice(Discount) covers hours 0-96 of use, ...SecondStep 96-360
# and ...ThirdStep 360 on. The first step is stored as the price, the whole
# schedule in attrs `hourly_steps` ("from 0 h: 12.5; from 96 h: 11; ...").
STEPS = ((96, "SecondStep"), (360, "ThirdStep"))
STEPS_NOTE = (
    "{source}: {count} hourly prices are tiered by hours of use (UnitPrice covers the first 96 h, "
    "then UnitPriceSecondStep to 360 h and UnitPriceThirdStep after): stored at the first step, "
    "the steps in attrs hourly_steps, which tco and recommend follow"
)


def hourly_steps(price_info: ItemPrice, first: Decimal, paid: bool) -> str | None:
    """The step schedule of a tiered hourly price, or None when the answer
    has no later step (absent, or 0 as the references' untiered examples give it)."""
    steps = [f"from 0 h: {first.normalize():f}"]
    for start, suffix in STEPS:
        names = (f"UnitPriceDiscount{suffix}", f"UnitPrice{suffix}") if paid else (f"UnitPrice{suffix}",)
        for field_name in names:
            value = price_info.get(field_name)
            if value in (None, ""):
                continue
            amount = to_decimal(value, what=f"Price.{field_name}")
            if amount > 0:
                steps.append(f"from {start} h: {amount.normalize():f}")
                break
    return "; ".join(steps) if len(steps) > 1 else None


def _fields(data: QuotaItem) -> dict[str, Any]:
    """GPU and machine figures: the item's own, then the spec table's."""
    instance_type = str(data["InstanceType"])
    spec = lookup("tencent", instance_type)
    fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
    for name, key in (("vcpu", "Cpu"), ("memory_gb", "Memory")):
        if data.get(key) not in (None, "", 0):
            fields[name] = to_decimal(data.get(key), what=key)
    raw_count = data.get("GpuCount") or data.get("Gpu")
    if raw_count in (None, "", 0):
        return fields
    count = to_decimal(raw_count, what="GpuCount")
    if count == count.to_integral_value():
        count = count.to_integral_value()  # 1.0 -> 1
    if spec and spec.gpu_count and spec.gpu_memory_gb is not None and count != spec.gpu_count:
        # GPU memory follows the count the answer states, at the table's memory per card.
        fields["gpu_memory_gb"] = spec.gpu_memory_gb / spec.gpu_count * count
    fields["gpu_count"] = count
    return fields


def _record(item: TencentItem) -> QuotaItem:
    data = item.get("data")
    if not isinstance(data, dict):
        raise NormalizeError("Tencent: an item has no data record")
    missing = [name for name in ITEM_FIELDS if data.get(name) in (None, "")]
    if missing:
        raise NormalizeError(f"Tencent: {', '.join(missing)} missing for {data.get('InstanceType') or 'an item'}")
    if not isinstance(data["Price"], dict):
        raise NormalizeError(f"Tencent: Price of {data['InstanceType']} is not an object")
    return data


def _quote(item: TencentItem, out: Normalized) -> PriceQuote | None:
    data = _record(item)
    instance_type, zone = str(data["InstanceType"]), str(data["Zone"])
    charge_type = str(data["InstanceChargeType"])
    if charge_type not in CHARGE_TYPES:
        raise NormalizeError(f"Tencent: unknown InstanceChargeType {charge_type!r} for {instance_type} in {zone}")
    price_model, term, unit, list_field, price_field = CHARGE_TYPES[charge_type]
    status = str(data["Status"])
    if status not in AVAILABILITY:
        raise NormalizeError(f"Tencent: unknown Status {status!r} for {instance_type} in {zone}")
    price_info = data["Price"]
    if unit == Unit.hour and str(price_info.get("ChargeUnit") or "").upper() not in HOURLY_CHARGE_UNITS:
        raise NormalizeError(
            f"Tencent: {instance_type} in {zone} is charged per {price_info.get('ChargeUnit')!r}, not per hour"
        )
    stated = price_info.get(price_field)
    raw_list = price_info.get(list_field)
    if stated is None and raw_list is None:
        raise NormalizeError(f"Tencent: {instance_type} in {zone} has neither Price.{price_field} nor {list_field}")
    list_price = to_decimal(raw_list, what=f"Price.{list_field}") if raw_list is not None else Decimal(0)
    price = to_decimal(stated, what=f"Price.{price_field}") if stated is not None else list_price
    if price <= 0:
        if status == "SOLD_OUT":
            out.notes.append(f"tencent: {instance_type} ({charge_type}) in {zone} is sold out with no price; skipped")
            return None
        raise NormalizeError(f"Tencent: {instance_type} ({charge_type}) in {zone} is on sale at {price}")
    steps = hourly_steps(price_info, price, paid=stated is not None) if unit == Unit.hour else None
    return make_quote(
        "tencent",
        attrs={"hourly_steps": steps} if steps else {},
        region=str(item.get("region") or zone.rsplit("-", 1)[0]),
        zone=zone,
        instance_type=instance_type,
        os="linux",
        price_model=price_model,
        term=term,
        unit=unit,
        price=price,
        list_price=list_price if list_price > 0 else None,
        currency=str(item.get("currency") or "CNY"),
        availability=AVAILABILITY[status],
        source_url=str(item.get("source_url") or ""),
        observed_at=parse_time(item.get("observed_at")),
        **_fields(data),
    )


def normalize(items: Iterable[TencentItem]) -> Normalized:
    out = Normalized()
    unknown: set[str] = set()
    odd: list[str] = []
    for item in items:
        data = item.get("data")
        instance_type = str(data.get("InstanceType", "")) if isinstance(data, dict) else ""
        try:
            quote = _quote(item, out)
        except MoneyError as exc:
            odd.append(f"Tencent: {exc} for {instance_type}")
            continue
        except NormalizeError as exc:
            odd.append(str(exc))
            continue
        if quote is None:
            continue
        if quote.gpu_model is None:
            unknown.add(instance_type)
        out.quotes.append(quote)
    if odd and not out.quotes:
        raise NormalizeError(odd[0])
    stepped = sum(1 for q in out.quotes if "hourly_steps" in q.attrs)
    if stepped:
        out.notes.append(STEPS_NOTE.format(source="tencent", count=stepped))
    out.notes.extend(f"tencent: skipped: {reason}" for reason in odd)
    out.notes.extend(f"tencent: no GPU spec for {t}; stored without a GPU model" for t in sorted(unknown))
    return out


API_AVAILABILITY = {"SELL": "available", "SOLD_OUT": "sold_out"}
HOURLY = {"POSTPAID_BY_HOUR": PriceModel.on_demand, "SPOTPAID": PriceModel.spot}
# PREPAID terms: (term, unit, price model, paid field, list field)
PREPAID_TERMS = (
    ("1mo", Unit.month, PriceModel.monthly, "DiscountPrice", "OriginalPrice"),
    ("1yr", Unit.year, PriceModel.yearly, "DiscountPriceOneYear", "OriginalPriceOneYear"),
    ("3yr", Unit.term, PriceModel.yearly, "DiscountPriceThreeYear", "OriginalPriceThreeYear"),
)


def _amount(price: ItemPrice, name: str) -> Decimal | None:
    value = price.get(name)
    if value in (None, ""):
        return None
    return to_decimal(value, what=f"Price.{name}")


def _variants(data: QuotaItem) -> list[dict[str, Any]]:
    """(price model, term, unit, price, list price) of one item."""
    price, charge_type = data["Price"], str(data["InstanceChargeType"])
    if charge_type in HOURLY:
        unit_price = _amount(price, "UnitPrice")
        discounted = _amount(price, "UnitPriceDiscount")
        paid = discounted or unit_price
        variant = {"price_model": HOURLY[charge_type], "term": "", "unit": Unit.hour, "price": paid, "list": unit_price}
        steps = hourly_steps(price, paid, paid=discounted is not None) if paid else None
        return [{**variant, "attrs": {"hourly_steps": steps}} if steps else variant]
    if charge_type != "PREPAID":
        raise NormalizeError(f"tencent-api: unknown InstanceChargeType {charge_type!r}")
    out = []
    for term, unit, model, paid_field, list_field in PREPAID_TERMS:
        paid, listed = _amount(price, paid_field), _amount(price, list_field)
        if paid or listed:
            out.append({"price_model": model, "term": term, "unit": unit, "price": paid or listed, "list": listed})
    return out


def _api_fields(data: QuotaItem) -> dict[str, Any]:
    spec = lookup("tencent", str(data["InstanceType"]))
    fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
    for name, key in (("vcpu", "Cpu"), ("memory_gb", "Memory"), ("gpu_count", "GpuCount")):
        if data.get(key) not in (None, "", 0):
            fields[name] = to_decimal(data.get(key), what=key)
    return fields


class TencentApi(ApiNormalizer):
    """Each item is one type in one zone with all its prices: no kinds to
    read, no answer leaving a type out."""

    source, provider = "tencent-api", "tencent"
    unknown_note = "no GPU spec for {}; stored without a GPU model"

    def read(self, kind: object, item: TencentApiItem) -> bool:
        self.prices.append(item)
        return True

    def quotes(self, item: TencentApiItem) -> list[PriceQuote]:
        data = item["data"]
        instance_type, zone = str(data.get("InstanceType")), str(data.get("Zone"))
        status = str(data.get("Status"))
        if status not in API_AVAILABILITY:
            raise NormalizeError(f"tencent-api: unknown Status {status!r} for {instance_type} in {zone}")
        try:
            variants, fields = _variants(data), _api_fields(data)
        except MoneyError as exc:
            raise NormalizeError(f"tencent-api: {exc} for {instance_type} in {zone}") from None
        priced = [v for v in variants if v["price"] and v["price"] > 0]
        if not priced:
            charge = data.get("InstanceChargeType")
            self.out.notes.append(f"tencent-api: {instance_type} ({charge}) in {zone} has no price ({status}); skipped")
            return []
        if fields.get("gpu_model") is None:
            self.unknown.add(instance_type)
        return [
            make_quote(
                "tencent",
                region=str(item.get("region") or zone.rsplit("-", 1)[0]),
                zone=zone,
                instance_type=instance_type,
                os="linux",
                price_model=v["price_model"],
                term=v["term"],
                unit=v["unit"],
                price=v["price"],
                list_price=v["list"] if v["list"] and v["list"] > 0 else None,
                currency=str(item.get("currency") or "CNY"),
                availability=API_AVAILABILITY[status],
                source_url=str(item.get("source_url") or ""),
                observed_at=parse_time(item.get("observed_at")),
                attrs=v.get("attrs") or {},
                **fields,
            )
            for v in priced
        ]

    def closing_notes(self) -> list[str]:
        stepped = sum(1 for q in self.out.quotes if "hourly_steps" in q.attrs)
        return [STEPS_NOTE.format(source="tencent-api", count=stepped)] if stepped else []


def normalize_api(items: Iterable[TencentApiItem]) -> Normalized:
    return TencentApi().normalize(items)
