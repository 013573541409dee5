"""The raw items of the OCI source: products of Oracle's public price list
(the cost estimator's `cetools` API), values as seen."""

from __future__ import annotations

from decimal import Decimal
from typing import NotRequired, TypedDict

from spiders.items import RegionalItem


class OciPrice(TypedDict):
    model: str  # PAY_AS_YOU_GO is the only model the SDK's Prices names
    value: Decimal | int
    rangeMin: NotRequired[Decimal | int]
    rangeMax: NotRequired[Decimal | int]
    rangeUnit: NotRequired[str]


class OciLocalization(TypedDict):
    currencyCode: str
    prices: list[OciPrice]


class OciProduct(TypedDict):
    partNumber: str
    displayName: str
    metricName: str
    serviceCategory: str
    currencyCodeLocalizations: NotRequired[list[OciLocalization]]


class OciItem(RegionalItem[OciProduct]):
    """The envelope the spider yields (spiders/base.py `items`), kind
    `oci.product`; `regions` are the regions the crawl covers, `currency`
    the one asked for, `last_updated` the price list's own date."""

    currency: str
    last_updated: str
