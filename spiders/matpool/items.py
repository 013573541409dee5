"""The raw items of the matpool source, as the page object reads them."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from spiders.items import RegionalItem


class MatpoolMachine(TypedDict):
    """One machine of `GET /api/machines`: `gpu_free` of its `gpu_total`
    GPUs free, rented in units (`unit_total` units on the machine, so
    `gpu_total / unit_total` GPUs a unit, `unit_free` of them free) at
    `price_millicent` (1/100,000 of a yuan) a unit-hour, or the discounted
    `discount_millicent`; `gpu_max` the most GPUs one instance takes, and
    `domain` the machine's region (0 is MatPool's 1区)."""

    agent_id: int | str
    gpu_name: str
    gpu_free: int
    gpu_total: int
    price_millicent: int
    discount_millicent: NotRequired[int | None]
    unit_free: NotRequired[int | None]
    unit_total: NotRequired[int | None]
    gpu_max: NotRequired[int | None]
    domain: NotRequired[int | str | None]


MatpoolItem = RegionalItem[MatpoolMachine]
