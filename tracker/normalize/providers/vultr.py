"""What Vultr's plans mean.

A Cloud GPU plan (`vcg-...`) is a whole GPU or a slice of one: `gpu_type`
names the card (`NVIDIA_A100`) and `gpu_vram_gb` the plan's share of its
memory, so a plan's GPU count is that share over the card's memory
(`vcg-a100-1c-6g-4vram`: 4 of an A100's 80 GB, 1/20 of the card). A
bare-metal plan states its GPUs in gpu_specs/vultr.csv. A row of that table
wins over what the API derives, for either kind.

Prices are USD: `hourly_cost` per hour (on demand), and for plans that state
one, `hourly_cost_preemptible` (spot, as Vultr calls preemptible instances).
Vultr bills by the hour up to `monthly_cost` a month, kept in attrs as
`monthly_cap`. A plan is priced in each of its `locations`, the regions it
can be deployed in now (availability "available"); a plan deployable nowhere
is named in the run notes. A plan whose price or GPU cannot be read is
skipped with a note; the rest of the provider is stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from db.schema import PriceModel, PriceQuote
from spiders.vultr.items import VultrItem, VultrPlan
from tracker.normalize import Normalized, NormalizeError, spec_quote
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import GpuSpec, lookup

# gpu_type -> (our GPU model name, memory of one card in GB)
GPU_TYPES: dict[str, tuple[str, int]] = {
    "NVIDIA_A100": ("A100 80GB", 80),
    "NVIDIA_A100_SXM": ("A100 80GB", 80),
    "NVIDIA_A40": ("A40", 48),
    "NVIDIA_A16": ("A16", 16),
    "NVIDIA_L40S": ("L40S", 48),
    "NVIDIA_H100": ("H100", 80),
    "AMD_MI300X": ("MI300X", 192),
}
PRICE_FIELDS = (
    ("hourly_cost", PriceModel.on_demand, "deploy_ondemand"),
    ("hourly_cost_preemptible", PriceModel.spot, "deploy_preemptible"),
)


def derived_spec(plan: VultrPlan) -> GpuSpec:
    """The plan's GPU figures from its own members (a NormalizeError when it
    names no GPU we know)."""
    plan_id = plan.get("id")
    gpu_type, vram = plan.get("gpu_type"), plan.get("gpu_vram_gb")
    if not isinstance(gpu_type, str) or gpu_type not in GPU_TYPES:
        raise NormalizeError(f"its GPU type {gpu_type!r} is not one we know (add it to gpu_specs/vultr.csv)")
    model, card = GPU_TYPES[gpu_type]
    share = to_decimal(vram, what="gpu_vram_gb")
    if share <= 0:
        raise NormalizeError(f"its gpu_vram_gb is {share}")
    # A slice's count is its share of the card (4 GB of 80: 0.05), as the spec tables write 1/6.
    count = Decimal(plan["gpu_count"]) if isinstance(plan.get("gpu_count"), int) else share / card
    ram = plan.get("ram")
    return GpuSpec(
        instance_type=str(plan_id),
        gpu_model=model,
        gpu_count=count.normalize(),
        gpu_memory_gb=share,
        vcpu=Decimal(plan["vcpu_count"]) if isinstance(plan.get("vcpu_count"), int) else None,
        memory_gb=(Decimal(ram) / 1024).normalize() if isinstance(ram, int) else None,
        gpu_interconnect="PCIe" if count <= 1 else None,
        network_gbps=None,
    )


def plan_spec(plan: VultrPlan) -> GpuSpec:
    spec = lookup("vultr", str(plan.get("id")))
    return spec if spec is not None else derived_spec(plan)


def plan_quotes(item: VultrItem, regions: set[str]) -> list[PriceQuote]:
    plan = item["data"]
    spec = plan_spec(plan)
    locations = plan.get("locations")
    if not isinstance(locations, list) or not all(isinstance(loc, str) for loc in locations):
        raise NormalizeError("its locations are not a list of region ids")
    quotes = []
    attrs = {"plan_kind": "bare metal" if item["kind"] == "vultr.metal" else "cloud gpu"}
    if plan.get("monthly_cost") is not None:
        attrs["monthly_cap"] = str(to_decimal(plan["monthly_cost"], what="monthly_cost"))
    for field, model, deployable in PRICE_FIELDS:
        if plan.get(field) is None or plan.get(deployable) is False:
            continue
        price = to_decimal(plan.get(field), what=field)
        if price <= 0:
            raise NormalizeError(f"its {field} is {price}")
        for region in locations:
            if not region or (regions and region not in regions):
                continue
            quotes.append(
                spec_quote(
                    "vultr",
                    item,
                    spec,
                    region=region,
                    price_model=model,
                    price=price,
                    currency="USD",
                    availability="available",
                    attrs=attrs,
                )
            )
    if plan.get("hourly_cost") is None and plan.get("hourly_cost_preemptible") is None:
        raise NormalizeError("it states no hourly_cost")
    return quotes


def normalize(items: Iterable[VultrItem]) -> Normalized:
    out = Normalized()
    read = 0
    for item in items:
        read += 1
        plan = item["data"]
        regions = set(item.get("regions") or [])
        try:
            quotes = plan_quotes(item, regions)
        except (NormalizeError, MoneyError) as exc:
            out.notes.append(f"vultr: plan {plan.get('id')} skipped: {exc}")
            continue
        if not plan.get("locations"):
            out.notes.append(f"vultr: plan {plan.get('id')} is listed but deployable in no region now")
        out.quotes.extend(quotes)
    if read and not out.quotes:
        raise NormalizeError(f"Vultr: none of the {read} GPU plans read could be priced; " + "; ".join(out.notes[:3]))
    return out
