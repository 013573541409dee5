"""What Verda's (formerly DataCrunch) instance types and availability mean.

`/instance-types` prices each type once, for every location: `price_per_hour`
(on demand) and `spot_price` (spot), in the `currency` asked for (USD).
`/instance-availability` names, per location, the types that can be deployed
now, once for on-demand and once for spot instances. So each GPU type is
quoted in every location of `/locations`, per price model, with availability
"available" when that answer lists it there and "sold_out" when not: "8 x
H100 available again in FIN-01" is a change a person can be told.

The GPU model is read from `gpu.description` ("8x H100 SXM5 80GB"); a row of
gpu_specs/verda.csv wins over the figures derived from the type (it adds the
interconnect). CPU-only types are not GPU offers and are left out; a GPU
type whose GPU or price cannot be read is skipped with a note.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, cast

from db.schema import PriceModel, PriceQuote
from spiders.verda.items import Availability, InstanceType, Location, VerdaItem, VerdaTypeItem
from tracker.normalize import Normalized, NormalizeError, spec_quote
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import GpuSpec, lookup

# gpu.description without its "<n>x " -> our GPU model name
GPU_MODELS = {
    "H100 SXM5 80GB": "H100",
    "H200 SXM5 141GB": "H200",
    "B200 SXM6 180GB": "B200",
    "B300 SXM6 262GB": "B300",
    "A100 SXM4 80GB": "A100 80GB",
    "A100 SXM4 40GB": "A100 40GB",
    "RTX 6000 Ada 48GB": "RTX 6000 Ada",
    "RTX6000 Ada 48GB": "RTX 6000 Ada",
    "RTX PRO 6000 96GB": "RTX PRO 6000",
    "RTX A6000 48GB": "RTX A6000",
    "Tesla V100 16GB": "V100",
    "L40S 48GB": "L40S",
}
_COUNTED = re.compile(r"^(?P<count>\d+)x (?P<model>.+)$")
PRICES = (("price_per_hour", PriceModel.on_demand, False), ("spot_price", PriceModel.spot, True))


def _size(part: Any, key: str) -> Decimal | None:
    value = part.get(key) if isinstance(part, dict) else None
    return Decimal(value) if isinstance(value, int) and not isinstance(value, bool) else None


def derived_spec(kind: InstanceType) -> GpuSpec:
    gpu = stated if isinstance(stated := kind.get("gpu"), dict) else {}
    found = _COUNTED.match(str(gpu.get("description", "")).strip())
    model = GPU_MODELS.get(found.group("model")) if found else None
    if found is None or model is None:
        raise NormalizeError(f"its GPU {gpu.get('description')!r} is not one we know")
    count = _size(gpu, "number_of_gpus")
    if count is None or count <= 0 or count != int(found.group("count")):
        raise NormalizeError(f"its number_of_gpus {gpu.get('number_of_gpus')!r} disagrees with {found.group(0)!r}")
    return GpuSpec(
        instance_type=str(kind["instance_type"]),
        gpu_model=model,
        gpu_count=count,
        gpu_memory_gb=_size(kind.get("gpu_memory"), "size_in_gigabytes"),
        vcpu=_size(kind.get("cpu"), "number_of_cores"),
        memory_gb=_size(kind.get("memory"), "size_in_gigabytes"),
        gpu_interconnect="PCIe" if count == 1 else None,
        network_gbps=None,
    )


def has_gpu(kind: InstanceType) -> bool:
    gpus = (kind.get("gpu") or {}).get("number_of_gpus") if isinstance(kind.get("gpu"), dict) else None
    return bool(gpus)


def type_quotes(item: VerdaTypeItem, locations: list[str], stock: dict[tuple[str, bool], set[str]]) -> list[PriceQuote]:
    kind = item["data"]
    spec = lookup("verda", str(kind["instance_type"])) or derived_spec(kind)
    currency = str(kind.get("currency") or "usd").upper()
    quotes = []
    for field, model, spot in PRICES:
        if kind.get(field) is None:
            continue
        price = to_decimal(kind.get(field), what=field)
        if price <= 0:
            if spot:
                continue  # no spot price offered for this type
            raise NormalizeError(f"its {field} is {price}")
        for location in locations:
            listed = spec.instance_type in stock.get((location, spot), set())
            quotes.append(
                spec_quote(
                    "verda",
                    item,
                    spec,
                    region=location,
                    price_model=model,
                    price=price,
                    currency=currency,
                    availability="available" if listed else "sold_out",
                )
            )
    if not quotes:
        raise NormalizeError("it states no price_per_hour")
    return quotes


def normalize(items: Iterable[VerdaItem]) -> Normalized:
    types: list[VerdaTypeItem] = []
    codes: list[str] = []
    stock: dict[tuple[str, bool], set[str]] = defaultdict(set)
    for item in items:
        # `kind` says which record `data` is.
        if item["kind"] == "verda.type":
            types.append(cast(VerdaTypeItem, item))
        elif item["kind"] == "verda.location":
            codes.append(str(cast(Location, item["data"])["code"]))
        elif item["kind"] == "verda.availability":
            data = cast(Availability, item["data"])
            stock[(str(data["location_code"]), bool(data["spot"]))].update(data["availabilities"])
    if not types:
        raise NormalizeError("Verda: the instance-types answer listed no type")
    wanted = set(types[0].get("regions") or [])
    locations = sorted(c for c in dict.fromkeys(codes + [loc for loc, _ in stock]) if not wanted or c in wanted)
    if not locations:
        raise NormalizeError(f"Verda: no location {'among ' + ', '.join(sorted(wanted)) if wanted else 'listed'}")
    out = Normalized()
    for entry in types:
        kind = entry["data"]
        if not has_gpu(kind):
            continue
        try:
            out.quotes.extend(type_quotes(entry, locations, stock))
        except (NormalizeError, MoneyError) as exc:
            out.notes.append(f"verda: type {kind.get('instance_type')} skipped: {exc}")
    if not out.quotes:
        raise NormalizeError("Verda: no GPU type could be priced; " + "; ".join(out.notes[:3]))
    return out
