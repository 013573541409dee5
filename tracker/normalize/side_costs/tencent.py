"""What the `tencent.side_*` items mean (source `tencent-side-costs`,
spiders/tencent/side_costs.py).

- `tencent.side_bandwidth`: InquiryPriceRunInstances' `Price.BandwidthPrice`
  of traffic billed by the GB (`ChargeUnit` GB): internet egress, one tier,
  at `UnitPriceDiscount` (the price paid), else `UnitPrice`, which is kept
  as the list price in attrs (`list_price`);
- `tencent.side_disk`: InquiryPriceCreateDisks' `DiskPrice` of one
  pay-as-you-go disk (`ChargeUnit` HOUR) of `disk_gb` GiB: its hourly price
  (`UnitPriceDiscountHigh`, the SDK's high-precision string, else
  `UnitPriceDiscount`, else `UnitPrice`) over the size, times 730 hours, is
  the price per GB-month; the hourly price and the size are kept in attrs.

Another charge unit is refused (the answer no longer means what we read);
an item with no price, or a price of 0, is skipped with a note."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from db.schema import PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.side_costs import HOURS_PER_MONTH, per_gb_month, side_quote

SOURCE = "tencent-side-costs"


def _first_price(data: dict[str, Any], *fields: str) -> tuple[Decimal | None, str]:
    """The first of `fields` that holds a number, and its name."""
    for name in fields:
        value = data.get(name)
        if value is None or value == "":
            continue
        try:
            return Decimal(str(value)), name
        except InvalidOperation:
            raise NormalizeError(f"{SOURCE}: {name} is {value!r}, not a number") from None
    return None, ""


def _unit(data: dict[str, Any], expected: str, what: str) -> None:
    unit = str(data.get("ChargeUnit") or "")
    if unit.upper() != expected:
        raise NormalizeError(f"{SOURCE}: {what} is charged per {unit or 'nothing stated'}, not per {expected}")


def bandwidth_quote(item: dict[str, Any]) -> PriceQuote | str:
    data, region = item["data"], str(item["region"])
    _unit(data, "GB", f"internet egress in {region}")
    price, _ = _first_price(data, "UnitPriceDiscount", "UnitPrice")
    if not price:
        return f"{SOURCE}: internet egress in {region} has no price per GB; skipped"
    listed, _ = _first_price(data, "UnitPrice")
    attrs = {"zone": str(data.get("zone") or "")}
    if listed is not None:
        attrs["list_price"] = format(listed.normalize(), "f")
    return side_quote(
        "tencent",
        region,
        "internet_egress",
        price=price,
        currency=str(item.get("currency") or "CNY"),
        unit=Unit.gb,
        source_url=str(item.get("source_url") or ""),
        observed_at=parse_time(item["observed_at"]),
        attrs=attrs,
    )


def disk_quote(item: dict[str, Any]) -> PriceQuote | str:
    data, region = item["data"], str(item["region"])
    disk_type = str(data.get("disk_type") or "")
    _unit(data, "HOUR", f"disk {disk_type} in {region}")
    hourly, field = _first_price(data, "UnitPriceDiscountHigh", "UnitPriceDiscount", "UnitPrice")
    size = Decimal(str(data.get("disk_gb") or 0))
    if not hourly or size <= 0:
        return f"{SOURCE}: disk {disk_type} in {region} has no hourly price; skipped"
    return side_quote(
        "tencent",
        region,
        "disk",
        what=disk_type,
        price=per_gb_month(hourly, size),
        currency=str(item.get("currency") or "CNY"),
        unit=Unit.gb_month,
        source_url=str(item.get("source_url") or ""),
        observed_at=parse_time(item["observed_at"]),
        attrs={
            "hour_price": format(hourly.normalize(), "f"),
            "hour_price_field": field,
            "disk_gb": format(size.normalize(), "f"),
            "hours_per_month": str(HOURS_PER_MONTH),
        },
    )


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    for item in items:
        kind = item.get("kind")
        if kind == "tencent.side_bandwidth":
            found = bandwidth_quote(item)
        elif kind == "tencent.side_disk":
            found = disk_quote(item)
        else:
            raise NormalizeError(f"{SOURCE}: unknown item kind {kind!r}")
        if isinstance(found, str):
            out.notes.append(found)
        else:
            out.quotes.append(found)
    return out
