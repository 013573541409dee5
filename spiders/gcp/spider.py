"""GCP: the Cloud Billing Catalog API for Compute Engine, followed through
nextPageToken to the end. It needs an API key, sent as the `key` query
parameter; captures, logs and errors carry a placeholder instead."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from scrapy.http import Response

from spiders.base import ProviderSpider, SourceFailure
from spiders.crawling.middlewares import SECRET_PARAMS_SETTING
from spiders.gcp.pages import parse_skus_page
from spiders.har import SECRET_PLACEHOLDER, with_query

COMPUTE_ENGINE = "6F81-5844-456A"
API_URL = f"https://cloudbilling.googleapis.com/v1/services/{COMPUTE_ENGINE}/skus"


class GcpSpider(ProviderSpider):
    name = "gcp"
    provider = "gcp"
    # No Referer: it would repeat the previous page's URL, key and all.
    custom_settings: dict[str, Any] | None = {SECRET_PARAMS_SETTING: ["key"], "REFERER_ENABLED": False}  # noqa: RUF012 (scrapy.Spider declares it per instance)

    def __init__(self, api_key: str = "", api_url: str = API_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_key = api_key
        self.api_url = api_url

    def page_url(self, token: str | None = None) -> str:
        # A replay needs no real key: the capture matches any value of `key`.
        query = {"key": self.api_key or SECRET_PLACEHOLDER}
        if token:
            query["pageToken"] = token
        return with_query(self.api_url, urlencode(query))

    async def start(self) -> Any:
        if not self.api_key and not self.settings.get("GPU_TRACKER_REPLAY"):
            raise SourceFailure("GCP: no API key (set [providers.gcp] api_key or GPU_TRACKER_GCP_API_KEY)")
        yield self.request(self.page_url(), self.parse)

    def parse(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        skus, token = parse_skus_page(response.body)
        yield from self.items(response, "gcp.sku", skus, regions=self.regions)
        if token:
            yield self.request(self.page_url(token), self.parse)
