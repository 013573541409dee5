"""What DigitalOcean's GPU Droplet sizes mean.

A size with `gpu_info` is a GPU Droplet: `gpu_info.count` GPUs of
`gpu_info.model` (`nvidia_h100`, `amd_mi300x` ...) with `gpu_info.vram` of
memory in all. `price_hourly` is the on-demand price in USD; DigitalOcean
bills by the hour up to `price_monthly` a month (kept in attrs as
`monthly_cap`). A size is priced in each of its `regions`, where it can be
created now (availability "available"); a size marked not `available`, or in
no region, is named in the run notes. A row of gpu_specs/digitalocean.csv
wins over the figures derived from the size (it adds the interconnect). A
size whose price or GPU cannot be read is skipped with a note.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from db.schema import PriceModel, PriceQuote
from spiders.digitalocean.items import DropletSize, DropletSizeItem
from tracker.normalize import Normalized, NormalizeError, spec_quote
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import GpuSpec, lookup

# gpu_info.model -> our GPU model name
GPU_MODELS = {
    "nvidia_h100": "H100",
    "nvidia_h200": "H200",
    "nvidia_l40s": "L40S",
    "nvidia_rtx4000_ada": "RTX 4000 Ada",
    "nvidia_rtx6000_ada": "RTX 6000 Ada",
    "amd_mi300x": "MI300X",
    "amd_mi325x": "MI325X",
}
VRAM_UNITS = {"gib": Decimal(1), "gb": Decimal(1)}


def derived_spec(size: DropletSize) -> GpuSpec:
    info = size.get("gpu_info")
    if not isinstance(info, dict):
        raise NormalizeError(f"its gpu_info is {info!r}")
    model = GPU_MODELS.get(str(info.get("model")))
    if model is None:
        raise NormalizeError(f"its GPU model {info.get('model')!r} is not one we know")
    count = info.get("count")
    if not isinstance(count, int) or count <= 0:
        raise NormalizeError(f"its gpu_info.count is {count!r}")
    vram = stated if isinstance(stated := info.get("vram"), dict) else {}
    unit = VRAM_UNITS.get(str(vram.get("unit", "")).lower())
    amount = vram.get("amount")
    memory = size.get("memory")
    return GpuSpec(
        instance_type=str(size["slug"]),
        gpu_model=model,
        gpu_count=Decimal(count),
        gpu_memory_gb=Decimal(amount) * unit if isinstance(amount, int) and unit else None,
        vcpu=Decimal(size["vcpus"]) if isinstance(size.get("vcpus"), int) else None,
        memory_gb=(Decimal(memory) / 1024).normalize() if isinstance(memory, int) else None,
        gpu_interconnect="PCIe" if count == 1 else None,
        network_gbps=None,
    )


def size_quotes(item: DropletSizeItem, regions: set[str]) -> list[PriceQuote]:
    size = item["data"]
    spec = lookup("digitalocean", str(size["slug"])) or derived_spec(size)
    price = to_decimal(size.get("price_hourly"), what="price_hourly")
    if price <= 0:
        raise NormalizeError(f"its price_hourly is {price}")
    where = size.get("regions")
    if not isinstance(where, list) or not all(isinstance(r, str) for r in where):
        raise NormalizeError("its regions are not a list of region slugs")
    attrs = {}
    if size.get("price_monthly") is not None:
        attrs["monthly_cap"] = str(to_decimal(size["price_monthly"], what="price_monthly"))
    if size.get("description"):
        attrs["description"] = str(size["description"])
    return [
        spec_quote(
            "digitalocean",
            item,
            spec,
            region=region,
            price_model=PriceModel.on_demand,
            price=price,
            currency="USD",
            availability="available",
            attrs=attrs,
        )
        for region in where
        if region and (not regions or region in regions)
    ]


def normalize(items: Iterable[DropletSizeItem]) -> Normalized:
    out = Normalized()
    read = 0
    for item in items:
        read += 1
        size = item["data"]
        slug = size.get("slug")
        if size.get("available") is False:
            out.notes.append(f"digitalocean: size {slug} is listed as not available for new Droplets")
            continue
        try:
            quotes = size_quotes(item, set(item.get("regions") or []))
        except (NormalizeError, MoneyError) as exc:
            out.notes.append(f"digitalocean: size {slug} skipped: {exc}")
            continue
        if not size.get("regions"):
            out.notes.append(f"digitalocean: size {slug} can be created in no region now")
        out.quotes.extend(quotes)
    if read and not out.quotes and not any("not available" in n or "no region" in n for n in out.notes):
        raise NormalizeError(
            f"DigitalOcean: none of the {read} GPU sizes read could be priced; " + "; ".join(out.notes[:3])
        )
    return out
