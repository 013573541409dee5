"""AWS's raw items, values as the pricing pages and the Price List files
state them (prices as strings).

- `aws.ondemand`: a row of the on-demand price table behind the EC2 pricing
  page (`regions.{Location}.{row key}`), for one OS;
- `aws.spot`: a price of the spot price feed (spot.js), one region, size and OS;
- `aws.spot_advisor`: the Spot Instance Advisor's interruption range and
  savings of one region, OS and type;
- `aws.offer_product`: a product of a Price List offer file with its terms
  (aws-reserved);
- `aws.savings_plan`: a plan of a Savings Plans offer file with its GPU rates
  (aws-reserved).
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from spiders.items import RawItem

# The table's own column names.
OnDemandRow = TypedDict(
    "OnDemandRow",
    {
        "price": str,  # the hourly rate
        "Instance Type": str,
        "Location": str,
        "Instance Family": NotRequired[str],
        "vCPU": NotRequired[str],
        "Memory": NotRequired[str],  # "16 GiB"
        "Network Performance": NotRequired[str],  # "Up to 25 Gigabit"
        "GPU": NotRequired[str],
        "rateCode": NotRequired[str],
    },
)


class SpotPrice(TypedDict):
    region: str  # the feed's own name ("us-east", "apac-sin"); spiders/aws/names.py
    group: str
    size: str
    os: str  # "linux", "mswin"
    price: str  # USD an hour, or "N/A*"


class SpotAdvice(TypedDict):
    region: str
    os: str  # "Linux", "Windows"
    instance_type: str
    interruption: str  # the range's label: "<5%"
    savings_percent: str


class PriceDimension(TypedDict, total=False):
    rateCode: str
    description: str
    beginRange: str
    endRange: str
    unit: str  # "Hrs", "Quantity"
    pricePerUnit: dict[str, str]  # currency -> amount
    appliesTo: list[str]


class Term(TypedDict, total=False):
    offerTermCode: str
    sku: str
    effectiveDate: str
    priceDimensions: dict[str, PriceDimension]
    termAttributes: dict[str, str]  # LeaseContractLength, OfferingClass, PurchaseOption


class OfferTerms(TypedDict, total=False):
    OnDemand: list[Term]
    Reserved: list[Term]


class OfferProduct(TypedDict):
    sku: str
    attributes: dict[str, str]  # instanceType, regionCode, operatingSystem, vcpu, memory...
    terms: OfferTerms


class PlanRate(TypedDict, total=False):
    discountedSku: str
    discountedUsageType: str
    discountedOperation: str
    discountedServiceCode: str
    rateCode: str
    unit: str  # "Hrs"
    discountedRate: dict[str, str]  # {price, currency}
    discountedRegionCode: str
    discountedInstanceType: str


class SavingsPlan(TypedDict):
    sku: str
    productFamily: str
    usageType: str
    attributes: dict[str, str]  # purchaseTerm, purchaseOption...
    leaseContractLength: dict[str, object]  # {duration, unit}
    effectiveDate: str
    rates: list[PlanRate]


class AwsOnDemandItem(RawItem[OnDemandRow]):
    region: str
    os: str
    currency: str
    published: str


AwsSpotItem = RawItem[SpotPrice]
AwsAdviceItem = RawItem[SpotAdvice]
# kind: aws.ondemand, aws.spot or aws.spot_advisor
AwsItem = AwsOnDemandItem | AwsSpotItem | AwsAdviceItem


class AwsProductItem(RawItem[OfferProduct]):
    region: str
    version: str


class AwsPlanItem(RawItem[SavingsPlan]):
    region: str
    partition: str  # "aws" or "aws-cn"
    version: str


# kind: aws.offer_product or aws.savings_plan (aws-reserved)
AwsBulkItem = AwsProductItem | AwsPlanItem
