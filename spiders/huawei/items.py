"""Huawei Cloud's raw items, values as seen.

The price calculator (`huawei.ecs_flavor`): a GPU flavor of `productInfo`'s
`ec2_vm` list, with its plans (`planList`, `bakPlanList`). The official API
(huawei-api): GPU flavors of ECS ListFlavors (`huawei.api.flavor`), and the
BSS ratings of a flavor and variant (`huawei.api.price`, or
`huawei.api.unpriced` for a flavor the answer left out).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NotRequired, TypedDict

from spiders.items import RawItem

Number = Decimal | int | str


class Plan(TypedDict, total=False):
    billingMode: str | int  # the calculator's billing mode of the plan
    periodNum: Number | None
    amount: Number
    periodType: str | int


class Flavor(TypedDict, total=False):
    """A flavor as the calculator states it; `resourceSpecCode` carries the
    OS (`p2s.2xlarge.8.linux`), `spec` the bare flavor, `imageSpec` the OS."""

    resourceSpecCode: str
    spec: str
    imageSpec: str
    cpu: Number
    mem: Number
    acceleratorCard: str  # "1*NVIDIA V100 / 1*32GB"
    planList: list[Plan]
    bakPlanList: list[Plan]


class FlavorItem(RawItem[Flavor]):
    """kind: huawei.ecs_flavor."""

    region: str
    currency: str


class ApiFlavor(TypedDict):
    """A GPU flavor of ListFlavors with its sale state per zone
    (`sale_state`: on sale, sold out, or None)."""

    flavor: str
    vcpu: Any  # vcpus, as the API states it
    memory_mib: Any  # ram
    gpu_model: str | None
    gpu_count: int | None
    status: str | None
    zones: dict[str, str | None]
    unknown_states: NotRequired[list[str]]


class ApiPrice(TypedDict):
    """A flavor's price of one variant (`on_demand`, `monthly`, `yearly`);
    an unpriced one has neither price."""

    flavor: str
    variant: str
    price: NotRequired[Any]  # yuan, as the rating states it
    list_price: NotRequired[Any]


class ApiFlavorItem(RawItem[ApiFlavor]):
    """kind: huawei.api.flavor."""

    region: str


class ApiPriceItem(RawItem[ApiPrice]):
    """kind: huawei.api.price (with `currency`) or huawei.api.unpriced (with
    the `action` that left the flavor out)."""

    region: str
    currency: NotRequired[str]
    action: NotRequired[str]


HuaweiApiItem = ApiFlavorItem | ApiPriceItem
