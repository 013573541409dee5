"""矩池云 (MatPool): the GPU machine market, page by page, with the user's
token as the web console sends it (`Authorization: Bearer`, and the user id
in `x-matpool-user-id` when given). MatPool publishes no API key for it;
captures keep a placeholder for the token."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any
from urllib.parse import urlencode

import scrapy
from scrapy.http import Response

from spiders.base import BearerSpider
from spiders.har import with_query
from spiders.matpool.pages import parse_machines

API_URL = "https://matpool.com/api/machines"
PER_PAGE = 50
MAX_PAGES = 100
GPU_CATEGORY = 0


def page_url(number: int, api_url: str = API_URL) -> str:
    return with_query(api_url, urlencode({"page": number, "per_page": PER_PAGE, "machine_category": GPU_CATEGORY}))


class MatpoolSpider(BearerSpider):
    name = "matpool"
    provider = "matpool"
    api_url = API_URL

    def __init__(self, user_id: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.user_id = user_id

    def page(self, number: int) -> scrapy.Request:
        headers = self.bearer_headers()
        if self.user_id:
            headers["x-matpool-user-id"] = self.user_id
        return self.request(
            page_url(number, self.api_url), self.parse, headers=headers, dont_filter=True, cb_kwargs={"number": number}
        )

    def key_hint(self) -> str:
        return "copy your MatPool console token into [providers.matpool] api_key or GPU_TRACKER_MATPOOL_API_KEY"

    async def start(self) -> AsyncIterator[Any]:
        self.require_key(self.api_key, "token")
        yield self.page(1)

    def parse(self, response: Response, number: int) -> Iterable[Any]:
        self.refused(response, "token")
        self.fetched(response)
        machines, odd, pages = parse_machines(response.body)
        if odd:
            self.notes.append(f"matpool: page {number}: skipped {odd} machines without a GPU, its counts or a price")
        yield from self.items(response, "matpool.machine", machines, regions=self.regions)
        if self.more_pages(number, pages, MAX_PAGES):
            yield self.page(number + 1)
