"""What the Huawei Cloud official API answers mean (huawei-api).

- ECS `ListFlavors`: a GPU flavor's vCPUs and memory (MiB), its GPU from
  `pci_passthrough:alias` ("nvidia-t4:1"); the spec table's names win when it
  knows the flavor. `cond:operation:az` gives each zone's sale state (normal,
  sellout...), `cond:operation:status` the flavor's.
- BSS `ListOnDemandResourceRatings` for one hour is on demand per hour;
  `ListRateOnPeriodDetail` for one month or one year is 1mo / 1yr. The paid
  price is `amount` (on demand) or the best optional discount (periods), the
  list price `official_website_amount`; all in yuan, Linux images.
- On-demand prices are stored once per zone the flavor lists, with its state;
  period prices once per region with the flavor's own state.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, Unit
from tracker.normalize import Normalized, NormalizeError, zone_quotes
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

VARIANTS = {
    "on_demand": (PriceModel.on_demand, "", Unit.hour),
    "1mo": (PriceModel.monthly, "1mo", Unit.month),
    "1yr": (PriceModel.yearly, "1yr", Unit.year),
}
MIB = Decimal(1024)


def _fields(flavor: dict[str, Any] | None, name: str) -> dict[str, Any]:
    spec = lookup("huawei", name)
    fields: dict[str, Any] = dict(spec.as_fields()) if spec else {}
    if not flavor:
        return fields
    if flavor.get("vcpu"):
        fields["vcpu"] = to_decimal(flavor["vcpu"], what="vcpus")
    if flavor.get("memory_mib"):
        fields["memory_gb"] = to_decimal(flavor["memory_mib"], what="ram") / MIB
    if flavor.get("gpu_count"):
        fields["gpu_count"] = to_decimal(flavor["gpu_count"], what="pci_passthrough:alias")
    if not fields.get("gpu_model") and flavor.get("gpu_model"):
        fields["gpu_model"] = str(flavor["gpu_model"])
    return fields


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    flavors: dict[tuple[str, str], dict[str, Any]] = {}
    prices: list[dict[str, Any]] = []
    for item in items:
        data, kind = item.get("data"), item.get("kind")
        if not isinstance(data, dict):
            raise NormalizeError("huawei-api: an item has no data record")
        if kind == "huawei.api.flavor":
            flavors[str(item["region"]), str(data["flavor"])] = data
        elif kind == "huawei.api.price":
            prices.append(item)
        else:
            raise NormalizeError(f"huawei-api: unknown item kind {kind!r}")
    unknown: set[str] = set()
    for item in prices:
        data, region = item["data"], str(item["region"])
        name, variant = str(data["flavor"]), str(data["variant"])
        if variant not in VARIANTS:
            raise NormalizeError(f"huawei-api: unknown price variant {variant!r}")
        model, term, unit = VARIANTS[variant]
        flavor = flavors.get((region, name))
        try:
            price = to_decimal(data["price"], what="amount")
            listed = to_decimal(data["list_price"], what="official_website_amount") if data.get("list_price") else None
            fields = _fields(flavor, name)
        except MoneyError as exc:
            raise NormalizeError(f"huawei-api: {exc} for {name} in {region}") from None
        if price <= 0:
            out.notes.append(f"huawei-api: {name} ({variant}) in {region} is priced {price}; skipped")
            continue
        if fields.get("gpu_model") is None:
            unknown.add(name)
        status = flavor.get("status") if flavor else None
        zones = list((flavor or {}).get("zones", {}).items()) if variant == "on_demand" else []
        out.quotes.extend(
            zone_quotes(
                "huawei",
                zones or [("", status)],
                item,
                list_price=listed,
                region=region,
                instance_type=name,
                price_model=model,
                term=term,
                unit=unit,
                price=price,
                currency=str(item.get("currency") or "CNY"),
                **fields,
            )
        )
    out.notes.extend(f"huawei-api: no GPU model for {t}; stored without one" for t in sorted(unknown))
    return out
