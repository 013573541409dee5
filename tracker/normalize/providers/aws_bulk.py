"""What the AWS bulk offer items mean (`aws.offer_product`: one GPU product
with its OnDemand and Reserved terms). Savings plan items
(`aws.savings_plan`) are read by tracker/normalize/providers/aws_savings.py.

- A Reserved term is 1yr or 3yr, standard or convertible, No / Partial / All
  Upfront. Its "Hrs" dimension is the hourly rate (0 for All Upfront) and its
  "Quantity" dimension the upfront fee: they are kept apart, as `price` (unit
  hour) and `upfront_fee`, and the effective hourly rate spreads the fee over
  the term. payment_option is `no_upfront`, `partial_upfront` or
  `all_upfront`, prefixed `convertible_` for convertible reservations.
- OnDemand terms are stored for the China regions only, whose prices the
  pricing-page tables do not carry; elsewhere the `aws` source has them.
- Currency is whatever the price dimension names: USD, or CNY in China.

## Savings plans

What the AWS savings plan items mean (`aws.savings_plan`: one plan, Compute
or EC2 Instance, with its kept GPU rates); called from aws_reserved.

- A rate is the effective hourly price of one instance type and operating
  system under the plan (the commitment is in money per hour, and the rate
  already spreads any upfront part): stored as `price` with unit hour, and
  no upfront_fee.
- payment_option is `no_upfront`, `partial_upfront` or `all_upfront`,
  prefixed `compute_` (Compute Savings Plans) or `ec2_instance_` (EC2
  Instance Savings Plans), as reservations are prefixed `convertible_`;
  term is 1yr or 3yr.
- Older files leave out a rate's discountedInstanceType, currency or unit:
  the type is the usage type's after ':', the unit is hours (every kept rate
  is BoxUsage, billed by the hour), and the currency that of the index the
  file came from: USD for the global one, CNY for China, which bills in
  nothing else. A rate without a currency from elsewhere is an error.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any, cast

from db.schema import PriceModel, PriceQuote, Unit
from spiders.aws.items import (
    AwsBulkItem,
    AwsPlanItem,
    AwsProductItem,
    OfferProduct,
    PlanRate,
    PriceDimension,
    SavingsPlan,
    Term,
)
from spiders.aws.names import OPERATIONS, usage_instance_type
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.providers.aws import os_slug, spec_fields, unknown_gpu_notes

CHINA_REGIONS = frozenset({"cn-north-1", "cn-northwest-1"})
TERMS = {"1yr", "3yr"}
PAYMENT = {"No Upfront": "no_upfront", "Partial Upfront": "partial_upfront", "All Upfront": "all_upfront"}
CLASSES = {"standard": "", "convertible": "convertible_"}


def _money(dimension: PriceDimension, where: str) -> tuple[Decimal, str]:
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


def term_prices(term: Term, where: str) -> tuple[Decimal, Decimal | None, str]:
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


def reserved_variant(term: Term, where: str) -> dict[str, Any]:
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


def variants(region: str, record: OfferProduct, where: str) -> list[dict[str, Any]]:
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


def normalize(items: Iterable[AwsBulkItem]) -> Normalized:
    out = Normalized()
    plans: list[AwsPlanItem] = []
    for item in items:
        # `kind` says which record `data` is.
        if item.get("kind") == "aws.savings_plan":
            plans.append(cast(AwsPlanItem, item))
            continue
        if item.get("kind") != "aws.offer_product":
            raise NormalizeError(f"AWS: unknown item kind {item.get('kind')!r}")
        product = cast(AwsProductItem, item)
        record = product["data"]
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


PLAN_TYPES = {"ComputeSavingsPlans": "compute_", "EC2InstanceSavingsPlans": "ec2_instance_"}
PURCHASE_OPTIONS = {"No Upfront": "no_upfront", "Partial Upfront": "partial_upfront", "All Upfront": "all_upfront"}
TERMS = {"1yr", "3yr"}
PARTITION_CURRENCY = {"aws": "USD", "aws-cn": "CNY"}
SYSTEMS = {code: os_slug(name) for name, code in OPERATIONS.items()}


def plan_term(record: SavingsPlan, where: str) -> str:
    """1yr or 3yr, from purchaseTerm or leaseContractLength (which must agree)."""
    named = (record.get("attributes") or {}).get("purchaseTerm")
    lease = record.get("leaseContractLength") or {}
    leased = None
    if lease:
        if str(lease.get("unit", "")).lower() not in ("year", "years"):
            raise NormalizeError(f"AWS: {where}: unknown lease length {lease!r}")
        leased = f"{lease.get('duration')}yr"
    if named and leased and named != leased:
        raise NormalizeError(f"AWS: {where}: purchaseTerm {named!r} and leaseContractLength {leased!r} differ")
    term = named or leased
    if term not in TERMS:
        raise NormalizeError(f"AWS: {where}: unknown savings plan term {term!r}")
    return str(term)


def plan_variant(record: SavingsPlan, where: str) -> dict[str, Any]:
    family = record.get("productFamily")
    option = (record.get("attributes") or {}).get("purchaseOption")
    if family not in PLAN_TYPES or option not in PURCHASE_OPTIONS:
        raise NormalizeError(f"AWS: {where}: unknown savings plan {family!r} {option!r}")
    return {
        "price_model": PriceModel.savings_plan,
        "term": plan_term(record, where),
        "payment_option": PLAN_TYPES[str(family)] + PURCHASE_OPTIONS[str(option)],
    }


def rate_fields(rate: PlanRate, item: AwsPlanItem, where: str) -> dict[str, Any]:
    """instance_type, os, region, price and currency of one kept rate."""
    usage = str(rate.get("discountedUsageType", ""))
    from_usage = usage_instance_type(usage)
    instance_type = rate.get("discountedInstanceType") or from_usage
    if not instance_type or (from_usage and instance_type != from_usage):
        raise NormalizeError(
            f"AWS: {where}: rate {rate.get('rateCode')} names instance type "
            f"{rate.get('discountedInstanceType')!r} for usage type {usage!r}"
        )
    where = f"{where}, {instance_type}"
    operation = rate.get("discountedOperation")
    if operation not in SYSTEMS:
        raise NormalizeError(f"AWS: {where}: unknown operation {operation!r}")
    if rate.get("unit", "Hrs") != "Hrs":
        raise NormalizeError(f"AWS: {where}: unknown rate unit {rate.get('unit')!r}")
    money = rate.get("discountedRate") or {}
    try:
        price = to_decimal(money.get("price"), what="savings plan rate")
    except MoneyError as exc:
        raise NormalizeError(f"AWS: {where}: {exc}") from None
    if price <= 0:
        raise NormalizeError(f"AWS: {where}: savings plan rate {money.get('price')!r} is not a positive amount")
    currency = money.get("currency") or PARTITION_CURRENCY.get(str(item.get("partition")))
    if not currency:
        raise NormalizeError(
            f"AWS: {where}: the rate names no currency, and partition {item.get('partition')!r} implies none"
        )
    region = str(rate.get("discountedRegionCode") or item["region"])
    return {
        "instance_type": str(instance_type),
        "os": SYSTEMS[str(operation)],
        "region": region,
        "price": price,
        "currency": str(currency),
    }


def savings_plan_quotes(items: Iterable[AwsPlanItem]) -> list[PriceQuote]:
    """One quote per plan type, term, purchase option, instance type, OS and
    region. The same one listed twice is kept once if the rates agree, and is
    an error if they do not."""
    kept: dict[str, PriceQuote] = {}
    for item in items:
        record = item["data"]
        where = f"savings plan {record.get('sku')} ({item.get('region')})"
        variant = plan_variant(record, where)
        observed = parse_time(item["observed_at"])
        for rate in record.get("rates") or []:
            fields = rate_fields(rate, item, where)
            specs, _ = spec_fields(fields["instance_type"])
            quote = make_quote(
                "aws",
                unit=Unit.hour,
                source_url=item["source_url"],
                observed_at=observed,
                attrs={"sku": str(record.get("sku", "")), "rate_code": str(rate.get("rateCode", ""))},
                **specs,
                **fields,
                **variant,
            )
            seen = kept.setdefault(quote.key, quote)
            if seen.price != quote.price:
                raise NormalizeError(
                    f"AWS: {where}: {quote.instance_type} ({quote.os}) has two "
                    f"{quote.payment_option} {quote.term} rates, {seen.price} and {quote.price}"
                )
    return list(kept.values())
