"""The raw items of the CoreWeave source: one GPU instance row of the pricing
page (www.coreweave.com/pricing), in one region's table, its figures as
written without their footnote marks ("" where the page shows none)."""

from __future__ import annotations

from typing import TypedDict

from spiders.items import RegionalItem


class CoreWeaveRow(TypedDict):
    name: str  # "NVIDIA HGX H100"
    region: str  # the heading of the row's table ("NORTH AMERICA", "EUROPE"), or ""
    gpu_count: str
    vram_gb: str  # of one GPU
    vcpus: str
    ram_gb: str
    storage_tb: str
    price: str  # the on-demand price of the whole instance per hour: "$49.24", "Contact sales"
    spot_price: str  # the spot price of the whole instance per hour: "$19.71", "N/A"
    # "Inference Single GPU Price": per GPU, for CoreWeave's inference platform
    # customers only (the page's footnote 2); kept as seen, not priced
    inference_price: str


# The envelope the spider yields (spiders/base.py `items`), kind
# `coreweave.instance`; `regions` are the regions the crawl was asked for.
CoreWeaveItem = RegionalItem[CoreWeaveRow]
