"""What an Azure Retail Prices item means.

- `type` Consumption is on demand, or spot / low priority by the skuName suffix;
  DevTestConsumption is skipped, as are the legacy "Cloud Services" products.
- A productName ending in " Windows" (or " Win") is the Windows licence price.
- A Reservation's retailPrice is the whole term's price, although its unit
  says "1 Hour": it is stored as a term price, and its hourly rate derived.
- `savingsPlan[]` entries are hourly prices for 1 and 3 year plans.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from db.kinds import PriceModel, Unit
from spiders.azure.items import AzureItem
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup, no_count_notes

TERMS = {"1 Year": "1yr", "3 Years": "3yr", "5 Years": "5yr"}


def _os(product: str) -> str:
    return "windows" if product.endswith((" Windows", " Win")) else "linux"


def _consumption_model(sku_name: str) -> PriceModel:
    if sku_name.endswith(" Spot"):
        return PriceModel.spot
    if sku_name.endswith(" Low Priority"):
        return PriceModel.low_priority
    return PriceModel.on_demand


def _term(raw: object, what: str) -> str:
    term = TERMS.get(str(raw))
    if term is None:
        raise NormalizeError(f"Azure: unknown {what} term {raw!r}")
    return term


def quotes_for(item: AzureItem) -> list[dict[str, Any]]:
    """The (price model, term, unit, price) variants one API item stands for."""
    data = item["data"]
    kind = data.get("type")
    product = str(data.get("productName", ""))
    if kind == "DevTestConsumption" or "Cloud Services" in product:
        return []
    price = to_decimal(data.get("retailPrice"), what="retailPrice")
    if kind == "Reservation":
        return [
            {
                "price_model": PriceModel.reserved,
                "term": _term(data.get("reservationTerm"), "reservation"),
                "unit": Unit.term,
                "price": price,
            }
        ]
    if kind != "Consumption":
        raise NormalizeError(f"Azure: unknown price type {kind!r} for {data.get('armSkuName')}")
    if data.get("unitOfMeasure") != "1 Hour":
        raise NormalizeError(f"Azure: unknown unit {data.get('unitOfMeasure')!r} for {data.get('armSkuName')}")
    variants = [
        {"price_model": _consumption_model(str(data.get("skuName", ""))), "term": "", "unit": Unit.hour, "price": price}
    ]
    plans = data.get("savingsPlan") or []
    if not isinstance(plans, list) or not all(isinstance(p, dict) for p in plans):
        raise NormalizeError(f"Azure: savingsPlan of {data.get('armSkuName')} is not a list of plans")
    for plan in plans:
        variants.append(
            {
                "price_model": PriceModel.savings_plan,
                "term": _term(plan.get("term"), "savings plan"),
                "unit": Unit.hour,
                "price": to_decimal(plan.get("retailPrice"), what="savingsPlan price"),
            }
        )
    return variants


def normalize(items: Iterable[AzureItem]) -> Normalized:
    out = Normalized()
    unknown: set[str] = set()
    known: set[str] = set()
    for item in items:
        data = item.get("data")
        if not isinstance(data, dict):
            raise NormalizeError("Azure: an item has no data record")
        instance_type = str(data.get("armSkuName", ""))
        try:
            variants = quotes_for(item)
        except MoneyError as exc:
            raise NormalizeError(f"Azure: {exc} for {instance_type}") from None
        if not variants:
            continue
        spec = lookup("azure", instance_type)
        (unknown if spec is None else known).add(instance_type)
        observed = parse_time(item["observed_at"])
        for variant in variants:
            out.quotes.append(
                make_quote(
                    "azure",
                    region=str(data.get("armRegionName") or item.get("region", "")),
                    instance_type=instance_type,
                    os=_os(str(data.get("productName", ""))),
                    currency=str(data.get("currencyCode", "USD")),
                    source_url=item["source_url"],
                    observed_at=observed,
                    **(spec.as_fields() if spec else {}),
                    **variant,
                )
            )
    out.notes.extend(f"azure: no GPU spec for {t}; stored without GPU fields" for t in sorted(unknown))
    out.notes.extend(no_count_notes("azure", known))
    return out
