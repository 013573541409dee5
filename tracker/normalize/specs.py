"""The GPU spec table: instance type -> GPU model, count, memory and the
other figures buyers compare. One CSV per provider in gpu_specs/."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass, fields
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

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

    def missing(self) -> list[str]:
        """The columns this row leaves empty (unknown, never zero)."""
        return [f.name for f in fields(self) if getattr(self, f.name) is None]

    def as_fields(self) -> dict[str, Any]:
        return {
            "gpu_model": self.gpu_model,
            "gpu_count": self.gpu_count,
            "gpu_memory_gb": self.gpu_memory_gb,
            "vcpu": self.vcpu,
            "memory_gb": self.memory_gb,
            "gpu_interconnect": self.gpu_interconnect,
            "network_gbps": self.network_gbps,
        }


def _num(cell: str | None) -> Decimal | None:
    cell = (cell or "").strip()
    return fraction(cell) if cell else None


def load_specs(path: Path | Any) -> dict[str, GpuSpec]:
    """One spec CSV (a path or an importlib resource), by lower-cased type."""
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


@cache
def spec_table(provider: str) -> dict[str, GpuSpec]:
    path = resources.files("tracker.normalize") / "gpu_specs" / f"{provider}.csv"
    return load_specs(path) if path.is_file() else {}


def no_count_notes(provider: str, instance_types: Iterable[str], table: dict[str, GpuSpec] | None = None) -> list[str]:
    """A note per priced type that the table knows but gives no GPU count:
    such a quote has no per-GPU-hour price, which must not pass unseen."""
    table = spec_table(provider) if table is None else table
    blank = sorted({t for t in instance_types if (spec := table.get(t.lower())) and spec.gpu_count is None})
    return [
        f"{provider}: {t} is in gpu_specs/{provider}.csv without a GPU count; stored without a per-GPU-hour price"
        for t in blank
    ]


def lookup(provider: str, instance_type: str) -> GpuSpec | None:
    return spec_table(provider).get(instance_type.lower())
