"""Crusoe Cloud: the public pricing page (`https://www.crusoe.ai/cloud/pricing`,
the price per GPU-hour of each GPU) and the official API
(`https://api.crusoecloud.com/v1alpha5`, signed with the user's access key:
the project's VM types and the capacity Crusoe has now per type and
location). Captures keep the Authorization header as a placeholder."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scrapy import Request
from scrapy.http import Response, TextResponse

from spiders.base import ProviderSpider, SourceFailure
from spiders.crusoe.pages import api_error, first_project, parse_capacities, parse_pricing, parse_types
from spiders.crusoe.signing import signed_headers
from spiders.har import SECRET_PLACEHOLDER

PRICING_URL = "https://www.crusoe.ai/cloud/pricing"
API_URL = "https://api.crusoecloud.com/v1alpha5"
KEY_HINT = (
    "set access_key_id and access_key_secret under [providers.crusoe], "
    "or GPU_TRACKER_CRUSOE_ACCESS_KEY_ID and GPU_TRACKER_CRUSOE_ACCESS_KEY_SECRET"
)


class CrusoeSpider(ProviderSpider):
    name = "crusoe"
    provider = "crusoe"
    custom_settings: dict[str, Any] | None = {"REFERER_ENABLED": False}  # noqa: RUF012 (scrapy.Spider declares it per instance)

    def __init__(
        self,
        access_key_id: str = "",
        access_key_secret: str = "",
        project_id: str = "",
        api_url: str = API_URL,
        pricing_url: str = PRICING_URL,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.access_key_id = access_key_id
        self.access_key_secret = access_key_secret
        self.project_id = project_id
        self.api_url = api_url.rstrip("/")
        self.pricing_url = pricing_url

    def _api(self, path: str, callback: Any) -> Request:
        # A replay signs with placeholders: captures match without their headers.
        url = f"{self.api_url}{path}"
        key, secret = self.access_key_id or SECRET_PLACEHOLDER, self.access_key_secret or SECRET_PLACEHOLDER
        headers = {"Accept": "application/json", **signed_headers("GET", url, key, secret)}
        meta = {"handle_httpstatus_list": [400, 401, 403]}
        return self.request(url, callback, headers=headers, meta=meta, dont_filter=True)

    async def start(self) -> Any:
        if not (self.access_key_id and self.access_key_secret) and not self.settings.get("GPU_TRACKER_REPLAY"):
            raise SourceFailure(f"Crusoe: no API key; {KEY_HINT}")
        yield self.request(self.pricing_url, self.on_pricing)
        if self.project_id:
            yield self._api(f"/projects/{self.project_id}/compute/vms/types", self.on_types)
        else:
            yield self._api("/organizations/projects", self.on_projects)
        yield self._api("/capacities", self.on_capacities)

    def _answer(self, response: Response) -> None:
        if response.status in (401, 403):
            error = api_error(response.body) or f"HTTP {response.status}"
            raise SourceFailure(f"Crusoe refused the API key ({error}); {KEY_HINT}")
        self.fetched(response)

    def on_pricing(self, response: TextResponse) -> Iterable[Any]:
        self.fetched(response)
        yield from self.items(response, "crusoe.price", parse_pricing(response.selector), regions=self.regions)

    def on_projects(self, response: Response) -> Iterable[Any]:
        self._answer(response)
        yield self._api(f"/projects/{first_project(response.body)}/compute/vms/types", self.on_types)

    def on_types(self, response: Response) -> Iterable[Any]:
        self._answer(response)
        yield from self.items(response, "crusoe.type", parse_types(response.body), regions=self.regions)

    def on_capacities(self, response: Response) -> Iterable[Any]:
        self._answer(response)
        yield from self.items(response, "crusoe.capacity", parse_capacities(response.body), regions=self.regions)
