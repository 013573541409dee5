"""The raw items of the vastai source, as the page object reads them."""

from __future__ import annotations

from decimal import Decimal
from typing import NotRequired, TypedDict

from spiders.items import RegionalItem


class VastOffer(TypedDict):
    """One offer of `GET /api/v0/bundles/` (the fields the tracker reads;
    values as the API wrote them). Vast.ai documents `id`, `gpu_name`,
    `num_gpus`, `dph_total`, `min_bid`, `gpu_ram` (MB per GPU),
    `verification` and `reliability`; `geolocation` is a search field."""

    id: int
    gpu_name: str
    num_gpus: int
    dph_total: Decimal | int
    gpu_ram: NotRequired[Decimal | int | None]
    min_bid: NotRequired[Decimal | int | None]
    geolocation: NotRequired[str | None]
    verification: NotRequired[str | None]
    reliability: NotRequired[Decimal | int | None]


# The envelope every spider writes (spiders/base.py `items`).
VastItem = RegionalItem[VastOffer]
