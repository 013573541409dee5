"""A source we can crawl, as the registry (tracker/sources/__init__.py)
declares it: cheap to import (no spider, no Scrapy)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spiders.evidence import Evidence
    from tracker.normalize import Normalizer


@dataclass(frozen=True)
class Source:
    name: str
    provider: str
    # None for a source whose rows come from a file (`gpu-tracker import`).
    spider: type[Any] | None
    normalizer: Normalizer | None
    # "prices", "offers", "spot_risk" (spot interruption bands, db/spot_risk.py),
    # or "marketplace": host offers stored as aggregates
    # (docs/marketplaces.md), through the same store path as prices.
    kind: str = "prices"
    # The spider remembers what it discovers (a version, a template code) in
    # a state file the tracker names; see spiders/crawling/state.py.
    keeps_state: bool = False
    # A live crawl needs [providers.<provider>] api_key, or for the `-api` sources
    # access_key_id and access_key_secret (or their environment variables).
    needs_api_key: bool = False
    # What the providers table (docs/providers.md, tracker/cli/providers.py)
    # says of the source: the price models it stores (PriceModel values), the
    # regions it covers, and where it states stock ("" when it does not).
    price_models: tuple[str, ...] = ()
    regions: str = ""
    stock: str = ""
    # What verified this source's reading of its provider (spiders/evidence.py):
    # shown in the providers table and by `gpu-tracker sources`.
    evidence: Evidence | None = None

    @property
    def spider_path(self) -> str:
        """'spiders.azure.spider:AzureSpider': how a child process (and a stored
        run) names the spider."""
        if self.spider is None:
            return ""
        return f"{self.spider.__module__}:{self.spider.__qualname__}"

    @property
    def uses_browser(self) -> bool:
        return bool(getattr(self.spider, "uses_browser", False))

    @property
    def evidence_label(self) -> str:
        """The evidence column's words: 'real capture (2026-10-04)', 'assumed'..."""
        return self.evidence.label() if self.evidence else "not declared"

    @property
    def crawled_by_default(self) -> bool:
        """Whether the daemon (and deploy/k8s/cronjobs.yaml) crawls it without
        being told: only when its evidence is declared and is more than
        `assumed`. Any source is crawled when named ([daemon] sources, or
        `gpu-tracker crawl <name>`)."""
        return self.evidence is not None and self.evidence.kind != "assumed"
