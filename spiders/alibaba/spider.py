"""Alibaba Cloud: the CDN price file behind the public pricing page, and,
with an AccessKey, spot prices from ECS DescribePrice.

The price file's URL carries a version that changes without notice. The
spider tries the remembered version (the state file), else the last one
known when this was written; when that answers 404 it reads the current
version from the pricing page, remembers it and tries once more. The China
site's pricing page names the version in its plain HTML (as public clients
of the page read it), so no browser is needed; the international page, and
a China page that names none, are rendered in the browser and the version
read from the URLs the page requests.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, ClassVar
from urllib.parse import quote

from scrapy import FormRequest
from scrapy.http import Response

from spiders.alibaba.items import PriceFileRecord
from spiders.alibaba.pages import parse_describe_price, parse_price_file, pick_version, price_versions
from spiders.base import ProviderSpider
from spiders.crawling.state import read_state, write_state
from spiders.pages import PageShapeError

CDN_BASE = "https://g.alicdn.com/aliyun"
ECS_ENDPOINT = "https://ecs.aliyuncs.com/"
# The page's own scripts are the first thing to name the version.
PAGE_READY = "script[src*='ecs-price-info']"


def _percent(value: str) -> str:
    return quote(value, safe="-_.~")


def sign_rpc(params: dict[str, str], secret: str, method: str = "POST") -> str:
    """Alibaba Cloud RPC signature version 1.0 (HMAC-SHA1 over the sorted,
    percent-encoded parameters). Written out because the official SDK does
    its own HTTP, and these requests must go through Scrapy to be recorded."""
    canonical = "&".join(f"{_percent(k)}={_percent(v)}" for k, v in sorted(params.items()))
    to_sign = f"{method}&{_percent('/')}&{_percent(canonical)}"
    digest = hmac.new(f"{secret}&".encode(), to_sign.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode()


class AlibabaSpider(ProviderSpider):
    """The international site: prices in USD."""

    name = "alibaba"
    provider = "alibaba"
    uses_browser = True
    price_path: ClassVar[str] = "ecs-price-info-intl"
    pricing_page: ClassVar[str] = "https://www.alibabacloud.com/product/ecs/pricing"
    known_version: ClassVar[str] = "2.0.421"
    # Whether the pricing page's plain HTML names the version (tried before the browser).
    plain_page: ClassVar[bool] = False

    def __init__(
        self,
        state_file: str = "",
        pricing_page: str = "",
        cdn_base: str = CDN_BASE,
        access_key_id: str = "",
        access_key_secret: str = "",
        ecs_endpoint: str = ECS_ENDPOINT,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.state_file = state_file
        self.page_url = pricing_page or self.pricing_page
        self.cdn_base = cdn_base.rstrip("/")
        self.access_key_id = access_key_id
        self.access_key_secret = access_key_secret
        self.ecs_endpoint = ecs_endpoint
        self.page_requests: list[str] = []
        self.spot_unpriced = 0

    def price_url(self, version: str) -> str:
        return f"{self.cdn_base}/{self.price_path}/{version}/price/download/instancePrice.json"

    async def start(self) -> Any:
        version = read_state(self.state_file).get("version") or self.known_version
        yield self.price_request(str(version), rediscovered=False)

    def price_request(self, version: str, *, rediscovered: bool) -> Any:
        return self.request(
            self.price_url(version),
            self.parse_prices,
            dont_filter=True,
            cb_kwargs={"version": version, "rediscovered": rediscovered},
        )

    def parse_prices(self, response: Response, version: str, rediscovered: bool) -> Iterable[Any]:
        if response.status in (403, 404) and not rediscovered:
            self.notes.append(
                f"alibaba: no price file at version {version} (HTTP {response.status}); "
                f"reading the current version from {self.page_url}"
            )
            if self.plain_page:
                yield self.request(self.page_url, self.parse_plain_page, dont_filter=True, cb_kwargs={"stale": version})
            else:
                yield self.page_in_browser(version)
            return
        self.fetched(response)
        header, records = parse_price_file(response.body)
        write_state(self.state_file, version=version, url=response.url)
        if self.regions:
            records = [r for r in records if r["region"] in self.regions]
        yield from self.items(response, "alibaba.price", records, **header)
        yield from self.spot_requests(records)

    def page_in_browser(self, stale: str) -> Any:
        return self.browser_request(
            self.page_url,
            self.parse_page,
            wait_for=PAGE_READY,
            cb_kwargs={"stale": stale},
            meta={"playwright_page_event_handlers": {"request": self.on_page_request}},
        )

    def parse_plain_page(self, response: Response, stale: str) -> Iterable[Any]:
        self.fetched(response)
        found = price_versions([response.text], self.price_path)
        if not found:
            self.notes.append(f"alibaba: the plain pricing page names no version; rendering {self.page_url}")
            yield self.page_in_browser(stale)
            return
        yield from self.use_version(pick_version(found, self.page_url), stale)

    def on_page_request(self, request: Any) -> None:
        self.page_requests.append(str(request.url))

    def parse_page(self, response: Response, stale: str) -> Iterable[Any]:
        self.fetched(response)
        version = pick_version(price_versions([*self.page_requests, response.text], self.price_path), self.page_url)
        yield from self.use_version(version, stale)

    def use_version(self, version: str, stale: str) -> Iterable[Any]:
        if version == stale:
            raise PageShapeError(
                f"Alibaba: the price file for version {version} is missing, and the pricing "
                "page still names that version"
            )
        self.notes.append(f"alibaba: the pricing page names price file version {version}")
        yield self.price_request(version, rediscovered=True)

    # -- spot, with credentials ------------------------------------------------

    def spot_requests(self, records: list[PriceFileRecord]) -> Iterable[Any]:
        if not (self.access_key_id and self.access_key_secret):
            self.notes.append(
                "alibaba: spot prices skipped: set access_key_id and access_key_secret in "
                "[providers.alibaba] to read them from DescribePrice"
            )
            return
        wanted = sorted(
            {
                (r["region"], r["instance_type"])
                for r in records
                if r["os"] == "linux" and r["network"] == "vpc" and r["hours"]
            }
        )
        for region, instance_type in wanted:
            yield self.describe_price(region, instance_type)

    def describe_price(self, region: str, instance_type: str) -> FormRequest:
        params = {
            "Action": "DescribePrice",
            "Version": "2014-05-26",
            "Format": "JSON",
            "RegionId": region,
            "ResourceType": "instance",
            "InstanceType": instance_type,
            "InstanceNetworkType": "vpc",
            "SpotStrategy": "SpotAsPriceGo",
            "PriceUnit": "Hour",
            "AccessKeyId": self.access_key_id,
            "SignatureMethod": "HMAC-SHA1",
            "SignatureVersion": "1.0",
            "SignatureNonce": uuid.uuid4().hex,
            "Timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        params["Signature"] = sign_rpc(params, self.access_key_secret)
        # POST keeps the signed parameters out of URLs, and so out of error messages.
        return FormRequest(
            self.ecs_endpoint,
            formdata=params,
            callback=self.parse_spot,
            errback=self.on_error,
            dont_filter=True,
            cb_kwargs={"region": region, "instance_type": instance_type},
        )

    def parse_spot(self, response: Response, region: str, instance_type: str) -> Iterable[Any]:
        price = parse_describe_price(response.status, response.body)
        self.pages += 1
        self.progress(self.pages)
        if price is None:
            self.spot_unpriced += 1
            return
        yield from self.items(response, "alibaba.spot", [{"region": region, "instance_type": instance_type, **price}])

    def closed(self, reason: str) -> None:
        if self.spot_unpriced:
            self.notes.append(
                f"alibaba: DescribePrice had no spot price for {self.spot_unpriced} region and type pairs"
            )


class AlibabaChinaSpider(AlibabaSpider):
    """The China site (aliyun.com): prices in CNY."""

    name = "alibaba-cn"
    price_path = "ecs-price-info"
    pricing_page = "https://www.aliyun.com/price/ecs/ecs-pricing/zh"
    known_version = "2.0.421"
    plain_page = True
