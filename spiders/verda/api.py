"""Verda (formerly DataCrunch): the official API at https://api.verda.com/v1.
A client ID and secret buy an access token (`POST /oauth2/token`, the OAuth
client-credentials grant the verda SDK uses); with it as a Bearer token:
`GET /instance-types?currency=usd`, `GET /locations` and
`GET /instance-availability?isSpot=false|true`. The client secret and the
tokens are written to captures as a placeholder."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from scrapy import Request
from scrapy.http import Response

from spiders.base import ProviderSpider, SourceFailure
from spiders.crawling.middlewares import SECRET_PARAMS_SETTING
from spiders.har import SECRET_PLACEHOLDER
from spiders.verda.api_pages import access_token, parse_availability, parse_instance_types, parse_locations

API_URL = "https://api.verda.com/v1"
KEY_HINT = (
    "set client_id and client_secret under [providers.verda], "
    "or GPU_TRACKER_VERDA_CLIENT_ID and GPU_TRACKER_VERDA_CLIENT_SECRET"
)


class VerdaSpider(ProviderSpider):
    name = "verda"
    provider = "verda"
    custom_settings: dict[str, Any] | None = {  # noqa: RUF012 (scrapy.Spider declares it per instance)
        SECRET_PARAMS_SETTING: ["client_id", "client_secret", "access_token", "refresh_token"],
        "REFERER_ENABLED": False,
    }

    def __init__(self, client_id: str = "", client_secret: str = "", api_url: str = API_URL, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.client_id = client_id
        self.client_secret = client_secret
        self.api_url = api_url.rstrip("/")

    async def start(self) -> Any:
        if not (self.client_id and self.client_secret) and not self.settings.get("GPU_TRACKER_REPLAY"):
            raise SourceFailure(f"Verda: no API client; {KEY_HINT}")
        body = {
            "grant_type": "client_credentials",
            "client_id": self.client_id or SECRET_PLACEHOLDER,
            "client_secret": self.client_secret or SECRET_PLACEHOLDER,
        }
        yield Request(
            f"{self.api_url}/oauth2/token",
            method="POST",
            body=json.dumps(body),
            headers={"Content-Type": "application/json", "Accept": "application/json"},
            callback=self.on_token,
            errback=self.on_error,
            meta={"handle_httpstatus_list": [400, 401, 403]},
            dont_filter=True,
        )

    def on_token(self, response: Response) -> Iterable[Any]:
        if response.status != 200:
            raise SourceFailure(f"Verda: the API client was refused (HTTP {response.status}); {KEY_HINT}")
        self.fetched(response)
        headers = {"Authorization": f"Bearer {access_token(response.body)}", "Accept": "application/json"}
        asks: tuple[tuple[str, Callable[..., Iterable[Any]], dict[str, Any]], ...] = (
            ("instance-types?currency=usd", self.on_types, {}),
            ("locations", self.on_locations, {}),
            ("instance-availability?isSpot=false", self.on_availability, {"spot": False}),
            ("instance-availability?isSpot=true", self.on_availability, {"spot": True}),
        )
        for path, callback, kwargs in asks:
            yield self.request(f"{self.api_url}/{path}", callback, headers=headers, cb_kwargs=kwargs)

    def on_types(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        yield from self.items(response, "verda.type", parse_instance_types(response.body), regions=self.regions)

    def on_locations(self, response: Response) -> Iterable[Any]:
        self.fetched(response)
        yield from self.items(response, "verda.location", parse_locations(response.body))

    def on_availability(self, response: Response, spot: bool) -> Iterable[Any]:
        self.fetched(response)
        yield from self.items(response, "verda.availability", parse_availability(response.body, spot))
