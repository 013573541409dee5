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


def _record_variants(item: dict[str, Any]) -> tuple[str, str, list[dict[str, Any]]] | None:
    """(currency, OS, price variants) of one item; None for keys not kept."""
    data = item["data"]
    instance_type = str(data.get("instance_type", ""))
    if item["kind"] == "alibaba.price":
        if data.get("network") != "vpc" or data.get("io") != "optimized":
            return None
        try:
            variants = _price_variants(data)
        except (MoneyError, NormalizeError) as exc:
            reason = str(exc).removeprefix("Alibaba: ")
            raise NormalizeError(f"Alibaba: {reason} for {instance_type} in {data.get('region')}") from None
        return str(item.get("currency", "")), str(data.get("os", "linux")).lower(), variants
    if item["kind"] == "alibaba.spot":
        try:
            return str(data.get("Currency", "")), "linux", [_spot_variant(data)]
        except MoneyError as exc:
            raise NormalizeError(f"Alibaba DescribePrice: {exc} for {instance_type}") from None
    raise NormalizeError(f"Alibaba: unknown item kind {item['kind']!r}")


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
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
