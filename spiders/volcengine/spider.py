"""Volcano Engine: the anonymous backend of the public price page.

`ListTemplate` checks the ECS template code and gives each configuration's
vCPU, memory and zones; `GetTable` gives the prices. The code comes from the
configuration, else the state file, else the last one known when this was
written; when the API does not know it, the spider reads the current one
from the pricing page's server-rendered state (plain JSON, no browser), and
only when that names none loads the JS-rendered page in the browser and
reads the code from the requests it makes; it remembers the code and tries
once more.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, ClassVar

import scrapy
from scrapy.http import Response
from twisted.python.failure import Failure

from spiders.base import ProviderSpider
from spiders.crawling.state import read_state, write_state
from spiders.har import with_query
from spiders.pages import PageShapeError
from spiders.volcengine.pages import (
    Template,
    parse_table,
    parse_template,
    pick_template_code,
    ssr_template_codes,
    template_codes,
)

API_URL = "https://www.volcengine.com/anonymous-api/trade/price"
PRICING_PAGE = "https://www.volcengine.com/pricing?product=ECS"
# The same page's server-rendered state, as public clients of the page read it.
PAGE_STATE = (
    "https://www.volcengine.com/pricing?product=ECS&tab=1&__loader=__ssr_without_user/pricing/page&__ssrDirect=true"
)
# The page's price table, rendered once its data has arrived.
PAGE_READY = "table, [class*='price-table'], [class*='pricing-table']"


class VolcengineSpider(ProviderSpider):
    name = "volcengine"
    provider = "volcengine"
    uses_browser = True
    known_template: ClassVar[str] = "CLT7310571628986405164"

    def __init__(
        self,
        state_file: str = "",
        template_code: str = "",
        pricing_page: str = PRICING_PAGE,
        page_state: str = PAGE_STATE,
        api_url: str = API_URL,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.state_file = state_file
        self.configured_template = template_code
        self.page_url = pricing_page
        self.state_url = page_state
        self.api_url = api_url
        self.page_requests: list[str] = []

    def headers(self) -> dict[str, str]:
        return {"Origin": "https://www.volcengine.com", "Referer": self.page_url, "Accept": "application/json"}

    async def start(self) -> Any:
        state = read_state(self.state_file)
        if self.configured_template and state.get("replaces") != self.configured_template:
            code = self.configured_template
        else:  # a configured code once found stale gives way to the one found instead
            code = state.get("template_code") or self.configured_template or self.known_template
        yield self.template_request(str(code), rediscovered=False)

    def template_request(self, code: str, *, rediscovered: bool) -> Any:
        url = with_query(self.api_url, f"Action=ListTemplate&Version=2020-01-01&TemplateCode={code}")
        return self.request(
            url,
            self.parse_template,
            headers=self.headers(),
            dont_filter=True,
            cb_kwargs={"code": code, "rediscovered": rediscovered},
        )

    def parse_template(self, response: Response, code: str, rediscovered: bool) -> Iterable[Any]:
        self.fetched(response)
        specs = parse_template(response.body)
        if specs is None:
            if rediscovered:
                raise PageShapeError(
                    f"Volcano Engine: ListTemplate does not know template {code}, the code the pricing page uses"
                )
            self.notes.append(
                f"volcengine: the API does not know template {code}; reading the current one from {self.state_url}"
            )
            yield scrapy.Request(
                self.state_url,
                callback=self.parse_state,
                errback=self.state_failed,
                headers={"Accept": "application/json", "Referer": self.page_url},
                dont_filter=True,
                cb_kwargs={"stale": code},
            )
            return
        write_state(self.state_file, template_code=code)
        yield self.request(
            with_query(self.api_url, "Action=GetTable&Version=2020-01-01"),
            self.parse_table,
            method="POST",
            body=json.dumps({"TemplateCode": code}),
            headers={**self.headers(), "Content-Type": "application/json"},
            dont_filter=True,
            cb_kwargs={"code": code, "specs": specs},
        )

    def parse_state(self, response: Response, stale: str) -> Iterable[Any]:
        found = ssr_template_codes(response.body) if response.status == 200 else set()
        if not found:
            yield self.page_in_browser(stale, f"HTTP {response.status}" if response.status != 200 else "no code")
            return
        self.fetched(response)
        yield from self.use_code(pick_template_code(found, self.state_url), stale)

    def state_failed(self, failure: Failure) -> Iterable[Any]:
        request = failure.request  # type: ignore[attr-defined]  # Scrapy sets it on an errback's failure
        yield self.page_in_browser(request.cb_kwargs["stale"], str(failure.value))

    def page_in_browser(self, stale: str, why: str) -> Any:
        self.notes.append(f"volcengine: the page state names no template code ({why}); rendering {self.page_url}")
        return self.browser_request(
            self.page_url,
            self.parse_page,
            wait_for=PAGE_READY,
            cb_kwargs={"stale": stale},
            meta={"playwright_page_event_handlers": {"request": self.on_page_request}},
        )

    def use_code(self, code: str, stale: str) -> Iterable[Any]:
        if code == stale:
            raise PageShapeError(
                f"Volcano Engine: ListTemplate does not know template {code}, and the pricing page still uses it"
            )
        self.notes.append(f"volcengine: the pricing page uses template {code}")
        write_state(self.state_file, template_code=code, replaces=stale)
        yield self.template_request(code, rediscovered=True)

    def on_page_request(self, request: Any) -> None:
        self.page_requests.append(f"{request.url} {request.post_data or ''}")

    def parse_page(self, response: Response, stale: str) -> Iterable[Any]:
        self.fetched(response)
        asked = [r for r in self.page_requests if "anonymous-api/trade/price" in r]
        found = template_codes(asked) or template_codes([response.text])
        yield from self.use_code(pick_template_code(found, self.page_url), stale)

    def parse_table(self, response: Response, code: str, specs: Template) -> Iterable[Any]:
        self.fetched(response)
        rows = parse_table(response.body, self.notes)
        if self.regions:
            rows = [r for r in rows if r["Region"] in self.regions]
        for row in rows:
            row["abilities"] = specs.abilities.get(row["configuration"], {})
            # None: the template does not say where it sells this one.
            row["zones"] = specs.zones.get(row["configuration"], {}).get(row["Region"])
        yield from self.items(response, "volcengine.price", rows, template_code=code)
