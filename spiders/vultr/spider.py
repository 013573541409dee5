"""Vultr: the public plans API (no key): Cloud GPU plans
(`GET https://api.vultr.com/v2/plans?type=vcg`) and bare-metal plans
(`GET /v2/plans-metal`), 500 a page, followed through `meta.links.next`.
A plan's `locations` are the regions it can be deployed in now."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from scrapy.http import Response

from spiders.base import ProviderSpider
from spiders.vultr.pages import parse_plans_page

API_URL = "https://api.vultr.com/v2"
PER_PAGE = 500


class VultrSpider(ProviderSpider):
    name = "vultr"
    provider = "vultr"

    def __init__(self, api_url: str = API_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_url = api_url.rstrip("/")

    def page_url(self, metal: bool, cursor: str | None = None) -> str:
        query: dict[str, Any] = {} if metal else {"type": "vcg"}
        query["per_page"] = PER_PAGE
        if cursor:
            query["cursor"] = cursor
        return f"{self.api_url}/{'plans-metal' if metal else 'plans'}?{urlencode(query)}"

    async def start(self) -> Any:
        yield self.request(self.page_url(False), self.parse, cb_kwargs={"metal": False})
        yield self.request(self.page_url(True), self.parse, cb_kwargs={"metal": True})

    def parse(self, response: Response, metal: bool) -> Iterable[Any]:
        self.fetched(response)
        plans, cursor = parse_plans_page(response.body, metal=metal)
        yield from self.items(response, "vultr.metal" if metal else "vultr.plan", plans, regions=self.regions)
        if cursor:
            yield self.request(self.page_url(metal, cursor), self.parse, cb_kwargs={"metal": metal})
