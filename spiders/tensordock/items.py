"""The raw items of the tensordock source, as the page object reads them."""

from __future__ import annotations

from decimal import Decimal
from typing import NotRequired, TypedDict

from spiders.items import RegionalItem


class TensorDockGpu(TypedDict):
    """One GPU model a hostnode has free: `availableCount` of them at
    `price_per_hr` dollars an hour each."""

    v0Name: str
    availableCount: int
    price_per_hr: Decimal | int | float  # a JSON number (read exactly, a Decimal)


class TensorDockHostnode(TypedDict):
    """One hostnode of `GET /api/v2/hostnodes` (the fields the tracker reads)."""

    id: str
    gpus: list[TensorDockGpu]
    city: NotRequired[str | None]
    country: NotRequired[str | None]
    tier: NotRequired[int | None]
    uptime_percentage: NotRequired[Decimal | int | None]


TensorDockItem = RegionalItem[TensorDockHostnode]
