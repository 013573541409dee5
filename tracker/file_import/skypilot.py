"""SkyPilot catalog rows (`<cloud>_vms.csv`): InstanceType, AcceleratorName,
AcceleratorCount, vCPUs, MemoryGiB, GpuInfo, Price, SpotPrice, Region,
AvailabilityZone. One row per zone; the on-demand price is the region's (so
it is stored once per region), the spot price the zone's. An empty price
means the model is not offered there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from db.schema import PriceModel, PriceQuote, Unit
from tracker.file_import.rows import quotes_by_line
from tracker.normalize import Normalized, NormalizeError
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import lookup

# SkyPilot's accelerator names -> the canonical gpu_model names.
GPU_NAMES = {
    "A100": "A100 40GB",
    "A100-80GB": "A100 80GB",
    "V100": "V100",
    "V100-32GB": "V100 32GB",
    "H100": "H100",
    "H100-MEGA": "H100",
    "H200": "H200",
    "B200": "B200",
    "L4": "L4",
    "L40S": "L40S",
    "T4": "T4",
    "A10": "A10",
    "A10G": "A10G",
    "K80": "K80",
    "M60": "M60",
    "P100": "P100",
    "P4": "P4",
    "A30": "A30",
    "MI300X": "MI300X",
}
# The columns of a catalog, in the order SkyPilot's fetchers write them; the
# export (tracker/analytics/outputs/catalogs.py) writes these.
COLUMNS = (
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Price",
    "SpotPrice",
    "Region",
    "AvailabilityZone",
)
REQUIRED = ("InstanceType", "Price", "SpotPrice", "Region")


def _optional(value: str | None, what: str) -> Decimal | None:
    """The cell as a Decimal; SkyPilot writes counts as floats, '8.0' -> 8."""
    text = (value or "").strip()
    if not text:
        return None
    number = to_decimal(text, what=what)
    return number.quantize(Decimal(1)) if number == number.to_integral_value() else number


def _gpu_memory(info: str | None) -> Decimal | None:
    """TotalGpuMemoryInMiB of the GpuInfo cell (a Python literal), in GB."""
    text = (info or "").strip()
    if not text:
        return None
    try:
        parsed = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise MoneyError(f"GpuInfo {text[:40]!r} is not readable") from None
    total = parsed.get("TotalGpuMemoryInMiB") if isinstance(parsed, dict) else None
    return None if total is None else Decimal(total) / 1024


def _quotes(provider: str, row: dict[str, str], observed: object) -> list[PriceQuote]:
    instance_type = row["InstanceType"].strip()
    accelerator = (row.get("AcceleratorName") or "").strip()
    spec = lookup(provider, instance_type)
    fields: dict[str, Any] = (
        spec.as_fields()
        if spec
        else {
            "gpu_model": GPU_NAMES.get(accelerator, accelerator.replace("-", " ")) or None,
            "gpu_count": _optional(row.get("AcceleratorCount"), "AcceleratorCount"),
            "gpu_memory_gb": _gpu_memory(row.get("GpuInfo")),
            "vcpu": _optional(row.get("vCPUs"), "vCPUs"),
            "memory_gb": _optional(row.get("MemoryGiB"), "MemoryGiB"),
        }
    )
    common = dict(
        provider=provider,
        region=row["Region"].strip(),
        instance_type=instance_type,
        currency="USD",
        unit=Unit.hour,
        observed_at=observed,
        attrs={"from": "skypilot"},
        **fields,
    )
    out = []
    price = _optional(row.get("Price"), "Price")
    if price is not None:
        out.append(PriceQuote(price_model=PriceModel.on_demand, price=price, **common))
    spot = _optional(row.get("SpotPrice"), "SpotPrice")
    if spot is not None:
        out.append(
            PriceQuote(
                price_model=PriceModel.spot, price=spot, zone=(row.get("AvailabilityZone") or "").strip(), **common
            )
        )
    return out


def _item_quotes(item: dict[str, Any]) -> list[PriceQuote]:
    row = item["data"]
    missing = [c for c in REQUIRED if c not in row]
    if missing:
        raise NormalizeError(f"not a SkyPilot catalog row: no {', '.join(missing)} column")
    return _quotes(item["provider"], row, item["observed_at"])


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    return quotes_by_line(items, _item_quotes)
