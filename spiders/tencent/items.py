"""Tencent Cloud's raw items: `InstanceTypeQuotaItem`s of the CVM API's
`DescribeZoneInstanceConfigInfos`, as the pricing workbench (tencent) and the
API itself (tencent-api) answer them; numbers with a fraction as Decimal.
Every member is optional here: the page functions check the ones read."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from spiders.items import RawItem

Number = Decimal | int


class ItemPrice(TypedDict, total=False):
    """A price of one type (`ItemPrice`): hourly steps for pay as you go,
    the month's price and discount for a subscription."""

    UnitPrice: Number
    ChargeUnit: str  # "HOUR"
    UnitPriceDiscount: Number
    UnitPriceSecondStep: Number
    UnitPriceDiscountSecondStep: Number
    UnitPriceThirdStep: Number
    UnitPriceDiscountThirdStep: Number
    OriginalPrice: Number
    DiscountPrice: Number
    Discount: Number
    OriginalPriceOneYear: Number
    DiscountPriceOneYear: Number
    DiscountOneYear: Number
    OriginalPriceThreeYear: Number
    DiscountPriceThreeYear: Number
    DiscountThreeYear: Number
    OriginalPriceFiveYear: Number
    DiscountPriceFiveYear: Number
    DiscountFiveYear: Number


class QuotaItem(TypedDict, total=False):
    """One instance type in one zone, for one charge type."""

    Zone: str  # "ap-guangzhou-3"
    InstanceType: str  # "GN7.2XLARGE32"
    InstanceChargeType: str  # POSTPAID_BY_HOUR, PREPAID, SPOTPAID
    InstanceFamily: str
    TypeName: str
    Cpu: int
    Memory: int  # GB
    Gpu: int
    GpuCount: Number
    Fpga: int
    CpuType: str
    Frequency: str
    NetworkCard: int
    InstanceBandwidth: Number
    InstancePps: int
    Status: str  # SELL, SOLD_OUT
    StatusCategory: str
    SoldOutReason: str
    Remark: str
    Price: ItemPrice


class TencentItem(RawItem[QuotaItem]):
    """kind: tencent.zone_instance, for the `region` and `charge_type` asked."""

    region: str
    charge_type: str
    currency: str


class TencentApiItem(RawItem[QuotaItem]):
    """kind: tencent.api."""

    region: str
    currency: str
