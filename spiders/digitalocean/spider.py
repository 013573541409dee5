"""DigitalOcean: GPU Droplet sizes from the official API,
`GET https://api.digitalocean.com/v2/sizes?per_page=200`, followed through
`links.pages.next`. It needs a personal access token (scope sizes:read), sent
as `Authorization: Bearer`; captures and logs carry a placeholder instead."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from scrapy.http import Response

from spiders.base import ProviderSpider, SourceFailure
from spiders.digitalocean.pages import parse_sizes_page
from spiders.har import SECRET_PLACEHOLDER

API_URL = "https://api.digitalocean.com/v2/sizes"
PER_PAGE = 200


class DigitalOceanSpider(ProviderSpider):
    name = "digitalocean"
    provider = "digitalocean"

    def __init__(self, api_key: str = "", api_url: str = API_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.api_key = api_key
        self.api_url = api_url

    def get(self, url: str) -> Any:
        # A replay needs no real token: captures are matched without headers.
        token = self.api_key or SECRET_PLACEHOLDER
        return self.request(
            url,
            self.parse,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            meta={"handle_httpstatus_list": [401, 403]},
        )

    async def start(self) -> Any:
        if not self.api_key and not self.settings.get("GPU_TRACKER_REPLAY"):
            raise SourceFailure(
                "DigitalOcean: no API token (set [providers.digitalocean] api_key or GPU_TRACKER_DIGITALOCEAN_API_KEY)"
            )
        yield self.get(f"{self.api_url}?per_page={PER_PAGE}")

    def parse(self, response: Response) -> Iterable[Any]:
        if response.status in (401, 403):
            raise SourceFailure(
                f"DigitalOcean: the token was refused (HTTP {response.status}); it needs the sizes:read scope "
                "([providers.digitalocean] api_key or GPU_TRACKER_DIGITALOCEAN_API_KEY)"
            )
        self.fetched(response)
        sizes, following = parse_sizes_page(response.body, urlsplit(self.api_url).netloc)
        yield from self.items(response, "digitalocean.size", sizes, regions=self.regions)
        if following:
            yield self.get(following)
