"""Vast.ai: the marketplace's offer search (`GET /api/v0/bundles/?q=`), once
per GPU count (1, 2, 4, 8, and the rest), so that no answer is cut short by
the search limit. Every request carries the user's API key as a Bearer
token (vast-ai/docs api-reference/authentication.mdx); captures keep a
placeholder instead (spiders/crawling/middlewares.py CREDENTIAL_HEADERS)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from typing import Any
from urllib.parse import quote

from scrapy.http import Response

from spiders.base import BearerSpider, SourceFailure
from spiders.har import with_query
from spiders.vastai.pages import parse_offers

API_URL = "https://console.vast.ai/api/v0/bundles/"
# One search per count; the last takes every other count (3, 6, 10 ...).
COUNTS: tuple[int, ...] = (1, 2, 4, 8)
# The most offers one search returns; an answer this long may be cut short.
LIMIT = 5000


def search_query(count: int | None) -> dict[str, Any]:
    """The search of one GPU count (None: the counts not in COUNTS): offers
    that can be rented now, on-demand prices (each offer also states its
    interruptible minimum bid)."""
    gpus = {"eq": count} if count is not None else {"notin": list(COUNTS)}
    return {
        "external": {"eq": False},
        "limit": LIMIT,
        "num_gpus": gpus,
        "order": [["dph_total", "asc"]],
        "rentable": {"eq": True},
        "rented": {"eq": False},
        "type": "on-demand",
    }


def search_url(count: int | None, api_url: str = API_URL) -> str:
    """The search's URL: the query as compact JSON with sorted keys, so that
    a replay finds the recorded answer."""
    text = json.dumps(search_query(count), sort_keys=True, separators=(",", ":"))
    return with_query(api_url, f"q={quote(text, safe='')}")


class VastaiSpider(BearerSpider):
    name = "vastai"
    provider = "vastai"
    api_url = API_URL

    async def start(self) -> AsyncIterator[Any]:
        self.require_key(self.api_key)
        headers = self.bearer_headers()
        for count in (*COUNTS, None):
            yield self.request(search_url(count, self.api_url), self.parse, headers=headers, dont_filter=True)

    def parse(self, response: Response) -> Iterable[Any]:
        self.refused(response)
        self.fetched(response)
        offers, odd = parse_offers(response.body)
        if odd:
            self.notes.append(f"vastai: skipped {odd} offers without an id, GPU name, GPU count or price")
        if len(offers) + odd >= LIMIT:
            raise SourceFailure(f"vastai: a search returned {LIMIT} offers, its limit: the answer may be cut short")
        yield from self.items(response, "vastai.offer", offers, regions=self.regions)
