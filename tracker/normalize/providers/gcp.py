"""What the Cloud Billing Catalog's Compute Engine SKUs mean.

GCP sells a GPU machine as parts: each vCPU, each GiB of RAM and each GPU is a
SKU with an hourly rate per region and per price model (`usageType`
OnDemand, Preemptible, Commit1Yr, Commit3Yr). A machine's price is built here:

    vCPUs x core rate + RAM GiB x RAM rate + GPUs x GPU rate

with the machine's figures from gpu_specs/gcp.csv. Each part is also stored as
a quote of its own (`gpu:nvidia-tesla-a100` per GPU-hour, `cpu:a2` per
vCPU-hour, `ram:a2` per GiB-hour), and every machine quote names its part
rates and SKUs in `attrs`, so a change of one GPU SKU shows as that part's
change beside the machines it moved.

A SKU is recognised by its description, stripped of the price-model wording
("Spot Preemptible", "Commitment v1:", "running in <place>", "for 1 Year"),
against the vocabulary below; anything else (licences, DWS, sole tenancy,
reservations, custom shapes) is ignored. A rate is `units` + `nanos`/1e9 of
the tier that starts at 0 usage; a shape we cannot read is an error.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.specs import GpuSpec, spec_table

# Description (lower case, price-model wording removed) -> accelerator name.
GPU_SKUS = {
    "nvidia tesla a100 gpu": "nvidia-tesla-a100",
    "nvidia tesla a100 80gb gpu": "nvidia-a100-80gb",
    "nvidia a100 80gb gpu": "nvidia-a100-80gb",
    "nvidia h100 80gb gpu": "nvidia-h100-80gb",
    "nvidia h100 80gb mega gpu": "nvidia-h100-mega-80gb",
    "nvidia h200 141gb gpu": "nvidia-h200-141gb",
    "nvidia b200 gpu": "nvidia-b200",
    "a4 nvidia b200 (1 gpu slice)": "nvidia-b200",
    "nvidia l4 gpu": "nvidia-l4",
    "nvidia tesla t4 gpu": "nvidia-tesla-t4",
    "nvidia tesla v100 gpu": "nvidia-tesla-v100",
    "nvidia tesla p4 gpu": "nvidia-tesla-p4",
    "nvidia tesla p100 gpu": "nvidia-tesla-p100",
}
# The family words of core and RAM SKUs -> our family name. Commitments drop
# "Instance" (and N1's "N1 Predefined"): "Commitment v1: A2 Cpu in Americas".
FAMILY_WORDS = {"a2": "a2", "a3": "a3", "a3 ultra": "a3-ultra", "a4": "a4", "g2": "g2", "n1 predefined": "n1"}
COMMIT_FAMILY_WORDS = {"a2": "a2", "a3": "a3", "a3 ultra": "a3-ultra", "a4": "a4", "g2": "g2", "": "n1"}

# Machine type prefix -> (core/RAM family, accelerator). N1 shapes name their
# accelerator: n1-standard-8+nvidia-tesla-t4x1.
MACHINE_PARTS = {
    "a2-highgpu": ("a2", "nvidia-tesla-a100"),
    "a2-megagpu": ("a2", "nvidia-tesla-a100"),
    "a2-ultragpu": ("a2", "nvidia-a100-80gb"),
    "a3-highgpu": ("a3", "nvidia-h100-80gb"),
    "a3-megagpu": ("a3", "nvidia-h100-mega-80gb"),
    "a3-ultragpu": ("a3-ultra", "nvidia-h200-141gb"),
    "a4-highgpu": ("a4", "nvidia-b200"),
    "g2-standard": ("g2", "nvidia-l4"),
}
N1_SHAPE = re.compile(r"^n1-[a-z]+-\d+\+(?P<gpu>nvidia-[a-z0-9-]+)x\d+$")

USAGE_TYPES = {"OnDemand": "on_demand", "Preemptible": "spot", "Commit1Yr": "1yr", "Commit3Yr": "3yr"}
PRICE_MODELS = {
    "on_demand": (PriceModel.on_demand, ""),
    "spot": (PriceModel.spot, ""),
    "1yr": (PriceModel.reserved, "1yr"),
    "3yr": (PriceModel.reserved, "3yr"),
}
USAGE_UNITS = {"gpu": "h", "cpu": "h", "ram": "GiBy.h"}
PART_UNITS = {"gpu": "GPU", "cpu": "vCPU", "ram": "GiB"}

_PART = re.compile(r"(?P<family>.+) instance (?P<resource>core|ram)")
_COMMIT_PART = re.compile(r"(?:(?P<family>.+) )?(?P<resource>cpu|ram)")
_PLACE = re.compile(r"^(?P<what>.+?) (?:running )?in (?P<place>.+?)(?: for [13] years?)?$")
_NANOS = Decimal(10) ** 9


@dataclass(frozen=True)
class Part:
    kind: str  # gpu, cpu or ram
    name: str  # nvidia-tesla-a100, a2 ...
    model: str  # on_demand, spot, 1yr, 3yr
    region: str
    rate: Decimal
    currency: str
    sku_id: str
    source_url: str
    observed_at: str

    @property
    def instance_type(self) -> str:
        return f"{self.kind}:{self.name}"


def recognise(description: str, usage_type: str) -> tuple[str, str] | None:
    """(kind, name) of a machine-part SKU, or None for any other SKU."""
    text = " ".join(description.lower().split())
    commitment = text.startswith(("commitment v1: ", "commitment: "))
    text = text.split(": ", 1)[1] if commitment else text
    spot = text.startswith(("spot preemptible ", "preemptible ")) or " attached to spot preemptible vms" in text
    text = text.removeprefix("spot preemptible ").removeprefix("preemptible ")
    text = text.replace(" attached to spot preemptible vms", "")
    found = _PLACE.match(text)
    what = found.group("what") if found else text
    shape, words = (_COMMIT_PART, COMMIT_FAMILY_WORDS) if commitment else (_PART, FAMILY_WORDS)
    part = shape.fullmatch(what)
    family = words.get(part.group("family") or "") if part else None
    if what in GPU_SKUS:
        result = "gpu", GPU_SKUS[what]
    elif part is not None and family is not None:
        result = ("ram" if part.group("resource") == "ram" else "cpu"), family
    else:
        return None
    if commitment != usage_type.startswith("Commit") or (spot and usage_type != "Preemptible"):
        raise NormalizeError(f"GCP: SKU {description!r} does not agree with its usageType {usage_type!r}")
    return result


def unit_price(sku: dict[str, Any]) -> tuple[Decimal, str, str]:
    """(rate, currency, usage unit) of the tier that applies from 0 usage."""
    sku_id = sku.get("skuId")
    infos = sku.get("pricingInfo")
    if not isinstance(infos, list) or len(infos) != 1:
        raise NormalizeError(
            f"GCP: SKU {sku_id} has {len(infos) if isinstance(infos, list) else 'no'} pricingInfo entries, expected one"
        )
    expression = infos[0].get("pricingExpression") if isinstance(infos[0], dict) else None
    tiers = expression.get("tieredRates") if isinstance(expression, dict) else None
    if not isinstance(tiers, list) or not tiers:
        raise NormalizeError(f"GCP: SKU {sku_id} has no tieredRates")
    first = [t for t in tiers if isinstance(t, dict) and _number(t.get("startUsageAmount", 0), sku_id) == 0]
    if len(first) != 1:
        raise NormalizeError(f"GCP: SKU {sku_id} has {len(first)} tiers starting at 0 usage, expected one")
    price = first[0].get("unitPrice")
    currency = price.get("currencyCode") if isinstance(price, dict) else None
    if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
        raise NormalizeError(f"GCP: SKU {sku_id} has no unitPrice with a currencyCode")
    units = _number(price.get("units", "0"), sku_id)
    nanos = _number(price.get("nanos", 0), sku_id)
    if (
        units != units.to_integral_value()
        or nanos != nanos.to_integral_value()
        or abs(nanos) >= _NANOS
        or (units > 0 > nanos)
        or (units < 0 < nanos)
    ):
        raise NormalizeError(
            f"GCP: SKU {sku_id} has an unreadable price: units {price.get('units')!r}, nanos {price.get('nanos')!r}"
        )
    rate = units + nanos / _NANOS
    return Decimal(format(rate.normalize(), "f")), currency, str(expression.get("usageUnit"))


def _number(value: object, sku_id: object) -> Decimal:
    try:
        if isinstance(value, bool) or not isinstance(value, (int, str, Decimal)):
            raise InvalidOperation
        number = Decimal(str(value))
        if not number.is_finite():
            raise InvalidOperation
        return number
    except InvalidOperation:
        raise NormalizeError(f"GCP: SKU {sku_id} has {value!r} where a number belongs") from None


def read_parts(items: Iterable[dict[str, Any]]) -> tuple[dict[tuple[str, str, str, str], Part], int]:
    """The machine parts by (kind, name, price model, region), and the number
    of SKUs read. Two different rates for one part are ambiguous: an error."""
    parts: dict[tuple[str, str, str, str], Part] = {}
    count = 0
    for item in items:
        count += 1
        sku = item["data"]
        category = sku.get("category") if isinstance(sku, dict) else None
        model = USAGE_TYPES.get(str(category.get("usageType"))) if isinstance(category, dict) else None
        if model is None:
            continue
        found = recognise(str(sku.get("description", "")), str(category.get("usageType")))
        if found is None:
            continue
        kind, name = found
        rate, currency, usage_unit = unit_price(sku)
        if usage_unit != USAGE_UNITS[kind]:
            raise NormalizeError(
                f"GCP: SKU {sku.get('skuId')} ({sku.get('description')}) is priced per "
                f"{usage_unit!r}, expected {USAGE_UNITS[kind]!r}"
            )
        wanted = set(item.get("regions") or [])
        regions = sku.get("serviceRegions")
        if not isinstance(regions, list) or not all(isinstance(r, str) for r in regions):
            raise NormalizeError(f"GCP: SKU {sku.get('skuId')} has no list of serviceRegions")
        for region in regions:
            if wanted and region not in wanted:
                continue
            part = Part(
                kind,
                name,
                model,
                region,
                rate,
                currency,
                str(sku.get("skuId")),
                item["source_url"],
                item["observed_at"],
            )
            key = (kind, name, model, part.region)
            seen = parts.get(key)
            if seen is not None and (seen.rate, seen.currency) != (rate, currency):
                raise NormalizeError(
                    f"GCP: two {model} prices for {part.instance_type} in {region}: {seen.rate} "
                    f"(SKU {seen.sku_id}) and {rate} (SKU {part.sku_id})"
                )
            parts.setdefault(key, part)
    return parts, count


def machine_parts(instance_type: str) -> tuple[str, str]:
    """(core/RAM family, accelerator) of a machine type in the spec table."""
    shape = N1_SHAPE.match(instance_type)
    if shape:
        return "n1", shape.group("gpu")
    prefix = "-".join(instance_type.split("-")[:2])
    if prefix not in MACHINE_PARTS:
        raise NormalizeError(f"GCP: the spec table lists {instance_type}, but no parts are known for it")
    return MACHINE_PARTS[prefix]


def _quote(part: Part, price: Decimal, model: str, **fields: Any) -> PriceQuote:
    price_model, term = PRICE_MODELS[model]
    return PriceQuote(
        provider="gcp",
        region=part.region,
        price_model=price_model,
        term=term,
        price=price,
        currency=part.currency,
        unit=Unit.hour,
        source_url=part.source_url,
        observed_at=parse_time(part.observed_at),
        **fields,
    )


def machine_quote(spec: GpuSpec, core: Part, ram: Part, gpu: Part) -> PriceQuote:
    if len({core.currency, ram.currency, gpu.currency}) != 1:
        raise NormalizeError(
            f"GCP: the parts of {spec.instance_type} in {core.region} are priced in different currencies"
        )
    if spec.vcpu is None or spec.memory_gb is None or spec.gpu_count is None:
        raise NormalizeError(f"GCP: the spec table lacks vCPU, RAM or GPU count for {spec.instance_type}")
    price = spec.vcpu * core.rate + spec.memory_gb * ram.rate + spec.gpu_count * gpu.rate
    attrs = {
        "core_rate": str(core.rate),
        "ram_rate": str(ram.rate),
        "gpu_rate": str(gpu.rate),
        "core_sku": core.sku_id,
        "ram_sku": ram.sku_id,
        "gpu_sku": gpu.sku_id,
        "formula": f"{spec.vcpu} x {core.rate} + {spec.memory_gb} x {ram.rate} + {spec.gpu_count} x {gpu.rate}",
    }
    return _quote(
        gpu,
        Decimal(format(price.normalize(), "f")),
        gpu.model,
        instance_type=spec.instance_type,
        attrs=attrs,
        **spec.as_fields(),
    )


def part_quote(part: Part) -> PriceQuote:
    return _quote(
        part,
        part.rate,
        part.model,
        instance_type=part.instance_type,
        attrs={"part": part.kind, "per": PART_UNITS[part.kind], "sku": part.sku_id},
    )


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    items = list(items)
    parts, count = read_parts(items)
    out = Normalized()
    missing: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    used: set[tuple[str, str, str, str]] = set()
    for spec in spec_table("gcp").values():
        family, accelerator = machine_parts(spec.instance_type)
        for (kind, name, model, region), gpu in sorted(parts.items()):
            if kind != "gpu" or name != accelerator:
                continue
            core_key, ram_key = ("cpu", family, model, region), ("ram", family, model, region)
            if core_key not in parts or ram_key not in parts:
                missing[(accelerator, family, model)].add(region)
                continue
            used.update({core_key, ram_key, (kind, name, model, region)})
            out.quotes.append(machine_quote(spec, parts[core_key], parts[ram_key], gpu))
    wanted = sorted({r for i in items for r in i.get("regions") or []})
    if not out.quotes and wanted and not parts:
        raise NormalizeError(
            f"GCP: no GPU machine part is priced in {', '.join(wanted)}; "
            "check the region names (for example us-central1)"
        )
    if not out.quotes:
        raise NormalizeError(
            f"GCP: no GPU machine could be priced from the {count} SKUs read; "
            "the catalogue's SKU descriptions may have changed"
        )
    out.quotes.extend(part_quote(parts[key]) for key in sorted(used))
    for (accelerator, family, model), regions in sorted(missing.items()):
        out.notes.append(
            f"gcp: {accelerator} ({model}) is priced in {', '.join(sorted(regions))}, but {family} "
            "cores or RAM are not; its machines are not built there"
        )
    return out
