"""GCP's raw items: SKUs of the Cloud Billing Catalog API
(`services/6F81-5844-456A/skus`), as the API states them. Every member is
optional here: the normalizer names what a SKU lacks."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from spiders.items import RegionalItem


class Category(TypedDict, total=False):
    serviceDisplayName: str
    resourceFamily: str  # "Compute", "Storage"
    resourceGroup: str  # "GPU", "CPU", "RAM", "N1Standard", "LocalSSD"
    usageType: str  # "OnDemand", "Preemptible", "Commit1Yr", "Commit3Yr"


class Money(TypedDict, total=False):
    currencyCode: str
    units: str  # an int64 as a string
    nanos: int


class TierRate(TypedDict, total=False):
    startUsageAmount: Decimal | int
    unitPrice: Money


class PricingExpression(TypedDict, total=False):
    usageUnit: str  # "h", "GiBy.h"
    usageUnitDescription: str
    baseUnit: str
    baseUnitDescription: str
    baseUnitConversionFactor: Decimal | int
    displayQuantity: Decimal | int
    tieredRates: list[TierRate]


class PricingInfo(TypedDict, total=False):
    summary: str
    pricingExpression: PricingExpression
    currencyConversionRate: Decimal | int
    effectiveTime: str


class Sku(TypedDict, total=False):
    name: str
    skuId: str
    description: str  # "Nvidia Tesla T4 GPU running in Americas"
    category: Category
    serviceRegions: list[str]
    pricingInfo: list[PricingInfo]
    serviceProviderName: str


# kind: gcp.sku; `regions` the ones asked for.
GcpItem = RegionalItem[Sku]
