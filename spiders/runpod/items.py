"""The raw items of the runpod and runpod-community sources."""

from __future__ import annotations

from decimal import Decimal
from typing import NotRequired, TypedDict

from spiders.items import RegionalItem


class RunpodGpuType(TypedDict):
    """One GPU type of the `gpuTypes` query (prices per GPU-hour in USD)."""

    id: str
    displayName: str
    memoryInGb: NotRequired[int | None]
    securePrice: NotRequired[Decimal | int | None]
    secureSpotPrice: NotRequired[Decimal | int | None]
    communityPrice: NotRequired[Decimal | int | None]
    communitySpotPrice: NotRequired[Decimal | int | None]


class RunpodStock(TypedDict):
    """`lowestPrice` of one GPU type for `gpu_count` GPUs in one place (a
    data centre for the secure cloud, a country for the community cloud)."""

    gpu_type: str
    place: str
    gpu_count: int
    stockStatus: str | None
    uninterruptablePrice: NotRequired[Decimal | int | None]
    minimumBidPrice: NotRequired[Decimal | int | None]


# kind: "runpod.gpu_type" (data: RunpodGpuType) or "runpod.stock" (data: RunpodStock)
RunpodItem = RegionalItem[RunpodGpuType | RunpodStock]
RunpodStockItem = RegionalItem[RunpodStock]
