"""What the Cloud Billing Catalog's Compute Engine SKUs mean.

GCP sells a GPU machine as parts: each vCPU, each GiB of RAM and each GPU is a
SKU with an hourly rate per region and per price model (`usageType`
OnDemand, Preemptible, Commit1Yr, Commit3Yr). A machine's price is built here:

    vCPUs x core rate + RAM GiB x RAM rate + GPUs x GPU rate

with the machine's figures from gpu_specs/gcp.csv. A4 has no core or RAM
SKUs: its GPU SKU is a slice, the whole machine's price per GPU, so an A4
machine is GPUs x slice rate. Each part is also stored as a quote of its own
(`gpu:nvidia-tesla-a100` per GPU-hour, `cpu:a2` per vCPU-hour, `ram:a2` per
GiB-hour), and every machine quote names its part rates and SKUs in
`attrs`, so a change of one GPU SKU shows as that part's change beside the
machines it moved.

Bundled Local SSD (a2-ultragpu, a3, a4 carry a fixed amount, which Google
bills with the machine) is stated beside the price, not in it: `price` stays
GPUs + cores + RAM, comparable with every other row. The machine's attrs say
`local_ssd_gib` (Google's machine tables) and, where the catalogue prices
Local SSD for that price model and region, `local_ssd_rate` (per GiB-hour:
the SKU's GiB-month rate over 730 hours, Google's own month) and
`local_ssd_hourly`, which `tco`, `recommend` and the report add.

SKU descriptions are read by rule (gcp_skus.py). A GPU SKU, or an
accelerator family's core or RAM SKU, that cannot be placed in a machine of
the spec table is named in the run's notes (how many, and which), never
dropped without a word. A rate is `units` + `nanos`/1e9 of the tier that
starts at 0 usage; a shape we cannot read is an error. Two rates for one
part in one region are ambiguous: that part's machines are skipped there
with a note, and keep their last price.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from spiders.gcp.items import GcpItem, Sku
from tracker.normalize import Held, Normalized, NormalizeError, parse_time
from tracker.normalize.providers.gcp_skus import Reading, Unplaced, accelerator_family, read
from tracker.normalize.specs import GpuSpec, spec_table

# Machine type prefix -> (core/RAM family, accelerator); family None: the GPU
# SKU is a slice that prices the whole machine. N1 shapes name their
# accelerator: n1-standard-8+nvidia-tesla-t4x1.
MACHINE_PARTS: dict[str, tuple[str | None, str]] = {
    "a2-highgpu": ("a2", "nvidia-tesla-a100"),
    "a2-megagpu": ("a2", "nvidia-tesla-a100"),
    "a2-ultragpu": ("a2", "nvidia-a100-80gb"),
    "a3-highgpu": ("a3", "nvidia-h100-80gb"),
    # A3 Mega is billed from its own "A3Plus Instance Core/Ram" SKUs.
    "a3-megagpu": ("a3plus", "nvidia-h100-mega-80gb"),
    "a3-ultragpu": ("a3ultra", "nvidia-h200-141gb"),
    "a4-highgpu": (None, "nvidia-b200"),
    "g2-standard": ("g2", "nvidia-l4"),
}
N1_SHAPE = re.compile(r"^n1-[a-z]+-\d+\+(?P<gpu>nvidia-[a-z0-9-]+)x\d+$")
# Bundled Local SSD, GiB, from Google's accelerator-optimized machine tables
# (compute/docs/accelerator-optimized-machines); A2 Standard, G2 and N1 have none.
BUNDLED_SSD_GIB = {
    "a2-ultragpu-1g": 375,
    "a2-ultragpu-2g": 750,
    "a2-ultragpu-4g": 1500,
    "a2-ultragpu-8g": 3000,
    "a3-highgpu-1g": 750,
    "a3-highgpu-2g": 1500,
    "a3-highgpu-4g": 3000,
    "a3-highgpu-8g": 6000,
    "a3-megagpu-8g": 6000,
    "a3-ultragpu-8g": 12000,
    "a4-highgpu-8g": 12000,
}
HOURS_PER_SSD_MONTH = Decimal(730)  # Google's month, as its per-hour pricing pages convert GiB-months
SSD_RATE_PLACES, NANO = Decimal("1e-12"), Decimal("1e-9")

USAGE_TYPES = {"OnDemand": "on_demand", "Preemptible": "spot", "Commit1Yr": "1yr", "Commit3Yr": "3yr"}
PRICE_MODELS = {
    "on_demand": (PriceModel.on_demand, ""),
    "spot": (PriceModel.spot, ""),
    "1yr": (PriceModel.reserved, "1yr"),
    "3yr": (PriceModel.reserved, "3yr"),
}
USAGE_UNITS = {"gpu": ("h",), "cpu": ("h",), "ram": ("GiBy.h",), "ssd": ("GiBy.mo", "GiBy.h")}
PART_UNITS = {"gpu": "GPU", "cpu": "vCPU", "ram": "GiB", "ssd": "GiB"}
_NANOS = Decimal(10) ** 9
EXAMPLES = 6


@dataclass(frozen=True)
class Part:
    kind: str  # gpu, cpu, ram or ssd
    name: str  # nvidia-tesla-a100, a2, local ...
    model: str  # on_demand, spot, 1yr, 3yr
    region: str
    rate: Decimal  # per usage unit and hour (Local SSD: per GiB-hour)
    currency: str
    sku_id: str
    source_url: str
    observed_at: str
    inclusive: bool = False  # a GPU slice: the whole machine per GPU

    @property
    def instance_type(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass
class Catalogue:
    """What the SKUs say: the parts by (kind, name, price model, region), and what could not be placed."""

    parts: dict[tuple[str, str, str, str], Part] = field(default_factory=dict)
    count: int = 0
    unplaced: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # why -> descriptions
    ambiguous: dict[tuple[str, str, str, str], str] = field(default_factory=dict)
    respotted: list[str] = field(default_factory=list)

    def unplace(self, why: str, description: str) -> None:
        self.unplaced[why].append(description)


def recognise(description: str, usage_type: str, group: str) -> tuple[str, str] | None:
    """(kind, name) of a machine-part SKU of resource group `group`, or None
    for any other SKU; a SKU whose wording contradicts its usage type is an error."""
    found = read(description, group)
    if not isinstance(found, Reading):
        return None
    if _disagrees(found, usage_type):
        raise NormalizeError(f"GCP: SKU {description!r} does not agree with its usageType {usage_type!r}")
    return found.kind, found.name


def _disagrees(found: Reading, usage_type: str) -> bool:
    """A commitment's wording on a non-commitment usage type (or the reverse),
    or spot wording on a commitment: the SKU says two things."""
    return found.commitment != usage_type.startswith("Commit") or (found.spot and usage_type.startswith("Commit"))


def unit_price(sku: Sku) -> tuple[Decimal, str, str]:
    """(rate, currency, usage unit) of the tier that applies from 0 usage."""
    sku_id = sku.get("skuId")
    infos = sku.get("pricingInfo")
    if not isinstance(infos, list) or len(infos) != 1:
        raise NormalizeError(
            f"GCP: SKU {sku_id} has {len(infos) if isinstance(infos, list) else 'no'} pricingInfo entries, expected one"
        )
    expression = infos[0].get("pricingExpression") if isinstance(infos[0], dict) else None
    tiers = expression.get("tieredRates") if isinstance(expression, dict) else None
    if not isinstance(expression, dict) or not isinstance(tiers, list) or not tiers:
        raise NormalizeError(f"GCP: SKU {sku_id} has no tieredRates")
    first = [t for t in tiers if isinstance(t, dict) and _number(t.get("startUsageAmount", 0), sku_id) == 0]
    if len(first) != 1:
        raise NormalizeError(f"GCP: SKU {sku_id} has {len(first)} tiers starting at 0 usage, expected one")
    price = first[0].get("unitPrice")
    currency = price.get("currencyCode") if isinstance(price, dict) else None
    if not isinstance(price, dict) or not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
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


def _machine_names() -> tuple[set[str], set[str]]:
    """The accelerators and the core/RAM families the spec table's machines use."""
    accelerators, families = set(), set()
    for instance_type in spec_table("gcp"):
        family, gpu = machine_parts(instance_type)
        accelerators.add(gpu)
        if family:
            families.add(family)
    return accelerators, families


def read_parts(items: Iterable[GcpItem]) -> Catalogue:
    """The machine parts the SKUs price, and what they name that cannot be placed."""
    out = Catalogue()
    accelerators, families = _machine_names()
    for item in items:
        out.count += 1
        sku = item["data"]
        category = sku.get("category") if isinstance(sku, dict) else None
        usage_type = str(category.get("usageType")) if isinstance(category, dict) else ""
        model = USAGE_TYPES.get(usage_type)
        if model is None or not isinstance(category, dict):
            continue
        description = str(sku.get("description", ""))
        found = read(description, str(category.get("resourceGroup")))
        if isinstance(found, Unplaced):
            out.unplace(found.why, found.what)
            continue
        if found is None:
            continue
        if found.kind == "gpu" and found.name not in accelerators:
            out.unplace(f"read as {found.name}, which no machine in gpu_specs/gcp.csv carries", description)
            continue
        if found.kind in ("cpu", "ram") and found.name not in families:
            if accelerator_family(found.name):
                out.unplace(f"family {found.name}, which no machine in gpu_specs/gcp.csv belongs to", description)
            continue
        if _disagrees(found, usage_type):
            out.unplace(f"its wording does not agree with its usageType {usage_type}", description)
            continue
        if found.spot and model == "on_demand":
            # The description says spot where the category says OnDemand (seen
            # on "Spot Preemptible A4 Nvidia B200 (1 gpu slice)"): the wording wins.
            model = "spot"
            out.respotted.append(description)
        _add_part(out, item, sku, found, model)
    return out


def _add_part(out: Catalogue, item: GcpItem, sku: Sku, found: Reading, model: str) -> None:
    rate, currency, usage_unit = unit_price(sku)
    if usage_unit not in USAGE_UNITS[found.kind]:
        raise NormalizeError(
            f"GCP: SKU {sku.get('skuId')} ({sku.get('description')}) is priced per "
            f"{usage_unit!r}, expected {' or '.join(map(repr, USAGE_UNITS[found.kind]))}"
        )
    if usage_unit == "GiBy.mo":
        rate = Decimal(_plain((rate / HOURS_PER_SSD_MONTH).quantize(SSD_RATE_PLACES)))
    wanted = set(item.get("regions") or [])
    regions = sku.get("serviceRegions")
    if not isinstance(regions, list) or not all(isinstance(r, str) for r in regions):
        raise NormalizeError(f"GCP: SKU {sku.get('skuId')} has no list of serviceRegions")
    for region in regions:
        if wanted and region not in wanted:
            continue
        part = Part(
            found.kind,
            found.name,
            model,
            region,
            rate,
            currency,
            str(sku.get("skuId")),
            item["source_url"],
            item["observed_at"],
            found.inclusive,
        )
        key = (found.kind, found.name, model, region)
        seen = out.parts.get(key)
        if seen is not None and (seen.rate, seen.currency) != (rate, currency):
            out.ambiguous[key] = f"{seen.rate} (SKU {seen.sku_id}) and {rate} (SKU {part.sku_id})"
        out.parts.setdefault(key, part)


def machine_parts(instance_type: str) -> tuple[str | None, str]:
    """(core/RAM family, accelerator) of a machine type in the spec table;
    family None where the GPU slice prices the whole machine."""
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


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def machine_quote(spec: GpuSpec, gpu: Part, core: Part | None, ram: Part | None, ssd: Part | None) -> PriceQuote:
    """The machine's price from its parts (`core` and `ram` None for a slice-priced machine)."""
    parts = [p for p in (core, ram, gpu) if p is not None]
    if len({p.currency for p in parts}) != 1:
        raise NormalizeError(
            f"GCP: the parts of {spec.instance_type} in {gpu.region} are priced in different currencies"
        )
    if spec.vcpu is None or spec.memory_gb is None or spec.gpu_count is None:
        raise NormalizeError(f"GCP: the spec table lacks vCPU, RAM or GPU count for {spec.instance_type}")
    attrs = {"gpu_rate": str(gpu.rate), "gpu_sku": gpu.sku_id}
    if core is not None and ram is not None:
        price = spec.vcpu * core.rate + spec.memory_gb * ram.rate + spec.gpu_count * gpu.rate
        attrs.update(core_rate=str(core.rate), ram_rate=str(ram.rate), core_sku=core.sku_id, ram_sku=ram.sku_id)
        attrs["formula"] = f"{spec.vcpu} x {core.rate} + {spec.memory_gb} x {ram.rate} + {spec.gpu_count} x {gpu.rate}"
    else:
        price = spec.gpu_count * gpu.rate
        attrs["formula"] = f"{spec.gpu_count} x {gpu.rate} (a GPU slice: the whole machine per GPU)"
    gib = BUNDLED_SSD_GIB.get(spec.instance_type)
    if gib:
        attrs["local_ssd_gib"] = str(gib)
        if ssd is not None and ssd.currency == gpu.currency:
            attrs.update(
                local_ssd_rate=str(ssd.rate),
                local_ssd_sku=ssd.sku_id,
                local_ssd_hourly=_plain((gib * ssd.rate).quantize(NANO)),
            )
    return _quote(
        gpu,
        Decimal(_plain(price)),
        gpu.model,
        instance_type=spec.instance_type,
        attrs=attrs,
        **spec.as_fields(),
    )


def part_quote(part: Part, gpu_models: dict[str, str]) -> PriceQuote:
    """A part's own rate; a GPU part names the GPU model of the machines it
    prices (no count: a part is not an instance, so it stays out of per-GPU rankings)."""
    return _quote(
        part,
        part.rate,
        part.model,
        instance_type=part.instance_type,
        gpu_model=gpu_models.get(part.name) if part.kind == "gpu" else None,
        attrs={"part": part.kind, "per": PART_UNITS[part.kind], "sku": part.sku_id},
    )


def part_models() -> dict[str, str]:
    """Accelerator name -> the GPU model of the spec table's machines that carry it."""
    return {
        machine_parts(spec.instance_type)[1]: spec.gpu_model
        for spec in spec_table("gcp").values()
        if spec.gpu_model is not None
    }


def _examples(descriptions: list[str]) -> str:
    distinct = sorted(set(descriptions))
    shown = ", ".join(f"'{d}'" for d in distinct[:EXAMPLES])
    return shown + (f" and {len(distinct) - EXAMPLES} more" if len(distinct) > EXAMPLES else "")


def normalize(items: Iterable[GcpItem]) -> Normalized:
    items = list(items)
    found = read_parts(items)
    parts = found.parts
    out = Normalized()
    missing: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    unpriced_ssd: dict[str, set[str]] = defaultdict(set)
    ambiguous_machines: dict[str, set[str]] = defaultdict(set)
    used: set[tuple[str, str, str, str]] = set()
    for spec in spec_table("gcp").values():
        family, accelerator = machine_parts(spec.instance_type)
        for (kind, name, model, region), gpu in sorted(parts.items()):
            if kind != "gpu" or name != accelerator:
                continue
            keys = [(kind, name, model, region)]
            if family is not None:
                keys += [("cpu", family, model, region), ("ram", family, model, region)]
            if any(k not in parts for k in keys):
                missing[(accelerator, family or "", model)].add(region)
                continue
            if any(k in found.ambiguous for k in keys):
                ambiguous_machines[spec.instance_type].add(region)
                price_model, term = PRICE_MODELS[model]
                out.held.append(Held(region, spec.instance_type, str(price_model), term))
                continue
            ssd_key = ("ssd", "local", model, region)
            ssd = parts.get(ssd_key) if ssd_key not in found.ambiguous else None
            if spec.instance_type in BUNDLED_SSD_GIB:
                if ssd is None:
                    unpriced_ssd[model].add(region)
                else:
                    keys.append(ssd_key)
            used.update(keys)
            core = parts[keys[1]] if family is not None else None
            ram = parts[keys[2]] if family is not None else None
            out.quotes.append(machine_quote(spec, gpu, core, ram, ssd))
    wanted = sorted({r for i in items for r in i.get("regions") or []})
    if not out.quotes and wanted and not parts:
        raise NormalizeError(
            f"GCP: no GPU machine part is priced in {', '.join(wanted)}; "
            "check the region names (for example us-central1)"
        )
    if not out.quotes:
        raise NormalizeError(
            f"GCP: no GPU machine could be priced from the {found.count} SKUs read; "
            "the catalogue's SKU descriptions may have changed"
        )
    models = part_models()
    out.quotes.extend(part_quote(parts[key], models) for key in sorted(used))
    out.notes.extend(_notes(found, missing, unpriced_ssd, ambiguous_machines))
    return out


def _notes(
    found: Catalogue,
    missing: dict[tuple[str, str, str], set[str]],
    unpriced_ssd: dict[str, set[str]],
    ambiguous: dict[str, set[str]],
) -> list[str]:
    notes = []
    for (accelerator, family, model), regions in sorted(missing.items()):
        lacking = f"{family} cores or RAM are" if family else "its machine is"
        notes.append(
            f"gcp: {accelerator} ({model}) is priced in {', '.join(sorted(regions))}, but {lacking} not; "
            "its machines are not built there"
        )
    total = sum(len(d) for d in found.unplaced.values())
    if total:
        reasons = "; ".join(f"{why}: {_examples(d)}" for why, d in sorted(found.unplaced.items()))
        notes.append(f"gcp: {total} GPU or accelerator-family SKUs could not be placed in a machine ({reasons})")
    if found.respotted:
        notes.append(
            f"gcp: {len(found.respotted)} SKUs described as Spot but with usageType OnDemand were read as spot: "
            f"{_examples(found.respotted)}"
        )
    for instance_type, regions in sorted(ambiguous.items()):
        notes.append(
            f"gcp: {instance_type} skipped in {', '.join(sorted(regions))}, its last price kept: "
            "a part has two rates there"
        )
    for key, rates in sorted(found.ambiguous.items()):
        notes.append(f"gcp: two {key[2]} rates for {key[0]}:{key[1]} in {key[3]}: {rates}")
    for model, regions in sorted(unpriced_ssd.items()):
        notes.append(
            f"gcp: no {model} Local SSD rate in {', '.join(sorted(regions))}: the bundled Local SSD of "
            "a2-ultragpu, a3 and a4 machines there is stated (local_ssd_gib) without a price"
        )
    return notes
