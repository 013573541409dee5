"""What Volcano Engine's price table means.

- `PriceInfoList` Period `hourly` is the on-demand price per hour; `monthly`
  with Times 1 (or no Times) is the monthly subscription, term 1mo; Times 12
  (24, 36) is the subscription for that many years, priced for the term as
  public clients of the page read it. Other multiples are not stored.
  Prices are in CNY, the only currency the China site's table uses.
- vCPU and memory come from the template's AbilityAttrs where it states them;
  the GPU from gpu_specs/volcengine.csv.
- Availability: the template lists, per configuration and region, the zones
  that sell it. Zones listed: available; the configuration listed in the
  region with no zone: sold out; not listed: unknown.
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


def _times(value: object) -> int | None:
    text = str(1 if value in (None, "") else value)
    return int(text) if text.isdigit() else None


def _variant(entry: dict[str, Any], configuration: str, notes: list[str]) -> dict[str, Any] | None:
    """The entry as a price, or None for one we do not store (an odd one
    with a note: one bad entry never fails the whole table)."""
    period, times = str(entry.get("Period")), _times(entry.get("Times"))
    if period == "hourly":
        model, term, unit = PriceModel.on_demand, "", Unit.hour
    elif period == "monthly":
        if times == 1:
            model, term, unit = PriceModel.monthly, "1mo", Unit.month
        elif times and times % 12 == 0:
            years = times // 12
            model, term, unit = PriceModel.yearly, f"{years}yr", Unit.year if years == 1 else Unit.term
        else:
            return None
    else:
        raise NormalizeError(f"Volcano Engine: unknown Period {period!r} for {configuration}")
    try:
        price = to_decimal(entry.get("Price"), what=f"{period} Price")
    except MoneyError as exc:
        raise NormalizeError(f"Volcano Engine: {exc} for {configuration}") from None
    if price <= 0:
        notes.append(f"volcengine: {period} price {entry.get('Price')!r} of {configuration} is not a price; skipped")
        return None
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
        zones = data.get("zones")
        availability = None if not isinstance(zones, list) else ("available" if zones else "sold_out")
        region = str(data.get("Region", ""))
        for entry in data.get("PriceInfoList") or []:
            variant = _variant(entry, configuration, out.notes)
            if variant is None:
                continue
            out.quotes.append(
                PriceQuote(
                    provider="volcengine",
                    region=region,
                    instance_type=configuration,
                    currency=CURRENCY,
                    availability=availability,
                    source_url=item["source_url"],
                    observed_at=observed,
                    **fields,
                    **variant,
                )
            )
    out.notes.extend(f"volcengine: no GPU spec for {t}; stored without GPU fields" for t in sorted(unknown))
    return out
