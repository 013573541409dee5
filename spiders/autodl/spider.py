"""AutoDL: the GPU market list, page by page, pay-as-you-go machines with at
least one GPU free, with the user's own console token (AutoDL publishes no
key for this list: it is the token the console sends, in `Authorization`
without a `Bearer` prefix). Captures keep a placeholder."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

import scrapy
from scrapy.http import Response

from spiders.autodl.pages import api_error, parse_machines
from spiders.base import BearerSpider, SourceFailure
from spiders.har import SECRET_PLACEHOLDER
from spiders.pages import load_json

API_URL = "https://www.autodl.com/api/v1/user/machine/list"
PAGE_SIZE = 100  # the most the list gives a page
MAX_PAGES = 200
AUTH_CODES = ("AuthorizeFailed", "Unauthorized", "LoginRequired")


def list_body(regions: list[str], page: int) -> bytes:
    """The console's own filter, every GPU model, pay as you go, a GPU free."""
    body = {
        "charge_type": "payg",
        "region_sign": "",
        "gpu_type_name": [],
        "machine_tag_name": [],
        "gpu_idle_num": 1,
        "mount_net_disk": False,
        "instance_disk_size_order": "",
        "date_range": "",
        "date_from": "",
        "date_to": "",
        "page_index": page,
        "page_size": PAGE_SIZE,
        "pay_price_order": "",
        "gpu_idle_type": "",
        "default_order": True,
        "region_sign_list": list(regions),
    }
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


class AutodlSpider(BearerSpider):
    """A `BearerSpider` but for the header: AutoDL takes the token bare."""

    name = "autodl"
    provider = "autodl"
    api_url = API_URL

    def page(self, number: int) -> scrapy.Request:
        headers = {
            "Authorization": self.api_key or SECRET_PLACEHOLDER,
            "Content-Type": "application/json;charset=UTF-8",
            "Origin": "https://www.autodl.com",
            "Referer": "https://www.autodl.com/market/list",
        }
        return self.request(
            self.api_url,
            self.parse,
            method="POST",
            body=list_body(self.regions, number),
            headers=headers,
            dont_filter=True,
            cb_kwargs={"number": number},
        )

    def key_hint(self) -> str:
        return "copy your AutoDL console token into [providers.autodl] api_key or GPU_TRACKER_AUTODL_API_KEY"

    async def start(self) -> AsyncIterator[Any]:
        self.require_key(self.api_key, "token")
        yield self.page(1)

    def parse(self, response: Response, number: int) -> Iterable[Any]:
        self.refused(response, "token")
        error = api_error(load_json(response.body, "autodl: the machine list"))
        if error and error[0].startswith(AUTH_CODES):
            raise SourceFailure(f"autodl: the token was refused ({error[0]}: {error[1]}); {self.key_hint()}")
        self.fetched(response)
        machines, odd, last = parse_machines(response.body)
        if odd:
            self.notes.append(f"autodl: page {number}: skipped {odd} machines without a region, GPU, count or price")
        yield from self.items(response, "autodl.machine", machines, regions=self.regions)
        if self.more_pages(number, last, MAX_PAGES):
            yield self.page(number + 1)
