"""User watch pages: `[[watch]]` entries in the configuration, crawled as
the source `watch:<name>`.

```toml
[[watch]]
name = "gcp-free"
url = "https://cloud.google.com/free"
provider = "gcp"
kind = "free_credit"          # optional; "price" makes each match a price
selector = ".offer"           # each match is one offer (or one price)
browser = false               # true: render with Chromium, wait for the selector
ignore = ["\\d+ people viewing"]   # regular expressions of volatile text
```
"""

from __future__ import annotations

import json
import re
from typing import Literal

from cssselect import GenericTranslator, SelectorError
from pydantic import BaseModel, ConfigDict, Field, field_validator

from db.kinds import OfferKind
from tracker.errors import UserError
from tracker.sources import Source

WATCH_PREFIX = "watch:"


class WatchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", description="crawled as watch:<name>")
    url: str = Field(pattern=r"^https?://", description="the page to watch")
    provider: str = Field(min_length=1)
    kind: OfferKind | Literal["price"] | None = Field(None, description="what each match is; default: read it")
    selector: str = Field(min_length=1, description="CSS selector; each match is one offer or price")
    browser: bool = False
    wait_for: str | None = Field(None, description="CSS to wait for in the browser; default: the selector")
    ignore: list[str] = Field(default_factory=list, description="regular expressions of volatile text")
    currency: str | None = Field(None, pattern=r"^[A-Za-z]{3}$", description="when the page shows none")

    @field_validator("selector", "wait_for")
    @classmethod
    def _css(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                GenericTranslator().css_to_xpath(value)
            except SelectorError as exc:
                raise ValueError(f"{value!r} is not a CSS selector: {exc}") from None
        return value

    @field_validator("ignore")
    @classmethod
    def _patterns(cls, value: list[str]) -> list[str]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from None
        return value

    @property
    def source_name(self) -> str:
        return WATCH_PREFIX + self.name


def is_watch(name: str) -> bool:
    return name.startswith(WATCH_PREFIX)


def watch_source(watches: list[WatchSettings], name: str) -> tuple[Source, dict[str, str]]:
    """The source and spider arguments of `watch:<name>`."""
    wanted = name.removeprefix(WATCH_PREFIX)
    found = [w for w in watches if w.name == wanted]
    if not found:
        known = ", ".join(w.source_name for w in watches) or "none; add a [[watch]] entry to config.toml"
        raise UserError(f"unknown watch page {name!r}; configured: {known}")
    if len(found) > 1:
        raise UserError(f"two [[watch]] entries are named {wanted!r}; give each its own name")
    watch = found[0]
    # Spiders import Scrapy: only a watch crawl pays for it.
    from spiders.watch import BrowserWatchSpider, WatchSpider
    from tracker.normalize.offers.watch import normalize

    source = Source(
        watch.source_name,
        watch.provider,
        BrowserWatchSpider if watch.browser else WatchSpider,
        normalize,
        kind="prices" if watch.kind == "price" else "offers",
    )
    args = {
        "url": watch.url,
        "selector": watch.selector,
        "watch": watch.name,
        "watch_provider": watch.provider,
        "offer_kind": watch.kind or "",
        "ignore": json.dumps(watch.ignore),
        "currency": watch.currency or "",
        "wait_for": watch.wait_for or "",
    }
    return source, args
