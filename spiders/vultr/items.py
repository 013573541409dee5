"""Vultr's raw items: plans as the public plans API states them (values as
seen; money as Decimal). Every member is optional, as Vultr's API reference
marks them; the normalizer names what a plan lacks."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from spiders.items import RegionalItem


class VultrPlan(TypedDict, total=False):
    """A Cloud GPU plan (`/v2/plans?type=vcg`) or a bare-metal plan
    (`/v2/plans-metal`) with GPUs; `kind` in the envelope says which."""

    id: str
    type: str
    vcpu_count: int
    cpu_count: int
    cpu_threads: int
    ram: int  # MB
    disk: int
    bandwidth: int
    monthly_cost: Decimal
    hourly_cost: Decimal
    monthly_cost_preemptible: Decimal
    hourly_cost_preemptible: Decimal
    locations: list[str]
    gpu_vram_gb: int
    gpu_type: str
    gpu_count: int
    deploy_ondemand: bool
    deploy_preemptible: bool


# kind: vultr.plan (Cloud GPU) or vultr.metal (bare metal)
VultrItem = RegionalItem[VultrPlan]
