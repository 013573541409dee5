"""What Volcano Engine's price table means.

- `PriceInfoList` Period `hourly` is the on-demand price per hour; `monthly`
  with Times 1 (or no Times) is the monthly subscription, term 1mo. Entries
  for several months at once are not stored. Prices are in CNY, the only
  currency the China site's table uses.
- vCPU and memory come from the template's AbilityAttrs where it states them;
  the GPU from gpu_specs/volcengine.csv.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

CURRENCY = "CNY"
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)")


def _leading_number(text: str | None) -> Decimal | None:
    match = _NUMBER.match(text or "")
    return Decimal(match.group(1)) if match else None


def _variant(entry: dict[str, Any], configuration: str) -> dict[str, Any] | None:
    period, times = str(entry.get("Period")), str(entry.get("Times", 1))
    if period == "hourly":
        model, term, unit = PriceModel.on_demand, "", Unit.hour
    elif period == "monthly":
        if times != "1":
            return None
        model, term, unit = PriceModel.monthly, "1mo", Unit.month
    else:
        raise NormalizeError(f"Volcano Engine: unknown Period {period!r} for {configuration}")
    try:
        price = to_decimal(entry.get("Price"), what=f"{period} Price")
    except MoneyError as exc:
        raise NormalizeError(f"Volcano Engine: {exc} for {configuration}") from None
    if price <= 0:
        raise NormalizeError(
            f"Volcano Engine: {period} Price {entry.get('Price')!r} for {configuration} is not a positive amount"
        )
    return {"price_model": model, "term": term, "unit": unit, "price": price}


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    unknown: set[str] = set()
    for item in items:
        data = item["data"]
        configuration = str(data.get("configuration", ""))
        spec = lookup("volcengine", configuration)
        fields: dict[str, Any] = spec.as_fields() if spec else {}
        if spec is None:
            unknown.add(configuration)
        abilities = data.get("abilities") or {}
        for name, key in (("vcpu", "vcpu"), ("memory", "memory_gb")):
            stated = _leading_number(abilities.get(name))
            if stated is not None:
                fields[key] = stated
        observed = parse_time(item["observed_at"])
        for entry in data.get("PriceInfoList") or []:
            variant = _variant(entry, configuration)
            if variant is None:
                continue
            out.quotes.append(
                PriceQuote(
                    provider="volcengine",
                    region=str(data.get("Region", "")),
                    instance_type=configuration,
                    currency=CURRENCY,
                    source_url=item["source_url"],
                    observed_at=observed,
                    **fields,
                    **variant,
                )
            )
    out.notes.extend(f"volcengine: no GPU spec for {t}; stored without GPU fields" for t in sorted(unknown))
    return out
