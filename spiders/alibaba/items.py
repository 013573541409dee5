"""Alibaba Cloud's raw items, values as seen.

The pricing page's price file (`alibaba.price`): one record per GPU price key
`region::type::network::os::io`, its hourly, monthly and yearly period
lists; DescribePrice for a spot type (`alibaba.spot`). The official API
(alibaba-api): instance types (`alibaba.api.type`, from
DescribeInstanceTypes), stock per zone (`alibaba.api.stock`, from
DescribeAvailableResource), the instance's price of one variant
(`alibaba.api.price`, from DescribePrice) and what could not be priced
(`alibaba.api.unpriced`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import NotRequired, TypedDict

from spiders.items import RawItem

Number = Decimal | int | str


class PeriodPrice(TypedDict, total=False):
    period: Number  # 1 for the price of one hour, month or year
    price: Number


class PriceFileRecord(TypedDict):
    key: str
    region: str
    instance_type: str
    network: str  # "vpc"
    os: str  # "linux", "windows"
    io: str  # "optimized"
    hours: list[PeriodPrice]
    months: list[PeriodPrice]
    years: list[PeriodPrice]


class PriceFileItem(RawItem[PriceFileRecord]):
    """kind: alibaba.price, with the file's header."""

    currency: str
    version: str | None
    publication_date: str | None


class SpotPrice(TypedDict):
    """DescribePrice's PriceInfo.Price of one spot type in one region."""

    region: str
    instance_type: str
    Currency: str | None
    OriginalPrice: Number | None
    DiscountPrice: Number | None
    TradePrice: Number | None


SpotItem = RawItem[SpotPrice]
# kind: alibaba.price or alibaba.spot
AlibabaItem = PriceFileItem | SpotItem


class ApiType(TypedDict):
    """One GPU type of DescribeInstanceTypes, its figures as the API states them."""

    instance_type: str
    family: str | None
    gpu_model: str | None  # GPUSpec: "NVIDIA A10"
    gpu_count: Number | None  # GPUAmount
    gpu_memory_gb: Number | None  # GPUMemorySize, of one GPU
    vcpu: Number | None
    memory_gb: Number | None


class ApiStock(TypedDict):
    zone: str
    instance_type: str
    availability: str | None  # None for a status we do not know
    status: NotRequired[str]  # that status, "Status/StatusCategory"


class ApiPrice(TypedDict, total=False):
    """The instance's price of one `variant`, or (`alibaba.api.unpriced`)
    the `code` and `message` DescribePrice answered instead."""

    instance_type: str
    variant: str
    price: Number | None
    list_price: Number | None
    currency: str
    basis: str  # "instance", "total" or "unknown"
    resources: list[str]
    code: str
    message: str


class ApiTypeItem(RawItem[ApiType]):
    """kind: alibaba.api.type."""


class ApiStockItem(RawItem[ApiStock]):
    """kind: alibaba.api.stock: for each variant asked, in `region`."""

    region: str
    variants: list[str]


class ApiPriceItem(RawItem[ApiPrice]):
    """kind: alibaba.api.price or alibaba.api.unpriced."""

    region: str


AlibabaApiItem = ApiTypeItem | ApiStockItem | ApiPriceItem
