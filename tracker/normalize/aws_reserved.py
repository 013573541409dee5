"""What the AWS bulk offer items mean (`aws.offer_product`: one GPU product
with its OnDemand and Reserved terms). Savings plan items
(`aws.savings_plan`) are read by tracker/normalize/aws_savings.py.

- A Reserved term is 1yr or 3yr, standard or convertible, No / Partial / All
  Upfront. Its "Hrs" dimension is the hourly rate (0 for All Upfront) and its
  "Quantity" dimension the upfront fee: they are kept apart, as `price` (unit
  hour) and `upfront_fee`, and the effective hourly rate spreads the fee over
  the term. payment_option is `no_upfront`, `partial_upfront` or
  `all_upfront`, prefixed `convertible_` for convertible reservations.
- OnDemand terms are stored for the China regions only, whose prices the
  pricing-page tables do not carry; elsewhere the `aws` source has them.
- Currency is whatever the price dimension names: USD, or CNY in China.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.aws import os_slug, spec_fields, unknown_gpu_notes
from tracker.normalize.aws_savings import savings_plan_quotes
from tracker.normalize.money import MoneyError, to_decimal

CHINA_REGIONS = frozenset({"cn-north-1", "cn-northwest-1"})
TERMS = {"1yr", "3yr"}
PAYMENT = {"No Upfront": "no_upfront", "Partial Upfront": "partial_upfront", "All Upfront": "all_upfront"}
CLASSES = {"standard": "", "convertible": "convertible_"}


def _money(dimension: dict[str, Any], where: str) -> tuple[Decimal, str]:
    prices = dimension.get("pricePerUnit") or {}
    if len(prices) != 1:
        raise NormalizeError(f"AWS: {where}: expected one currency in pricePerUnit, found {sorted(prices) or 'none'}")
    ((currency, amount),) = prices.items()
    try:
        value = to_decimal(amount, what="price")
    except MoneyError as exc:
        raise NormalizeError(f"AWS: {where}: {exc}") from None
    if value < 0:
        raise NormalizeError(f"AWS: {where}: negative price {amount!r}")
    return value, currency


def term_prices(term: dict[str, Any], where: str) -> tuple[Decimal, Decimal | None, str]:
    """(hourly rate, upfront fee or None, currency) of one term."""
    hourly: list[tuple[Decimal, str]] = []
    upfront: list[tuple[Decimal, str]] = []
    for dimension in term["priceDimensions"].values():
        unit = dimension.get("unit")
        if unit == "Hrs":
            hourly.append(_money(dimension, where))
        elif unit == "Quantity":
            upfront.append(_money(dimension, where))
        else:
            raise NormalizeError(f"AWS: {where}: unknown price unit {unit!r}")
    if len(hourly) != 1 or len(upfront) > 1:
        raise NormalizeError(
            f"AWS: {where}: expected one hourly rate and at most one upfront fee, "
            f"found {len(hourly)} and {len(upfront)}"
        )
    currencies = {c for _, c in hourly + upfront}
    if len(currencies) != 1:
        raise NormalizeError(f"AWS: {where}: the rate and the fee are in different currencies")
    return hourly[0][0], (upfront[0][0] if upfront else None), currencies.pop()


def reserved_variant(term: dict[str, Any], where: str) -> dict[str, Any]:
    attrs = term.get("termAttributes") or {}
    length, cls, option = attrs.get("LeaseContractLength"), attrs.get("OfferingClass"), attrs.get("PurchaseOption")
    if length not in TERMS or cls not in CLASSES or option not in PAYMENT:
        raise NormalizeError(f"AWS: {where}: unknown reservation {length!r} {cls!r} {option!r}")
    hourly, fee, currency = term_prices(term, where)
    return {
        "price_model": PriceModel.reserved,
        "term": length,
        "payment_option": CLASSES[cls] + PAYMENT[option],
        "price": hourly,
        "upfront_fee": fee,
        "currency": currency,
    }


def variants(region: str, record: dict[str, Any], where: str) -> list[dict[str, Any]]:
    out = [reserved_variant(t, where) for t in record["terms"].get("Reserved", [])]
    if region in CHINA_REGIONS:
        for term in record["terms"].get("OnDemand", []):
            hourly, fee, currency = term_prices(term, where)
            if fee is not None or hourly <= 0:
                raise NormalizeError(f"AWS: {where}: an on-demand term with an upfront fee or no rate")
            out.append({"price_model": PriceModel.on_demand, "price": hourly, "currency": currency})
    return out


def product_os(attrs: dict[str, Any]) -> str:
    software = attrs.get("preInstalledSw", "NA")
    name = str(attrs.get("operatingSystem", ""))
    return os_slug(name if software in ("NA", "", None) else f"{name} with {software}")


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    plans: list[dict[str, Any]] = []
    for item in items:
        if item.get("kind") == "aws.savings_plan":
            plans.append(item)
            continue
        if item.get("kind") != "aws.offer_product":
            raise NormalizeError(f"AWS: unknown item kind {item.get('kind')!r}")
        record = item["data"]
        attrs = record.get("attributes") or {}
        instance_type = str(attrs.get("instanceType", ""))
        region = str(attrs.get("regionCode") or item["region"])
        where = f"SKU {record.get('sku')} ({instance_type}, {region})"
        fields, _ = spec_fields(
            instance_type,
            {
                "vCPU": attrs.get("vcpu", ""),
                "Memory": attrs.get("memory"),
                "Network Performance": attrs.get("networkPerformance"),
            },
        )
        observed = parse_time(item["observed_at"])
        for variant in variants(region, record, where):
            out.quotes.append(
                PriceQuote(
                    provider="aws",
                    region=region,
                    instance_type=instance_type,
                    os=product_os(attrs),
                    unit=Unit.hour,
                    source_url=item["source_url"],
                    observed_at=observed,
                    attrs={"sku": str(record.get("sku", ""))},
                    **fields,
                    **variant,
                )
            )
    out.quotes.extend(savings_plan_quotes(plans))
    out.notes.extend(unknown_gpu_notes(q.instance_type for q in out.quotes))
    return out
