"""What a CVM API `DescribeZoneInstanceConfigInfos` item means (tencent-api).

- POSTPAID_BY_HOUR is on demand and SPOTPAID spot, per hour: the price paid
  is `UnitPriceDiscount` when the answer gives it, else `UnitPrice`, which
  is also the list price (the API reference marks every `ItemPrice` field
  optional, and its own example has only `UnitPrice` and `ChargeUnit`).
- PREPAID is one month at `DiscountPrice` (list `OriginalPrice`, each
  falling back to the other), and, when the answer has them, one year
  (`...OneYear`) and three years (`...ThreeYear`, the whole term's price).
- `Status` SELL is available, SOLD_OUT sold out. An item with no usable price
  (a sold-out one quoted 0, an odd one) is skipped with a note, never the run.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, Unit
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

AVAILABILITY = {"SELL": "available", "SOLD_OUT": "sold_out"}
HOURLY = {"POSTPAID_BY_HOUR": PriceModel.on_demand, "SPOTPAID": PriceModel.spot}
# PREPAID terms: (term, unit, price model, paid field, list field)
PREPAID_TERMS = (
    ("1mo", Unit.month, PriceModel.monthly, "DiscountPrice", "OriginalPrice"),
    ("1yr", Unit.year, PriceModel.yearly, "DiscountPriceOneYear", "OriginalPriceOneYear"),
    ("3yr", Unit.term, PriceModel.yearly, "DiscountPriceThreeYear", "OriginalPriceThreeYear"),
)


def _amount(price: dict[str, Any], name: str) -> Decimal | None:
    value = price.get(name)
    if value in (None, ""):
        return None
    return to_decimal(value, what=f"Price.{name}")


def _variants(data: dict[str, Any]) -> list[dict[str, Any]]:
    """(price model, term, unit, price, list price) of one item."""
    price, charge_type = data["Price"], str(data["InstanceChargeType"])
    if charge_type in HOURLY:
        unit_price = _amount(price, "UnitPrice")
        paid = _amount(price, "UnitPriceDiscount") or unit_price
        return [{"price_model": HOURLY[charge_type], "term": "", "unit": Unit.hour, "price": paid, "list": unit_price}]
    if charge_type != "PREPAID":
        raise NormalizeError(f"tencent-api: unknown InstanceChargeType {charge_type!r}")
    out = []
    for term, unit, model, paid_field, list_field in PREPAID_TERMS:
        paid, listed = _amount(price, paid_field), _amount(price, list_field)
        if paid or listed:
            out.append({"price_model": model, "term": term, "unit": unit, "price": paid or listed, "list": listed})
    return out


def _fields(data: dict[str, Any]) -> dict[str, Any]:
    spec = lookup("tencent", str(data["InstanceType"]))
    fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
    for name, key in (("vcpu", "Cpu"), ("memory_gb", "Memory"), ("gpu_count", "GpuCount")):
        if data.get(key) not in (None, "", 0):
            fields[name] = to_decimal(data[key], what=key)
    return fields


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    unknown: set[str] = set()
    for item in items:
        data = item.get("data")
        if not isinstance(data, dict):
            raise NormalizeError("tencent-api: an item has no data record")
        instance_type, zone = str(data.get("InstanceType")), str(data.get("Zone"))
        status = str(data.get("Status"))
        if status not in AVAILABILITY:
            raise NormalizeError(f"tencent-api: unknown Status {status!r} for {instance_type} in {zone}")
        try:
            variants, fields = _variants(data), _fields(data)
        except MoneyError as exc:
            raise NormalizeError(f"tencent-api: {exc} for {instance_type} in {zone}") from None
        priced = [v for v in variants if v["price"] and v["price"] > 0]
        if not priced:
            charge = data.get("InstanceChargeType")
            out.notes.append(f"tencent-api: {instance_type} ({charge}) in {zone} has no price ({status}); skipped")
            continue
        if fields.get("gpu_model") is None:
            unknown.add(instance_type)
        for v in priced:
            out.quotes.append(
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
                    availability=AVAILABILITY[status],
                    source_url=str(item.get("source_url") or ""),
                    observed_at=parse_time(item.get("observed_at")),
                    **fields,
                )
            )
    out.notes.extend(f"tencent-api: no GPU spec for {t}; stored without a GPU model" for t in sorted(unknown))
    return out
