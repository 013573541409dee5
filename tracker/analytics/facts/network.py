"""The node network of an instance type, as its provider states it:
Gbps, whether it is RDMA-class (EFA, InfiniBand, RoCE) and the source.

One reference table, tracker/data/network.csv (provenance in
tracker/data/network.md): per provider, instance-type patterns (shell
wildcards, case aside), the first match winning, a `*` row last saying
what the provider states for the rest. A price's own `network_gbps` and
`gpu_interconnect` (from the provider's answer or the spec tables) come
first; the table fills what they leave empty and adds `rdma`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fnmatch import fnmatchcase
from functools import cache
from typing import Any

RDMA_KINDS = ("EFA", "InfiniBand", "RoCE")


@dataclass(frozen=True)
class Network:
    """What a provider states of an instance type's network."""

    network_gbps: Decimal | None
    rdma: str  # one of RDMA_KINDS; '' where none is stated
    interconnect: str
    source_url: str
    note: str

    def label(self, gbps: Decimal | None = None) -> str:
        """'3200 Gbps InfiniBand', 'EFA', 'no RDMA stated'."""
        speed = gbps if gbps is not None else self.network_gbps
        kind = self.rdma or "no RDMA stated"
        return f"{speed.normalize():f} Gbps {kind}" if speed is not None else kind


def _rows() -> tuple[tuple[str, str, Network], ...]:
    from tracker.data import rows

    table = []
    for row in rows("network.csv"):
        rdma = row["rdma"].strip()
        if rdma and rdma not in RDMA_KINDS:
            raise ValueError(f"network.csv: {row['instance_type']} has rdma {rdma!r}, not one of {RDMA_KINDS}")
        gbps = row["network_gbps"].strip()
        table.append(
            (
                row["provider"].strip().lower(),
                row["instance_type"].strip().lower(),
                Network(
                    network_gbps=Decimal(gbps) if gbps else None,
                    rdma=rdma,
                    interconnect=row["interconnect"].strip(),
                    source_url=row["source_url"].strip(),
                    note=row["note"].strip(),
                ),
            )
        )
    return tuple(table)


@cache
def _table() -> tuple[tuple[str, str, Network], ...]:
    return _rows()


@cache
def network_of(provider: str | None, instance_type: str | None) -> Network | None:
    """The table's row for this instance type; None where the provider has none."""
    if not provider or not instance_type:
        return None
    provider, name = provider.lower(), instance_type.lower()
    for who, pattern, network in _table():
        if who == provider and fnmatchcase(name, pattern):
            return network
    return None


def rdma_of(provider: str | None, instance_type: str | None) -> str:
    """'EFA', 'InfiniBand' or 'RoCE' where the provider states it, else ''."""
    network = network_of(provider, instance_type)
    return network.rdma if network else ""


def network_fields(row: dict[str, Any]) -> dict[str, Any]:
    """A price row's network: its own Gbps and interconnect, else the table's;
    `rdma` and the table's `network_source`."""
    network = network_of(row.get("provider"), row.get("instance_type"))
    gbps, interconnect = row.get("network_gbps"), row.get("gpu_interconnect")
    if network is None:
        return {"network_gbps": gbps, "gpu_interconnect": interconnect, "rdma": None, "network_source": None}
    return {
        "network_gbps": gbps if gbps is not None else network.network_gbps,
        "gpu_interconnect": interconnect or network.interconnect or None,
        "rdma": network.rdma or None,
        "network_source": network.source_url or None,
    }


def network_text(row: dict[str, Any]) -> str | None:
    """'3200 Gbps InfiniBand; NVLink 4 via NVSwitch 3 (900 GB/s)' of a price
    row, for recommend; None where nothing is known."""
    fields = network_fields(row)
    gbps = fields["network_gbps"]
    parts = []
    if fields["rdma"] or gbps is not None:
        speed = f"{Decimal(gbps).normalize():f} Gbps" if gbps is not None else ""
        parts.append(" ".join(p for p in (speed, fields["rdma"] or "") if p))
    if fields["gpu_interconnect"]:
        parts.append(str(fields["gpu_interconnect"]))
    return "; ".join(parts) or None
