"""Lambda: the Lambda Cloud API (`https://cloud.lambda.ai/api/v1/`), its
instance types with their price and the regions that have capacity now,
and the list of regions. Every endpoint needs the user's API key, sent as
`Authorization: Bearer <key>`; captures keep the header as a placeholder."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.http import Response

from spiders.base import BearerSpider, SourceFailure
from spiders.lambda_.pages import api_error, parse_instance_types, parse_regions

API_URL = "https://cloud.lambda.ai/api/v1"


class LambdaSpider(BearerSpider):
    name = "lambda"
    provider = "lambda"
    api_url = API_URL

    def _get(self, path: str, callback: Any) -> Any:
        return self.request(f"{self.api_url.rstrip('/')}/{path}", callback, headers=self.bearer_headers())

    async def start(self) -> Any:
        self.require_key(self.api_key)
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
