"""Volcano Engine's raw items, values as seen.

The price page's backend (`volcengine.price`): an ECS GPU row of GetTable,
amended by the spider with what the template says of the configuration
(`abilities`, `zones`). The official API (volcengine-api): GPU instance types
of DescribeInstanceTypes (`volcengine.api.type`), stock per zone of
DescribeAvailableResource (`volcengine.api.stock`), price lines of the billing
API (`volcengine.api.price`) and the types an answer left out
(`volcengine.api.unpriced`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NotRequired, TypedDict

from spiders.items import RawItem

Number = Decimal | int | str


class PriceInfo(TypedDict, total=False):
    Period: str  # "1" with Times, or a unit ("Hour", "Month", "Year")
    Times: Number
    Price: Number


class TableRow(TypedDict):
    configuration: str  # "ecs.gni2.3xlarge"
    ConfigurationCode: Any
    Region: str
    ChargeItemCode: Any
    PriceInfoList: list[PriceInfo]
    # Added by the spider from the template:
    abilities: NotRequired[dict[str, str]]  # {"vcpu": "12vCPU", "memory": "46GiB", ...}
    zones: NotRequired[list[str] | None]  # None: the template does not say where it sells it


class TableItem(RawItem[TableRow]):
    """kind: volcengine.price, of the template `template_code`."""

    template_code: str


class ApiType(TypedDict):
    instance_type: str
    family: Any
    gpu_model: str
    gpu_count: str
    gpu_memory_mib: str | None  # of all the type's GPUs
    vcpu: Any
    memory_mib: Any


class ApiStock(TypedDict):
    zone: str
    instance_type: str
    availability: str | None


class ApiPrice(TypedDict, total=False):
    """A price line (`configuration_code`, `price`, `original`, `currency`),
    or (`volcengine.api.unpriced`) the `instance_type` and `variant` left out."""

    configuration_code: str
    price: Number
    original: Number | None
    currency: str
    instance_type: str
    variant: str


class ApiTypeItem(RawItem[ApiType]):
    """kind: volcengine.api.type."""


class ApiStockItem(RawItem[ApiStock]):
    """kind: volcengine.api.stock."""

    region: str


class ApiPriceItem(RawItem[ApiPrice]):
    """kind: volcengine.api.price (with its `variant`) or
    volcengine.api.unpriced (with the `action` that left the type out)."""

    region: str
    variant: NotRequired[str]
    action: NotRequired[str]


VolcengineApiItem = ApiTypeItem | ApiStockItem | ApiPriceItem
