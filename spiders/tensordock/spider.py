"""TensorDock: the marketplace's hostnodes with the GPUs each has free
(`GET /api/v2/hostnodes`), with the user's API token as a Bearer token
(dashboard.tensordock.com/api → API tokens). Captures keep a placeholder
(spiders/crawling/middlewares.py CREDENTIAL_HEADERS)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any

from scrapy.http import Response

from spiders.base import BearerSpider, SourceFailure
from spiders.tensordock.pages import parse_hostnodes

API_URL = "https://dashboard.tensordock.com/api/v2/hostnodes"


class TensordockSpider(BearerSpider):
    name = "tensordock"
    provider = "tensordock"
    api_url = API_URL

    async def start(self) -> AsyncIterator[Any]:
        self.require_key(self.api_key, "API token")
        headers = self.bearer_headers()
        yield self.request(self.api_url, self.parse, headers=headers, dont_filter=True)

    def parse(self, response: Response) -> Iterable[Any]:
        self.refused(response, "API token")
        self.fetched(response)
        nodes, odd = parse_hostnodes(response.body)
        if odd:
            self.notes.append(f"tensordock: skipped {odd} hostnodes or GPU entries without a name, count or price")
        if not nodes:
            raise SourceFailure("tensordock: the hostnodes answer lists no hostnode")
        yield from self.items(response, "tensordock.hostnode", nodes, regions=self.regions)
