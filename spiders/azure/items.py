"""Azure's raw items: meters of the Retail Prices API
(`https://prices.azure.com/api/retail/prices`, `Items[]`), as the API states
them (numbers with a fraction as Decimal). Every member is optional here: the
normalizer names what a meter lacks."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from spiders.items import RawItem


class SavingsPlanPrice(TypedDict, total=False):
    """One savings plan of a meter: its `term` ("1 Year", "3 Years")."""

    unitPrice: Decimal | int
    retailPrice: Decimal | int
    term: str


class RetailPrice(TypedDict, total=False):
    """One meter: a price of one SKU in one region, of one `type`
    (Consumption, Reservation or DevTestConsumption)."""

    currencyCode: str
    tierMinimumUnits: Decimal | int
    retailPrice: Decimal | int
    unitPrice: Decimal | int
    armRegionName: str
    location: str
    effectiveStartDate: str
    meterId: str
    meterName: str
    productId: str
    skuId: str
    productName: str  # "Virtual Machines NCasT4_v3 Series Windows"
    skuName: str  # "NC4as T4 v3 Spot", "... Low Priority"
    serviceName: str
    serviceId: str
    serviceFamily: str
    unitOfMeasure: str  # "1 Hour"
    type: str
    isPrimaryMeterRegion: bool
    armSkuName: str  # "Standard_NC4as_T4_v3"
    reservationTerm: str  # "1 Year", "3 Years"
    savingsPlan: list[SavingsPlanPrice]


class AzureItem(RawItem[RetailPrice]):
    """kind: azure.retail_item; `region` the one asked for."""

    region: str
