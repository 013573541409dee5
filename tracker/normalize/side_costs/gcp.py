"""What the `gcp.side_sku` items mean (source `gcp-side-costs`,
spiders/gcp/side_costs.py): Compute Engine SKUs of data sent and of disks,
placed by `category` (spiders/gcp/side_costs.py SIDE_GROUPS).

- A price is `units` + `nanos` / 10^9 of the latest pricingInfo; each of
  its tieredRates is a tier from `startUsageAmount` (in the usage unit, GiB
  a month for data) to the next tier's start;
- usage unit "GiBy" is a GB sent (`gb`), "GiBy.mo" a GB kept a month
  (`gb_month`); another unit is refused;
- the words beside the kind (the destination of data, the disk's group)
  come from the description's " to <place>" and the resourceGroup: they
  name a row, they never decide what it is;
- a SKU prices each of its `serviceRegions` that the crawl asked for."""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceQuote, Unit
from spiders.gcp.side_costs import side_group
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.side_costs import side_quote

UNITS = {"GiBy": Unit.gb, "GiBy.mo": Unit.gb_month}
DISK_WORDS = {"SSD": "pd-ssd", "PDStandard": "pd-standard"}
_TO = re.compile(r" to (?P<place>[A-Za-z][\w .-]*)$")


def _money(price: dict[str, Any], where: str) -> tuple[Decimal, str]:
    try:
        units = Decimal(str(price.get("units") or 0))
        nanos = Decimal(str(price.get("nanos") or 0))
    except ArithmeticError:
        raise NormalizeError(f"gcp-side-costs: {where}: unitPrice {price!r} is not a number") from None
    return units + nanos / Decimal(10**9), str(price.get("currencyCode") or "USD")


def sku_quotes(item: dict[str, Any]) -> list[PriceQuote]:
    sku = item["data"]
    kind = side_group(sku)
    if kind is None:
        return []
    where = str(sku.get("skuId", "?"))
    info = (sku.get("pricingInfo") or [{}])[-1]
    expression = info.get("pricingExpression") or {}
    unit = UNITS.get(str(expression.get("usageUnit", "")))
    if unit is None or (unit == Unit.gb_month) != (kind == "disk"):
        raise NormalizeError(f"gcp-side-costs: {where}: a {kind} priced per {expression.get('usageUnit')!r}")
    group = str(sku["category"].get("resourceGroup", ""))
    place = _TO.search(str(sku.get("description", "")))
    what = DISK_WORDS.get(group, "") if kind == "disk" else (f"to {place['place']}" if place else "")
    rates = sorted(expression.get("tieredRates") or [], key=lambda r: Decimal(str(r.get("startUsageAmount", 0))))
    wanted = set(item.get("regions") or [])
    regions = [r for r in sku.get("serviceRegions") or [] if not wanted or r in wanted]
    observed, url = parse_time(item["observed_at"]), str(item.get("source_url") or "")
    quotes = []
    for region in regions:
        for n, rate in enumerate(rates):
            price, currency = _money(rate.get("unitPrice") or {}, where)
            start = Decimal(str(rate.get("startUsageAmount", 0)))
            end = Decimal(str(rates[n + 1].get("startUsageAmount"))) if n + 1 < len(rates) else None
            quotes.append(
                side_quote(
                    "gcp",
                    region,
                    kind,
                    what=what,
                    price=price,
                    currency=currency,
                    unit=unit,
                    tier=(start, end) if unit == Unit.gb else (Decimal(0), None),
                    source_url=url,
                    observed_at=observed,
                    attrs={"sku": where},
                )
            )
    return quotes


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    seen: set[str] = set()
    for item in items:
        if item.get("kind") != "gcp.side_sku":
            raise NormalizeError(f"gcp-side-costs: unknown item kind {item.get('kind')!r}")
        for quote in sku_quotes(item):
            if quote.key in seen:
                continue  # a tier stated by two SKUs: the first kept
            seen.add(quote.key)
            out.quotes.append(quote)
    return out
