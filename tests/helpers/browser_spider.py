"""A spider used only by the tests of the browser path."""

from __future__ import annotations

from typing import Any

from spiders.base import ProviderSpider


class RenderedPageSpider(ProviderSpider):
    name = "rendered-page"
    provider = "test"
    uses_browser = True

    def __init__(self, url: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.url = url

    async def start(self) -> Any:
        yield self.browser_request(self.url, self.parse, wait_for="#credit", timeout_ms=10000)

    def parse(self, response: Any) -> Any:
        self.fetched(response)
        yield from self.items(response, "test.credit", [{"credit": response.css("#credit::text").get()}])
