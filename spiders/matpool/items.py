"""The raw items of the matpool source, as the page object reads them."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from spiders.items import RegionalItem


class MatpoolMachine(TypedDict):
    """One machine of `GET /api/machines`: `gpu_free` of its `gpu_total`
    GPUs free, at `price_millicent` (1/100,000 of a yuan) a GPU-hour, or
    the discounted `discount_millicent`."""

    agent_id: int | str
    gpu_name: str
    gpu_free: int
    gpu_total: int
    price_millicent: int
    discount_millicent: NotRequired[int | None]


MatpoolItem = RegionalItem[MatpoolMachine]
