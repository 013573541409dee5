"""DigitalOcean's raw items: Droplet sizes as `GET /v2/sizes` states them
(the `size` object of DigitalOcean's OpenAPI description; `gpu_info` and
`disk_info` are optional there, money as Decimal)."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from spiders.items import RegionalItem


class GpuVram(TypedDict, total=False):
    amount: int
    unit: str  # "gib"


class GpuInfo(TypedDict, total=False):
    count: int
    model: str  # nvidia_h100, amd_mi300x, nvidia_rtx6000_ada ...
    vram: GpuVram


class DropletSize(TypedDict, total=False):
    slug: str
    memory: int  # MB
    vcpus: int
    disk: int
    transfer: Decimal
    price_monthly: Decimal
    price_hourly: Decimal
    regions: list[str]
    available: bool
    description: str
    gpu_info: GpuInfo


# kind: digitalocean.size
DropletSizeItem = RegionalItem[DropletSize]
