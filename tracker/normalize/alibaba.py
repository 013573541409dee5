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
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

PERIODS = {
    "hours": (PriceModel.on_demand, "", Unit.hour),
    "months": (PriceModel.monthly, "1mo", Unit.month),
    "years": (PriceModel.yearly, "1yr", Unit.year),
}


def _period_one(entries: list[dict[str, Any]], what: str) -> Any | None:
    found = [e["price"] for e in entries if str(e.get("period")) == "1"]
    if len(found) > 1 and len(set(map(str, found))) > 1:
        raise NormalizeError(f"Alibaba: two {what} prices for period 1: {', '.join(map(str, found))}")
    return found[0] if found else None


def _price_variants(data: dict[str, Any]) -> list[dict[str, Any]]:
    variants = []
    for field, (model, term, unit) in PERIODS.items():
        raw = _period_one(data.get(field) or [], field)
        if raw is None or str(raw).strip() == "":
            continue
        price = to_decimal(raw, what=f"{field} price")
        if price <= 0:
            raise NormalizeError(f"Alibaba: {field} price {raw!r} is not a positive amount")
        variants.append({"price_model": model, "term": term, "unit": unit, "price": price})
    return variants


def _spot_variant(data: dict[str, Any]) -> dict[str, Any]:
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


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    unknown: set[str] = set()
    for item in items:
        data = item["data"]
        instance_type = str(data.get("instance_type", ""))
        if item["kind"] == "alibaba.price":
            if data.get("network") != "vpc" or data.get("io") != "optimized":
                continue
            currency, os_name = str(item.get("currency", "")), str(data.get("os", "linux")).lower()
            try:
                variants = _price_variants(data)
            except MoneyError as exc:
                raise NormalizeError(f"Alibaba: {exc} for {instance_type} in {data.get('region')}") from None
        elif item["kind"] == "alibaba.spot":
            currency, os_name = str(data.get("Currency", "")), "linux"
            try:
                variants = [_spot_variant(data)]
            except MoneyError as exc:
                raise NormalizeError(f"Alibaba DescribePrice: {exc} for {instance_type}") from None
        else:
            raise NormalizeError(f"Alibaba: unknown item kind {item['kind']!r}")
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
    out.notes.extend(f"alibaba: no GPU spec for {t}; stored without GPU fields" for t in sorted(unknown))
    return out
