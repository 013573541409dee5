"""DigitalOcean: GPU Droplet sizes from the official API,
`GET https://api.digitalocean.com/v2/sizes?per_page=200`, followed through
`links.pages.next`. It needs a personal access token (scope sizes:read), sent
as `Authorization: Bearer`; captures and logs carry a placeholder instead."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from scrapy.http import Response

from spiders.base import BearerSpider
from spiders.digitalocean.pages import parse_sizes_page
from spiders.har import with_query

API_URL = "https://api.digitalocean.com/v2/sizes"
PER_PAGE = 200


class DigitalOceanSpider(BearerSpider):
    name = "digitalocean"
    provider = "digitalocean"
    api_url = API_URL

    def get(self, url: str) -> Any:
        return self.request(url, self.parse, headers=self.bearer_headers(), meta={"handle_httpstatus_list": [401, 403]})

    async def start(self) -> Any:
        self.require_key(self.api_key, "API token")
        yield self.get(with_query(self.api_url, f"per_page={PER_PAGE}"))

    def parse(self, response: Response) -> Iterable[Any]:
        self.refused(response, "token (it needs the sizes:read scope)")
        self.fetched(response)
        sizes, following = parse_sizes_page(response.body, urlsplit(self.api_url).netloc)
        yield from self.items(response, "digitalocean.size", sizes, regions=self.regions)
        if following:
            yield self.get(following)
