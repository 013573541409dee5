"""The raw items of the Nebius source: one price row of the Compute pricing
page (docs.nebius.com, as Markdown), words as written."""

from __future__ import annotations

from typing import TypedDict

from spiders.items import RegionalItem


class NebiusPriceRow(TypedDict):
    section: str  # the platform's name as its heading writes it: "NVIDIA® H200 NVLink with Intel Sapphire Rapids"
    platform: str  # the platform ID the heading adds ("gpu-b200-sxm"), or "" when it names none
    regions: list[str]  # the region codes the section names; empty: every region
    period: str  # the table's qualifier: "", "from October 1, 2026", "before October 1, 2026"
    item: str  # "Preemptible NVIDIA® H200 ...", "NVIDIA® L40S PCIe with Intel Ice Lake. GPU"
    price: str  # "\\$3.50" as written
    unit: str  # "1 GPU hour", "1 vCPU hour", "1 GiB hour"


# The envelope the spider yields (spiders/base.py `items`), kind
# `nebius.price`; `regions` are the regions the crawl was asked for.
NebiusItem = RegionalItem[NebiusPriceRow]
