"""What a GPU model can do, as its vendor publishes it: dense tensor TFLOPS,
memory and bandwidth, one row per model in tracker/data/gpu_models.csv
(provenance in tracker/data/gpu_models.md).

A model without a row, or a row without a figure, gives None: the price
per TFLOP-hour of such a GPU is unknown, never estimated. The table is
read strictly: a model named twice, or a `compute_basis` that does not say
which figure `compute_tflops` is, is a `ValueError`, never a silent winner.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Any

RATE = Decimal("0.000001")


@dataclass(frozen=True)
class GpuModel:
    gpu_model: str
    vendor: str
    architecture: str
    form_factor: str
    bf16_tflops: Decimal | None
    fp16_tflops: Decimal | None
    fp8_tflops: Decimal | None
    fp32_tflops: Decimal | None
    compute_basis: str
    memory_gb: Decimal | None
    memory_bandwidth_gbs: Decimal | None
    interconnect: str
    interconnect_gbs: Decimal | None
    source_url: str
    note: str

    @property
    def compute_tflops(self) -> Decimal | None:
        """Dense BF16 tensor TFLOPS; FP16 where the GPU has no BF16; FP32
        where it has no fast FP16 either (Kepler, Maxwell, Pascal but P100).
        `compute_basis` says which."""
        for figure in (self.bf16_tflops, self.fp16_tflops, self.fp32_tflops):
            if figure is not None:
                return figure
        return None


# What compute_tflops is, by the column it comes from (compute_basis).
BASES = {
    "bf16_tflops": ("BF16 tensor",),
    "fp16_tflops": ("FP16 tensor", "FP16 vector"),
    "fp32_tflops": ("FP32 vector",),
}


def _num(cell: str | None) -> Decimal | None:
    cell = (cell or "").strip()
    return Decimal(cell) if cell else None


def _check(model: GpuModel) -> None:
    """The basis names the column compute_tflops comes from, or is empty with no figure."""
    source = next((c for c in BASES if getattr(model, c) is not None), None)
    allowed = BASES[source] if source else ("",)
    if model.compute_basis not in allowed:
        raise ValueError(
            f"gpu_models.csv: {model.gpu_model} has compute_basis {model.compute_basis!r}, "
            f"but its compute figure is {source or 'missing'} (expected {' or '.join(map(repr, allowed))})"
        )


def load_table(lines: Iterable[str]) -> dict[str, GpuModel]:
    """A table in the CSV's format, by lower-cased model name; a model named
    twice (case aside) or an inconsistent basis is a ValueError."""
    table: dict[str, GpuModel] = {}
    for row in csv.DictReader(lines):
        model = _model(row)
        key = model.gpu_model.lower()
        if not key:
            raise ValueError("gpu_models.csv: a row names no GPU model")
        if key in table:
            raise ValueError(f"gpu_models.csv: {table[key].gpu_model} has two rows; one model, one row")
        _check(model)
        table[key] = model
    return table


def _model(row: dict[str, str]) -> GpuModel:
    return GpuModel(
        gpu_model=row["gpu_model"].strip(),
        vendor=row["vendor"].strip(),
        architecture=row["architecture"].strip(),
        form_factor=row["form_factor"].strip(),
        bf16_tflops=_num(row["bf16_tflops"]),
        fp16_tflops=_num(row["fp16_tflops"]),
        fp8_tflops=_num(row["fp8_tflops"]),
        fp32_tflops=_num(row["fp32_tflops"]),
        compute_basis=row["compute_basis"].strip(),
        memory_gb=_num(row["memory_gb"]),
        memory_bandwidth_gbs=_num(row["memory_bandwidth_gbs"]),
        interconnect=row["interconnect"].strip(),
        interconnect_gbs=_num(row["interconnect_gbs"]),
        source_url=row["source_url"].strip(),
        note=row["note"].strip(),
    )


@cache
def gpu_models() -> dict[str, GpuModel]:
    """The bundled table, by lower-cased model name."""
    path = resources.files("tracker") / "data" / "gpu_models.csv"
    with resources.as_file(path) as real, real.open(encoding="utf-8", newline="") as fh:
        return load_table(fh)


def lookup(gpu_model: str | None) -> GpuModel | None:
    """The row of a GPU model; None for none (a frame's missing model is NaN, a float)."""
    return gpu_models().get(gpu_model.lower()) if isinstance(gpu_model, str) and gpu_model else None


def missing_models(names: Iterable[str | None]) -> list[str]:
    """The GPU models among `names` that the table has no row for."""
    return sorted({n for n in names if n and lookup(n) is None})


def _per(value: Decimal | None, divisor: Decimal | None) -> Decimal | None:
    if value is None or not divisor:
        return None
    return (value / divisor).quantize(RATE)


def value_fields(row: dict[str, Any]) -> dict[str, Decimal | None]:
    """What a price row's money buys, in the row's currency: the GPU's dense
    BF16 (or FP16) TFLOPS, the price per TFLOP-hour (per GPU-hour over the
    TFLOPS of one whole GPU, so a slice pays for the card it is part of) and
    the price per GB of GPU memory per hour (over the instance's own memory)."""
    model = lookup(row.get("gpu_model"))
    tflops = model.compute_tflops if model else None
    hourly = row.get("hourly_price")
    count = row.get("gpu_count")
    per_gpu = hourly / count if hourly is not None and count else None
    memory = row.get("gpu_memory_gb")
    if not memory and model and model.memory_gb and count and count == count.to_integral_value():
        memory = model.memory_gb * count
    return {
        "gpu_bf16_tflops": tflops,
        "price_per_tflop_hour": _per(per_gpu, tflops),
        "price_per_gb_vram_hour": _per(hourly, memory),
    }


def model_rows() -> list[dict[str, Any]]:
    """The table as rows, for output and for the report."""
    return [{**vars(m), "compute_tflops": m.compute_tflops} for m in gpu_models().values()]
