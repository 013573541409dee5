"""The raw items of the autodl source, as the page object reads them."""

from __future__ import annotations

from decimal import Decimal
from typing import NotRequired, TypedDict

from spiders.items import RegionalItem


class AutodlMachine(TypedDict):
    """One machine of the market list (`POST /api/v1/user/machine/list`):
    `gpu_idle_num` of its `gpu_number` GPUs free, `gpu_order_num` of them
    orderable now (what public clients rent by; idle GPUs may be none), at
    `price` 厘 (thousandths of a yuan) a GPU-hour, pay as you go."""

    machine_id: str
    region_sign: str
    gpu_name: str
    gpu_number: int
    gpu_idle_num: int
    price: Decimal | int
    region_name: NotRequired[str | None]
    gpu_memory: NotRequired[int | None]  # bytes
    gpu_order_num: NotRequired[int | None]


AutodlItem = RegionalItem[AutodlMachine]
