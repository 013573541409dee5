"""AWS side costs (source `aws-side-costs`) from the bulk price list, the
same files and the same streaming reader as `aws-reserved`: for each offer,
region_index.json -> each chosen region's index.json, cut while it streams
to the products kept here (`SIDE_PRODUCTS`), with their OnDemand terms.

- `AWSDataTransfer`: data sent out to the internet (`transferType` "AWS
  Outbound", tiered by the dimensions' beginRange/endRange in GB a month),
  to another region ("InterRegion Outbound", one product per destination)
  and between zones ("IntraRegion");
- `AmazonEC2`: EBS gp3 storage per GB-month (`volumeApiName` gp3), a
  product of the 1 GB EC2 file, which is why it streams;
- `AmazonVPC`: a public IPv4 address in use, per hour (usage type
  `...PublicIPv4:InUseAddress`, the code AWS bills it under).

Products are matched by these attributes, never by their descriptions."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from scrapy.http import Response
from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings

from spiders.aws.bulk_pages import parse_offer_file, parse_region_index, subset_body
from spiders.aws.reserved import STREAM_META
from spiders.base import ProviderSpider, SourceFailure

HOST = "https://pricing.us-east-1.amazonaws.com"
OFFERS = ("AWSDataTransfer", "AmazonEC2", "AmazonVPC")
TRANSFER_TYPES = frozenset({"AWS Outbound", "InterRegion Outbound", "IntraRegion"})


def index_url(offer: str, host: str = HOST) -> str:
    return f"{host}/offers/v1.0/aws/{offer}/current/region_index.json"


def side_product(product: dict[str, Any]) -> bool:
    """Whether a product of one of `OFFERS` is a side cost kept here."""
    attrs = product.get("attributes") or {}
    if not isinstance(attrs, dict):
        return False
    usage = str(attrs.get("usagetype", ""))
    if attrs.get("servicecode") == "AWSDataTransfer" or str(product.get("productFamily")) == "Data Transfer":
        if attrs.get("transferType") == "AWS Outbound":
            return attrs.get("toLocation") == "External"
        return attrs.get("transferType") in TRANSFER_TYPES
    if str(product.get("productFamily")) == "Storage":
        return attrs.get("volumeApiName") == "gp3"
    return usage.endswith("PublicIPv4:InUseAddress")


class AwsSideCostsSpider(ProviderSpider):
    name = "aws-side-costs"
    provider = "aws"
    default_regions = ("us-east-1", "us-west-2", "eu-west-1")

    def __init__(self, price_list_host: str = HOST, offers: str = ",".join(OFFERS), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.host = price_list_host
        self.offers = [o for o in offers.split(",") if o in OFFERS]

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        super().update_settings(settings)
        middlewares = settings.getdict("DOWNLOADER_MIDDLEWARES")
        middlewares["spiders.aws.reserved.OfferStreamMiddleware"] = 500
        settings.set("DOWNLOADER_MIDDLEWARES", middlewares, priority=SETTINGS_PRIORITIES["cmdline"] + 1)

    async def start(self) -> Any:
        for offer in self.offers:
            url = index_url(offer, self.host)
            yield self.request(url, self.parse_index, cb_kwargs={"offer": offer, "url": url})

    def parse_index(self, response: Response, offer: str, url: str) -> Iterable[Any]:
        self.fetched(response)
        files = parse_region_index(response.body, url)
        for region in self.regions:
            if region not in files:
                raise SourceFailure(
                    f"unknown AWS region {region!r} in the {offer} index; it lists: {', '.join(sorted(files))}"
                )
            yield self.request(
                files[region],
                self.parse_offer,
                meta={STREAM_META: partial(subset_body, keep=side_product)},
                cb_kwargs={"offer": offer, "region": region},
            )

    def parse_offer(self, response: Response, offer: str, region: str) -> Iterable[Any]:
        self.fetched(response)
        header, records = parse_offer_file(response.body, side_product)
        yield from self.items(
            response, "aws.side_product", records, region=region, offer=offer, version=header.get("version", "")
        )
