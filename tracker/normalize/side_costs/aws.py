"""What the `aws.side_product` items mean (source `aws-side-costs`,
spiders/aws/side_costs.py): one product of the bulk price list with its
OnDemand terms.

- "AWS Outbound" to "External": internet egress; each price dimension is a
  tier, beginRange/endRange in GB a month ("Inf": no upper bound), stored as
  a row of its own ("internet egress, first 10 TB");
- "InterRegion Outbound": inter-region transfer to `toRegionCode` (one row
  per destination); "IntraRegion": inter-zone transfer;
- `volumeApiName` gp3: EBS gp3 storage, unit GB-Mo -> `gb_month`;
- usage type `...PublicIPv4:InUseAddress`: a public IPv4 address, unit Hrs.

A dimension's unit must be the one its kind is billed in (GB, GB-Mo, Hrs):
another is refused, never converted by guess."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from db.schema import PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.providers.aws_bulk import _money
from tracker.normalize.side_costs import side_quote

UNITS = {"GB": Unit.gb, "GB-Mo": Unit.gb_month, "Hrs": Unit.hour}


def kind_of(attrs: dict[str, Any]) -> tuple[str, str, Unit] | None:
    """(side cost kind, what beside it, unit) of a product; None: not kept."""
    transfer = attrs.get("transferType")
    if transfer == "AWS Outbound" and attrs.get("toLocation") == "External":
        return "internet_egress", "", Unit.gb
    if transfer == "InterRegion Outbound":
        return "inter_region", f"to {attrs.get('toRegionCode') or attrs.get('toLocation', '?')}", Unit.gb
    if transfer == "IntraRegion":
        return "inter_zone", "", Unit.gb
    if attrs.get("volumeApiName") == "gp3":
        return "disk", "gp3", Unit.gb_month
    if str(attrs.get("usagetype", "")).endswith("PublicIPv4:InUseAddress"):
        return "public_ip", "", Unit.hour
    return None


def _bound(text: str, where: str) -> Decimal | None:
    if text in ("Inf", ""):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        raise NormalizeError(f"AWS: {where}: range bound {text[:40]!r} is not a number") from None


def product_quotes(item: dict[str, Any]) -> list[PriceQuote]:
    record, region = item["data"], item["region"]
    attrs = record.get("attributes") or {}
    found = kind_of(attrs)
    if found is None:
        return []
    kind, what, unit = found
    if attrs.get("fromRegionCode", region) != region:
        return []  # a transfer into this region, billed where it leaves
    where = f"{region} {record.get('sku', '?')}"
    observed, url = parse_time(item["observed_at"]), str(item.get("source_url") or "")
    quotes = []
    for term in record["terms"].get("OnDemand") or []:
        for dimension in (term.get("priceDimensions") or {}).values():
            stated = str(dimension.get("unit", ""))
            if UNITS.get(stated) != unit:
                raise NormalizeError(f"AWS: {where}: a {kind} priced per {stated!r}, not per {unit.value}")
            price, currency = _money(dimension, where)
            start = _bound(str(dimension.get("beginRange", "0")), where) or Decimal(0)
            end = _bound(str(dimension.get("endRange", "Inf")), where)
            quotes.append(
                side_quote(
                    "aws",
                    region,
                    kind,
                    what=what,
                    price=price,
                    currency=currency,
                    unit=unit,
                    tier=(start, end) if unit == Unit.gb else (Decimal(0), None),
                    source_url=url,
                    observed_at=observed,
                    attrs={"sku": str(record.get("sku", ""))},
                )
            )
    return quotes


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    seen: set[str] = set()
    for item in items:
        if item.get("kind") != "aws.side_product":
            raise NormalizeError(f"aws-side-costs: unknown item kind {item.get('kind')!r}")
        try:
            quotes = product_quotes(item)
        except KeyError as exc:
            raise NormalizeError(f"aws-side-costs: a product lacks {exc}") from None
        for quote in quotes:
            if quote.key in seen:
                out.notes.append(f"aws-side-costs: {quote.region} {quote.instance_type} stated twice; the first kept")
                continue
            seen.add(quote.key)
            out.quotes.append(quote)
    return out
