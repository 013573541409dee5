"""Nebius AI Cloud: the Compute pricing page of its documentation, read as
the Markdown the docs site serves (`.md`), which needs no key. Nebius's own
price API (billing `CalculatorService`) is gRPC behind a service account;
the page is what Nebius publishes to everyone."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.http import Response

from spiders.base import ProviderSpider
from spiders.nebius.pages import parse_pricing

PAGE_URL = "https://docs.nebius.com/compute/resources/pricing.md"


class NebiusSpider(ProviderSpider):
    name = "nebius"
    provider = "nebius"

    def __init__(self, api_url: str = PAGE_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.page_url = api_url

    async def start(self) -> Any:
        yield self.request(self.page_url, self.parse, headers={"Accept": "text/markdown, text/plain"})

    def parse(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        rows = parse_pricing(response.body.decode("utf-8", "replace"))
        yield from self.items(response, "nebius.price", rows, regions=self.regions)
