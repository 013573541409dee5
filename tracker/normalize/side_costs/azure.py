"""What the `azure.side_meter` items mean (source `azure-side-costs`,
spiders/azure/side_costs.py): meters of the Retail Prices API.

- "Standard Data Transfer Out": internet egress, one row per tier; a tier
  starts at its `tierMinimumUnits` (GB a month) and ends where the next
  one starts;
- "Standard Inter-Region Data Transfer": inter-region transfer, per GB;
- a managed disk tier ("P30 LRS Disk", "E30 LRS Disk", unit "1/Month") is a
  price per disk a month: stored per GB-month, the month's price divided by
  the tier's size (`DISK_GIB`, Microsoft's table of disk sizes), the size
  and the disk's own price kept in attrs `disk_gb` and `disk_month_price`;
  LRS only;
- "Standard IPv4 Static Public IP": an address, per hour.

Only `type` Consumption meters count (no reservations, no dev/test)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.side_costs import side_quote

# Managed disk sizes in GiB by tier number (P30 and E30 alike).
DISK_GIB = {
    "1": 4, "2": 8, "3": 16, "4": 32, "6": 64, "10": 128, "15": 256, "20": 512,
    "30": 1024, "40": 2048, "50": 4096, "60": 8192, "70": 16384, "80": 32767,
}  # fmt: skip
DISK_METER = re.compile(r"^([PE])(\d+) LRS Disk$")
DISK_CLASS = {"P": "Premium SSD", "E": "Standard SSD"}


def _price(meter: dict[str, Any], where: str) -> Decimal:
    try:
        return to_decimal(meter["retailPrice"], what="price")
    except MoneyError as exc:
        raise NormalizeError(f"azure-side-costs: {where}: {exc}") from None


def region_quotes(region: str, meters: list[dict[str, Any]]) -> list[PriceQuote]:
    quotes: list[PriceQuote] = []
    egress: list[tuple[Decimal, Decimal, dict[str, Any]]] = []
    for item in meters:
        meter = item["data"]
        if meter.get("type", "Consumption") != "Consumption":
            continue
        name, where = str(meter.get("meterName", "")), f"{region} {meter.get('meterName', '?')}"
        common: dict[str, Any] = {
            "currency": str(meter.get("currencyCode") or "USD"),
            "source_url": str(item.get("source_url") or ""),
            "observed_at": parse_time(item["observed_at"]),
            "attrs": {"meter_id": str(meter.get("meterId", ""))},
        }
        if name == "Standard Data Transfer Out":
            egress.append((Decimal(str(meter.get("tierMinimumUnits") or 0)), _price(meter, where), common))
        elif name == "Standard Inter-Region Data Transfer":
            quotes.append(
                side_quote("azure", region, "inter_region", price=_price(meter, where), unit=Unit.gb, **common)
            )
        elif (match := DISK_METER.match(name)) and match.group(2) in DISK_GIB:
            size = Decimal(DISK_GIB[match.group(2)])
            month = _price(meter, where)
            common["attrs"] |= {"disk_gb": str(size), "disk_month_price": format(month.normalize(), "f")}
            what = f"{DISK_CLASS[match.group(1)]} {match.group(1)}{match.group(2)}"
            quotes.append(
                side_quote("azure", region, "disk", what=what, price=month / size, unit=Unit.gb_month, **common)
            )
        elif name == "Standard IPv4 Static Public IP":
            quotes.append(
                side_quote("azure", region, "public_ip", price=_price(meter, where), unit=Unit.hour, **common)
            )
    egress.sort(key=lambda t: t[0])
    for n, (start, price, common) in enumerate(egress):
        end = egress[n + 1][0] if n + 1 < len(egress) else None
        quotes.append(
            side_quote("azure", region, "internet_egress", price=price, unit=Unit.gb, tier=(start, end), **common)
        )
    return quotes


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    by_region: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        if item.get("kind") != "azure.side_meter":
            raise NormalizeError(f"azure-side-costs: unknown item kind {item.get('kind')!r}")
        by_region.setdefault(str(item["region"]), []).append(item)
    seen: set[str] = set()
    for region, meters in by_region.items():
        for quote in region_quotes(region, meters):
            if quote.key not in seen:
                seen.add(quote.key)
                out.quotes.append(quote)
    return out
