"""Spiders used only by the tests of bad input: a page object with a bug
(a KeyError on a page it was not written for), a `start` that raises, and an
item that cannot be written. Each replays one page from a capture."""

from __future__ import annotations

import json
from typing import Any

from spiders.base import ProviderSpider

URL = "https://prices.example.com/gpus.json"


def read_prices(body: bytes) -> list[dict[str, Any]]:
    """A page object written for `{"prices": [...]}`, without a check."""
    return [{"type": p["type"], "price": p["price"]} for p in json.loads(body)["prices"]]


class BuggyPageSpider(ProviderSpider):
    name = "buggy-page"
    provider = "test"

    async def start(self) -> Any:
        yield self.request(URL, self.parse)

    def parse(self, response: Any) -> Any:
        self.fetched(response)
        yield from self.items(response, "test.price", read_prices(response.body))


class BrokenStartSpider(BuggyPageSpider):
    name = "broken-start"

    async def start(self) -> Any:
        int("thirty")  # a bug before any request
        yield self.request(URL, self.parse)


class UnwritableItemSpider(BuggyPageSpider):
    name = "unwritable-item"

    def parse(self, response: Any) -> Any:
        self.fetched(response)
        yield from self.items(response, "test.price", [{"type": "a100", "zones": {"a", "b"}}])
