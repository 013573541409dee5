"""Every source we can crawl. Adding a provider is one line in `_registry`.

Each source names its spider class and its normalizer function themselves,
so an import reader can follow them. Spider modules import Scrapy, which
takes a while to load: `SOURCES` is built on first use (PEP 562), and
`from tracker.sources import Source` stays cheap for the command line."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracker.normalize import Normalizer

    SOURCES: dict[str, Source]


@dataclass(frozen=True)
class Source:
    name: str
    provider: str
    # None for a source whose rows come from a file (`gpu-tracker import`).
    spider: type[Any] | None
    normalizer: Normalizer | None
    kind: str = "prices"
    # The spider remembers what it discovers (a version, a template code) in
    # a state file the tracker names; see spiders/state.py.
    keeps_state: bool = False
    # A live crawl needs [providers.<provider>] api_key, or for the `-api` sources
    # access_key_id and access_key_secret (or their environment variables).
    needs_api_key: bool = False

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


@cache
def _registry() -> dict[str, Source]:
    from spiders.alibaba.api import AlibabaApiSpider
    from spiders.alibaba.offers import AlibabaOffersSpider
    from spiders.alibaba.spider import AlibabaChinaSpider, AlibabaSpider
    from spiders.aws.offers import AwsOffersSpider
    from spiders.aws.reserved import AwsReservedSpider
    from spiders.aws.spider import AwsSpider
    from spiders.azure.offers import AzureOffersSpider
    from spiders.azure.spider import AzureSpider
    from spiders.digitalocean.spider import DigitalOceanSpider
    from spiders.gcp.offers import GcpOffersSpider
    from spiders.gcp.spider import GcpSpider
    from spiders.huawei.api import HuaweiApiSpider
    from spiders.huawei.offers import HuaweiOffersSpider
    from spiders.huawei.spider import HuaweiSpider
    from spiders.tencent.api import TencentApiSpider
    from spiders.tencent.offers import TencentOffersSpider
    from spiders.tencent.spider import TencentSpider
    from spiders.verda.api import VerdaSpider
    from spiders.volcengine.api import VolcengineApiSpider
    from spiders.volcengine.offers import VolcengineOffersSpider
    from spiders.volcengine.spider import VolcengineSpider
    from spiders.vultr.spider import VultrSpider
    from tracker.normalize import offers
    from tracker.normalize.providers import (
        alibaba,
        aws,
        aws_bulk,
        azure,
        digitalocean,
        gcp,
        huawei,
        tencent,
        verda,
        volcengine,
        vultr,
    )

    sources = (
        Source("azure", "azure", AzureSpider, azure.normalize),
        Source("aws", "aws", AwsSpider, aws.normalize),
        Source("aws-reserved", "aws", AwsReservedSpider, aws_bulk.normalize),
        Source("alibaba", "alibaba", AlibabaSpider, alibaba.normalize, keeps_state=True),
        Source("alibaba-cn", "alibaba", AlibabaChinaSpider, alibaba.normalize, keeps_state=True),
        Source("volcengine", "volcengine", VolcengineSpider, volcengine.normalize, keeps_state=True),
        Source("tencent", "tencent", TencentSpider, tencent.normalize),
        Source("huawei", "huawei", HuaweiSpider, huawei.normalize),
        Source("gcp", "gcp", GcpSpider, gcp.normalize, needs_api_key=True),
        # The China clouds' official APIs, with the user's AccessKey pair (the `china` extra).
        Source("tencent-api", "tencent", TencentApiSpider, tencent.normalize_api, needs_api_key=True),
        Source("alibaba-api", "alibaba", AlibabaApiSpider, alibaba.normalize_api, needs_api_key=True),
        Source("huawei-api", "huawei", HuaweiApiSpider, huawei.normalize_api, needs_api_key=True),
        Source("volcengine-api", "volcengine", VolcengineApiSpider, volcengine.normalize_api, needs_api_key=True),
        # GPU clouds.
        Source("vultr", "vultr", VultrSpider, vultr.normalize),
        Source("digitalocean", "digitalocean", DigitalOceanSpider, digitalocean.normalize, needs_api_key=True),
        Source("verda", "verda", VerdaSpider, verda.normalize, needs_api_key=True),
        Source("aws-offers", "aws", AwsOffersSpider, offers.normalize, kind="offers"),
        Source("azure-offers", "azure", AzureOffersSpider, offers.normalize, kind="offers"),
        Source("gcp-offers", "gcp", GcpOffersSpider, offers.normalize, kind="offers"),
        Source("alibaba-offers", "alibaba", AlibabaOffersSpider, offers.normalize, kind="offers"),
        Source("tencent-offers", "tencent", TencentOffersSpider, offers.normalize, kind="offers"),
        Source("huawei-offers", "huawei", HuaweiOffersSpider, offers.normalize, kind="offers"),
        Source("volcengine-offers", "volcengine", VolcengineOffersSpider, offers.normalize, kind="offers"),
    )
    return {s.name: s for s in sources}


def __getattr__(name: str) -> Any:
    if name == "SOURCES":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
