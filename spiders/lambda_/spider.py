"""Lambda: the Lambda Cloud API (`https://cloud.lambda.ai/api/v1/`), its
instance types with their price and the regions that have capacity now,
and the list of regions. Every endpoint needs the user's API key, sent as
`Authorization: Bearer <key>`; captures keep the header as a placeholder."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.http import Response

from spiders.base import ProviderSpider, SourceFailure
from spiders.har import SECRET_PLACEHOLDER
from spiders.lambda_.pages import api_error, parse_instance_types, parse_regions

API_URL = "https://cloud.lambda.ai/api/v1"


class LambdaSpider(ProviderSpider):
    name = "lambda"
    provider = "lambda"
    custom_settings: dict[str, Any] | None = {"REFERER_ENABLED": False}  # noqa: RUF012 (scrapy.Spider declares it per instance)

    def __init__(self, api_key: str = "", api_url: str = API_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_key = api_key
        self.api_url = api_url.rstrip("/")

    def _get(self, path: str, callback: Any) -> Any:
        # A replay needs no key: captures are matched without their headers.
        key = self.api_key or SECRET_PLACEHOLDER
        headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
        return self.request(f"{self.api_url}/{path}", callback, headers=headers)

    async def start(self) -> Any:
        if not self.api_key and not self.settings.get("GPU_TRACKER_REPLAY"):
            raise SourceFailure("Lambda: no API key (set [providers.lambda] api_key or GPU_TRACKER_LAMBDA_API_KEY)")
        yield self._get("regions", self.parse_regions)
        yield self._get("instance-types", self.parse_types)

    def _answer(self, response: Response) -> None:
        if response.status in (401, 403):
            error = api_error(response.body) or f"HTTP {response.status}"
            raise SourceFailure(f"Lambda refused the API key ({error}); check [providers.lambda] api_key")
        self.fetched(response)

    def parse_regions(self, response: Response) -> Iterable[Any]:
        self._answer(response)
        yield from self.items(response, "lambda.region", parse_regions(response.body), regions=self.regions)

    def parse_types(self, response: Response) -> Iterable[Any]:
        self._answer(response)
        records = parse_instance_types(response.body)
        yield from self.items(response, "lambda.instance_type", records, regions=self.regions)
