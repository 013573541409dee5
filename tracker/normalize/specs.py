"""The GPU spec table: instance type -> GPU model, count, memory and the
other figures buyers compare. One CSV per provider in gpu_specs/."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib import resources

from tracker.normalize.money import fraction


@dataclass(frozen=True)
class GpuSpec:
    instance_type: str
    gpu_model: str | None
    gpu_count: Decimal | None
    gpu_memory_gb: Decimal | None
    vcpu: Decimal | None
    memory_gb: Decimal | None
    gpu_interconnect: str | None
    network_gbps: Decimal | None

    @property
    def fractional(self) -> bool:
        return self.gpu_count is not None and self.gpu_count != self.gpu_count.to_integral_value()

    def as_fields(self) -> dict[str, object]:
        return {"gpu_model": self.gpu_model, "gpu_count": self.gpu_count, "gpu_memory_gb": self.gpu_memory_gb,
                "vcpu": self.vcpu, "memory_gb": self.memory_gb, "gpu_interconnect": self.gpu_interconnect,
                "network_gbps": self.network_gbps}


def _num(cell: str | None) -> Decimal | None:
    cell = (cell or "").strip()
    return fraction(cell) if cell else None


@cache
def spec_table(provider: str) -> dict[str, GpuSpec]:
    path = resources.files("tracker.normalize") / "gpu_specs" / f"{provider}.csv"
    if not path.is_file():
        return {}
    table: dict[str, GpuSpec] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            spec = GpuSpec(
                instance_type=row["instance_type"].strip(),
                gpu_model=(row.get("gpu_model") or "").strip() or None,
                gpu_count=_num(row.get("gpu_count")),
                gpu_memory_gb=_num(row.get("gpu_memory_gb")),
                vcpu=_num(row.get("vcpu")),
                memory_gb=_num(row.get("memory_gb")),
                gpu_interconnect=(row.get("gpu_interconnect") or "").strip() or None,
                network_gbps=_num(row.get("network_gbps")),
            )
            table[spec.instance_type.lower()] = spec
    return table


def lookup(provider: str, instance_type: str) -> GpuSpec | None:
    return spec_table(provider).get(instance_type.lower())
