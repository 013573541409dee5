"""The raw items of the CoreWeave source: one GPU instance of the pricing
page (www.coreweave.com/pricing), its figures as written ("" where the page
shows none)."""

from __future__ import annotations

from typing import TypedDict

from spiders.items import RegionalItem


class CoreWeaveRow(TypedDict):
    name: str  # "NVIDIA HGX H100"
    region: str  # the region the page names for its prices ("North America"), or ""
    gpu_count: str
    vram_gb: str  # of one GPU
    vcpus: str
    ram_gb: str
    storage_tb: str
    price: str  # the on-demand price of the instance per hour, "$49.24" or "$49.24/hr"
    spot_price: str  # "$19.71/hr" where the page shows one


# The envelope the spider yields (spiders/base.py `items`), kind
# `coreweave.instance`; `regions` are the regions the crawl was asked for.
CoreWeaveItem = RegionalItem[CoreWeaveRow]
