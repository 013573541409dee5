"""AWS Spot Instance Advisor (source `aws-spot-advisor`): the public JSON the
Advisor page (aws.amazon.com/ec2/spot/instance-advisor/) loads, one file for
every region, no key. Per region, operating system and instance type it
states the frequency of interruption as a band index `r` (labelled by the
file's own `ranges`: "<5%", "5-10%", "10-15%", "15-20%", ">20%") and the
savings over on demand `s` in percent. Read by `pages.parse_spot_advisor`
(the same reading the `aws` source attaches to its spot prices); here the
bands are the record, stored with their history (db/spot_risk.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.http import Response

from spiders.aws.pages import parse_spot_advisor
from spiders.aws.spider import SPOT_ADVISOR_URL
from spiders.base import ProviderSpider


class AwsSpotAdvisorSpider(ProviderSpider):
    name = "aws-spot-advisor"
    provider = "aws"

    def __init__(self, advisor_url: str = SPOT_ADVISOR_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.advisor_url = advisor_url

    async def start(self) -> Any:
        yield self.request(self.advisor_url, self.parse_advisor)

    def parse_advisor(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        records = parse_spot_advisor(response.body)
        if self.regions:  # the regions asked for; every region the file has otherwise
            wanted = set(self.regions)
            records = [r for r in records if r["region"] in wanted]
        else:
            self.regions = sorted({r["region"] for r in records})
        yield from self.items(response, "aws.spot_advisor", records, regions=self.regions)
