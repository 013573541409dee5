"""What the `alibaba.side_price` items mean (source `alibaba-side-costs`,
spiders/alibaba/side_costs.py): ECS `DescribePrice` answers of a bandwidth
and of a disk inquiry.

- `asked` bandwidth: the pay-by-traffic price per GB, internet egress, one
  tier;
- `asked` disk: one pay-as-you-go disk of `disk_gb` GiB an hour
  (`PriceUnit=Hour`), over its size, times 730 hours: the price per
  GB-month; the hourly price and the size are kept in attrs; named by its
  category and performance level ("disk cloud_essd PL1");
- the price is the line's `TradePrice` (the price paid), its
  `OriginalPrice` kept as `list_price`. An answer with no lines is read at
  its order total, which attrs `price_basis` says; one whose lines price
  something else, one with no price or a price of 0, and an inquiry the API
  could not price (`alibaba.api.unpriced`: PriceNotFound ...) are skipped
  with a note."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from db.schema import PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.side_costs import HOURS_PER_MONTH, per_gb_month, side_quote

SOURCE = "alibaba-side-costs"


def _number(value: Any, what: str) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise NormalizeError(f"{SOURCE}: {what} is {value!r}, not a number") from None


def _what(data: dict[str, Any]) -> str:
    if data.get("asked") == "bandwidth":
        return "internet egress"
    return " ".join(filter(None, ("disk", str(data.get("category") or ""), str(data.get("performance_level") or ""))))


def side_price(item: dict[str, Any]) -> PriceQuote | str:
    data, region = item["data"], str(item["region"])
    what = f"{_what(data)} in {region}"
    if item.get("kind") == "alibaba.api.unpriced":
        return f"{SOURCE}: {what}: DescribePrice answered {data.get('code')}: {data.get('message')}; skipped"
    if data.get("basis") == "unknown":
        lines = ", ".join(data.get("resources") or [])
        return f"{SOURCE}: {what}: the answer's price lines are for {lines}, none the one asked; skipped"
    price = _number(data.get("price"), f"TradePrice of {what}")
    if not price:
        return f"{SOURCE}: {what} has no price; skipped"
    listed = _number(data.get("list_price"), f"OriginalPrice of {what}")
    attrs = {"list_price": format(listed.normalize(), "f")} if listed is not None else {}
    if data.get("basis") == "total":
        attrs["price_basis"] = "order total"
    common: dict[str, Any] = {
        "currency": str(data.get("currency") or "CNY"),
        "source_url": str(item.get("source_url") or ""),
        "observed_at": parse_time(item["observed_at"]),
    }
    if data.get("asked") == "bandwidth":
        return side_quote("alibaba", region, "internet_egress", price=price, unit=Unit.gb, attrs=attrs, **common)
    if data.get("asked") != "disk":
        raise NormalizeError(f"{SOURCE}: an answer to an inquiry of {data.get('asked')!r}")
    size = _number(data.get("disk_gb"), f"the size of {what}") or Decimal(0)
    if size <= 0:
        return f"{SOURCE}: {what} has no size; skipped"
    if "list_price" in attrs:  # of the disk an hour, as the price below
        attrs["list_hour_price"] = attrs.pop("list_price")
    attrs.update(hour_price=format(price.normalize(), "f"), disk_gb=format(size.normalize(), "f"))
    attrs["hours_per_month"] = str(HOURS_PER_MONTH)
    return side_quote(
        "alibaba",
        region,
        "disk",
        what=_what(data).removeprefix("disk "),
        price=per_gb_month(price, size),
        unit=Unit.gb_month,
        attrs=attrs,
        **common,
    )


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    for item in items:
        if item.get("kind") not in ("alibaba.side_price", "alibaba.api.unpriced"):
            raise NormalizeError(f"{SOURCE}: unknown item kind {item.get('kind')!r}")
        if not isinstance(item.get("data"), dict):
            raise NormalizeError(f"{SOURCE}: an item has no data record")
        found = side_price(item)
        if isinstance(found, str):
            out.notes.append(found)
        else:
            out.quotes.append(found)
    return out
