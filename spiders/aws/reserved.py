"""AWS reserved instances (and China on demand) from the bulk offer files,
and savings plans from the savings plan files: for each, region_index.json
-> each region's index.json, hundreds of MB to over 1 GB, streamed.

Global regions come from pricing.us-east-1.amazonaws.com (USD); the China
regions from pricing.cn-north-1.amazonaws.com.cn (CNY). In a live crawl the
offer file never reaches Scrapy whole: `OfferStreamMiddleware` reads it as a
stream and hands on only the GPU products and their terms (which is also what
a recorded capture holds); a plan file likewise keeps only its GPU rates. In
replay the capture's files are filtered the same way."""

from __future__ import annotations

import gzip
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from functools import partial
from typing import IO, Any, cast

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.responsetypes import responsetypes
from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from spiders.aws.bulk_pages import GpuProducts, parse_offer_file, parse_region_index, subset_body
from spiders.aws.savings_pages import GpuRates, parse_plan_file, parse_plan_index, plan_subset_body, unknown_systems
from spiders.aws.spider import flag
from spiders.base import ProviderSpider, SourceFailure

GLOBAL_INDEX = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/region_index.json"
CHINA_INDEX = "https://pricing.cn-north-1.amazonaws.com.cn/offers/v1.0/cn/AmazonEC2/current/region_index.json"
PLAN_INDEX = (
    "https://pricing.us-east-1.amazonaws.com/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json"
)
# Not checked against the live site: the global path, on the China host.
CHINA_PLAN_INDEX = (
    "https://pricing.cn-north-1.amazonaws.com.cn/savingsPlan/v1.0/cn/AWSComputeSavingsPlan/current/region_index.json"
)
# request.meta key: the function that cuts a bulk file down while it streams
# (stream -> the kept subset, as a file of the same format). Its presence is
# what makes OfferStreamMiddleware take the request.
STREAM_META = "aws_stream_cut"
Cut = Callable[[IO[bytes]], bytes]


class OfferStreamMiddleware:
    """Fetches bulk files (EC2 offer files, savings plan files) itself, as a
    stream cut down while it arrives, so that a 1 GB file costs megabytes of
    memory, not gigabytes. What to keep is the request's STREAM_META cut."""

    def __init__(self, timeout: float, user_agent: str) -> None:
        self.timeout = timeout
        self.user_agent = user_agent

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> OfferStreamMiddleware:
        if crawler.settings.get("GPU_TRACKER_REPLAY"):
            raise NotConfigured
        return cls(crawler.settings.getfloat("DOWNLOAD_TIMEOUT", 60), crawler.settings.get("USER_AGENT", ""))

    async def process_request(self, request: Request, spider: Spider | None = None) -> Response | None:
        cut = request.meta.get(STREAM_META)
        if cut is None:
            return None
        status, headers, body = await maybe_deferred_to_future(deferToThread(self.fetch, request.url, cut))
        # Text keys: from_headers looks for bytes ones, so the class comes from the URL and the body.
        cls = responsetypes.from_args(headers=headers, url=request.url, body=body)  # type: ignore[arg-type]
        return cls(url=request.url, status=status, headers=headers, body=body, request=request)

    def fetch(self, url: str, cut: Cut) -> tuple[int, dict[str, str], bytes]:
        ask = urllib.request.Request(url, headers={"User-Agent": self.user_agent, "Accept-Encoding": "gzip"})
        try:
            with urllib.request.urlopen(ask, timeout=self.timeout) as answer:
                stream: IO[bytes] = answer
                if answer.headers.get("Content-Encoding", "").lower() == "gzip":
                    stream = cast(IO[bytes], gzip.GzipFile(fileobj=answer))  # a binary file, read only
                return answer.status, {"Content-Type": "application/json"}, cut(stream)
        except urllib.error.HTTPError as exc:
            return exc.code, {"Content-Type": "text/plain"}, exc.read()[:2000]


class AwsReservedSpider(ProviderSpider):
    name = "aws-reserved"
    provider = "aws"
    default_regions = ("us-east-1", "us-west-2", "eu-west-1", "cn-north-1", "cn-northwest-1")

    def __init__(
        self,
        operating_systems: str = "Linux,Windows",
        reserved_regions: str = "",
        convertible: str = "true",
        offer_index_url: str = GLOBAL_INDEX,
        china_offer_index_url: str = CHINA_INDEX,
        savings_plans: str = "true",
        savings_plan_index_url: str = PLAN_INDEX,
        china_savings_plan_index_url: str = CHINA_PLAN_INDEX,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.offer_index_url, self.china_offer_index_url = offer_index_url, china_offer_index_url
        self.plan_index_url, self.china_plan_index_url = savings_plan_index_url, china_savings_plan_index_url
        if not kwargs.get("regions") and reserved_regions:
            self.regions = [r for r in reserved_regions.split(",") if r]
        systems = [s.strip() for s in operating_systems.split(",") if s.strip()]
        self.keep = GpuProducts.for_systems(systems)
        self.convertible = flag(convertible)
        self.savings_plans = flag(savings_plans)
        self.plan_keep = GpuRates.for_systems(systems)
        if self.savings_plans and unknown_systems(systems):
            self.notes.append(
                f"aws-reserved: no savings plan operation code is known for "
                f"{', '.join(unknown_systems(systems))}; their savings plans are not read"
            )

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        super().update_settings(settings)
        # The runner's middleware list is set at "cmdline" priority (40), and
        # CrawlerProcess.crawl() applies it again to the crawler, so
        # custom_settings cannot add to it: ours goes in just above.
        middlewares = settings.getdict("DOWNLOADER_MIDDLEWARES")
        middlewares["spiders.aws.reserved.OfferStreamMiddleware"] = 500
        settings.set("DOWNLOADER_MIDDLEWARES", middlewares, priority=SETTINGS_PRIORITIES["cmdline"] + 1)

    def index_for(self, region: str) -> str:
        return self.china_offer_index_url if region.startswith("cn-") else self.offer_index_url

    def plan_index_for(self, region: str) -> str:
        return self.china_plan_index_url if region.startswith("cn-") else self.plan_index_url

    async def start(self) -> Any:
        for index in sorted({self.index_for(r) for r in self.regions}):
            yield self.request(index, self.parse_index, cb_kwargs={"index_url": index})
        if self.savings_plans:
            for index in sorted({self.plan_index_for(r) for r in self.regions}):
                yield self.request(index, self.parse_plan_index, cb_kwargs={"index_url": index})

    def region_files(
        self,
        files: dict[str, str],
        index_url: str,
        index_for: Callable[[str], str],
        what: str,
        callback: Callable[..., Any],
        cut: Cut,
    ) -> Iterable[Request]:
        """A request for the file of each chosen region this index serves, cut
        while it streams; a region the index does not list is a failure that
        names those it does."""
        for region in (r for r in self.regions if index_for(r) == index_url):
            if region not in files:
                raise SourceFailure(
                    f"unknown AWS region {region!r} in the {what} index {index_url}; "
                    f"it lists: {', '.join(sorted(files))}"
                )
            yield self.request(files[region], callback, meta={STREAM_META: cut}, cb_kwargs={"region": region})

    def parse_index(self, response: Response, index_url: str) -> Iterable[Any]:
        self.fetched(response)
        yield from self.region_files(
            parse_region_index(response.body, index_url),
            index_url,
            self.index_for,
            "offer",
            self.parse_offer,
            partial(subset_body, keep=self.keep),
        )

    def parse_offer(self, response: Response, region: str) -> Iterable[Any]:
        self.fetched(response)
        header, records = parse_offer_file(response.body, self.keep)
        if not self.convertible:
            for record in records:
                record["terms"]["Reserved"] = [
                    t
                    for t in record["terms"]["Reserved"]
                    if (t.get("termAttributes") or {}).get("OfferingClass") != "convertible"
                ]
        yield from self.items(response, "aws.offer_product", records, region=region, version=header.get("version", ""))

    def parse_plan_index(self, response: Response, index_url: str) -> Iterable[Any]:
        self.fetched(response)
        yield from self.region_files(
            parse_plan_index(response.body, index_url),
            index_url,
            self.plan_index_for,
            "savings plan",
            self.parse_plans,
            partial(plan_subset_body, keep=self.plan_keep),
        )

    def parse_plans(self, response: Response, region: str) -> Iterable[Any]:
        self.fetched(response)
        header, records = parse_plan_file(response.body, self.plan_keep)
        if not records:
            self.notes.append(
                f"aws-reserved: the savings plan file of {region} has no GPU rates for the chosen operating systems"
            )
        # The partition says which currency a rate that names none is in.
        partition = "aws-cn" if region.startswith("cn-") else "aws"
        yield from self.items(
            response, "aws.savings_plan", records, region=region, partition=partition, version=header.get("version", "")
        )
