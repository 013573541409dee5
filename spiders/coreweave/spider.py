"""CoreWeave: the GPU instance table of its public pricing page, which needs
no key. CoreWeave publishes no price API; the page is its price list."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy.http import TextResponse

from spiders.base import ProviderSpider
from spiders.coreweave.pages import parse_gpu_instances

PAGE_URL = "https://www.coreweave.com/pricing"


class CoreWeaveSpider(ProviderSpider):
    name = "coreweave"
    provider = "coreweave"

    def __init__(self, api_url: str = PAGE_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.page_url = api_url

    async def start(self) -> Any:
        yield self.request(self.page_url, self.parse)

    def parse(self, response: TextResponse) -> Iterable[Any]:  # type: ignore[override]  # HTML asked for: Scrapy answers with a TextResponse
        self.fetched(response)
        yield from self.items(
            response, "coreweave.instance", parse_gpu_instances(response.selector), regions=self.regions
        )
