"""What the AWS savings plan items mean (`aws.savings_plan`: one plan, Compute
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
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from spiders.aws_names import OPERATIONS, usage_instance_type
from tracker.normalize import NormalizeError, make_quote, parse_time
from tracker.normalize.aws import os_slug, spec_fields
from tracker.normalize.money import MoneyError, to_decimal

PLAN_TYPES = {"ComputeSavingsPlans": "compute_", "EC2InstanceSavingsPlans": "ec2_instance_"}
PURCHASE_OPTIONS = {"No Upfront": "no_upfront", "Partial Upfront": "partial_upfront", "All Upfront": "all_upfront"}
TERMS = {"1yr", "3yr"}
PARTITION_CURRENCY = {"aws": "USD", "aws-cn": "CNY"}
SYSTEMS = {code: os_slug(name) for name, code in OPERATIONS.items()}


def plan_term(record: dict[str, Any], where: str) -> str:
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


def plan_variant(record: dict[str, Any], where: str) -> dict[str, Any]:
    family = record.get("productFamily")
    option = (record.get("attributes") or {}).get("purchaseOption")
    if family not in PLAN_TYPES or option not in PURCHASE_OPTIONS:
        raise NormalizeError(f"AWS: {where}: unknown savings plan {family!r} {option!r}")
    return {
        "price_model": PriceModel.savings_plan,
        "term": plan_term(record, where),
        "payment_option": PLAN_TYPES[str(family)] + PURCHASE_OPTIONS[str(option)],
    }


def rate_fields(rate: dict[str, Any], item: dict[str, Any], where: str) -> dict[str, Any]:
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


def savings_plan_quotes(items: Iterable[dict[str, Any]]) -> list[PriceQuote]:
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
