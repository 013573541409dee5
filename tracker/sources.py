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
        """'spiders.azure:AzureSpider': how a child process (and a stored
        run) names the spider."""
        if self.spider is None:
            return ""
        return f"{self.spider.__module__}:{self.spider.__qualname__}"

    @property
    def uses_browser(self) -> bool:
        return bool(getattr(self.spider, "uses_browser", False))


@cache
def _registry() -> dict[str, Source]:
    from spiders.alibaba import AlibabaChinaSpider, AlibabaSpider
    from spiders.api.alibaba import AlibabaApiSpider
    from spiders.api.huawei import HuaweiApiSpider
    from spiders.api.tencent import TencentApiSpider
    from spiders.api.volcengine import VolcengineApiSpider
    from spiders.aws import AwsSpider
    from spiders.aws_bulk import AwsReservedSpider
    from spiders.azure import AzureSpider
    from spiders.gcp import GcpSpider
    from spiders.huawei import HuaweiSpider
    from spiders.offers.alibaba import AlibabaOffersSpider
    from spiders.offers.aws import AwsOffersSpider
    from spiders.offers.azure import AzureOffersSpider
    from spiders.offers.gcp import GcpOffersSpider
    from spiders.offers.huawei import HuaweiOffersSpider
    from spiders.offers.tencent import TencentOffersSpider
    from spiders.offers.volcengine import VolcengineOffersSpider
    from spiders.tencent import TencentSpider
    from spiders.volcengine import VolcengineSpider
    from tracker.normalize import (
        alibaba,
        alibaba_api,
        aws,
        aws_reserved,
        azure,
        gcp,
        huawei,
        huawei_api,
        offers,
        tencent,
        tencent_api,
        volcengine,
        volcengine_api,
    )

    sources = (
        Source("azure", "azure", AzureSpider, azure.normalize),
        Source("aws", "aws", AwsSpider, aws.normalize),
        Source("aws-reserved", "aws", AwsReservedSpider, aws_reserved.normalize),
        Source("alibaba", "alibaba", AlibabaSpider, alibaba.normalize, keeps_state=True),
        Source("alibaba-cn", "alibaba", AlibabaChinaSpider, alibaba.normalize, keeps_state=True),
        Source("volcengine", "volcengine", VolcengineSpider, volcengine.normalize, keeps_state=True),
        Source("tencent", "tencent", TencentSpider, tencent.normalize),
        Source("huawei", "huawei", HuaweiSpider, huawei.normalize),
        Source("gcp", "gcp", GcpSpider, gcp.normalize, needs_api_key=True),
        # The China clouds' official APIs, with the user's AccessKey pair (the `china` extra).
        Source("tencent-api", "tencent", TencentApiSpider, tencent_api.normalize, needs_api_key=True),
        Source("alibaba-api", "alibaba", AlibabaApiSpider, alibaba_api.normalize, needs_api_key=True),
        Source("huawei-api", "huawei", HuaweiApiSpider, huawei_api.normalize, needs_api_key=True),
        Source("volcengine-api", "volcengine", VolcengineApiSpider, volcengine_api.normalize, needs_api_key=True),
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
