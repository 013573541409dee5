"""Every source we can crawl. Adding a provider is one line here."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    name: str
    provider: str
    spider: str
    normalizer: str
    kind: str = "prices"
    # The spider remembers what it discovers (a version, a template code) in
    # a state file the tracker names; see spiders/state.py.
    keeps_state: bool = False
    # A live crawl needs [providers.<provider>] api_key, or for the `-api` sources
    # access_key_id and access_key_secret (or their environment variables).
    needs_api_key: bool = False


SOURCES: dict[str, Source] = {
    s.name: s
    for s in (
        Source("azure", "azure", "spiders.azure:AzureSpider", "tracker.normalize.azure"),
        Source("aws", "aws", "spiders.aws:AwsSpider", "tracker.normalize.aws"),
        Source("aws-reserved", "aws", "spiders.aws_bulk:AwsReservedSpider", "tracker.normalize.aws_reserved"),
        Source("alibaba", "alibaba", "spiders.alibaba:AlibabaSpider", "tracker.normalize.alibaba", keeps_state=True),
        Source(
            "alibaba-cn", "alibaba", "spiders.alibaba:AlibabaChinaSpider", "tracker.normalize.alibaba", keeps_state=True
        ),
        Source(
            "volcengine",
            "volcengine",
            "spiders.volcengine:VolcengineSpider",
            "tracker.normalize.volcengine",
            keeps_state=True,
        ),
        Source("tencent", "tencent", "spiders.tencent:TencentSpider", "tracker.normalize.tencent"),
        Source("huawei", "huawei", "spiders.huawei:HuaweiSpider", "tracker.normalize.huawei"),
        Source("gcp", "gcp", "spiders.gcp:GcpSpider", "tracker.normalize.gcp", needs_api_key=True),
        # The China clouds' official APIs, with the user's AccessKey pair (the `china` extra).
        Source(
            "tencent-api",
            "tencent",
            "spiders.api.tencent:TencentApiSpider",
            "tracker.normalize.tencent_api",
            needs_api_key=True,
        ),
        Source(
            "alibaba-api",
            "alibaba",
            "spiders.api.alibaba:AlibabaApiSpider",
            "tracker.normalize.alibaba_api",
            needs_api_key=True,
        ),
        Source(
            "huawei-api",
            "huawei",
            "spiders.api.huawei:HuaweiApiSpider",
            "tracker.normalize.huawei_api",
            needs_api_key=True,
        ),
        Source(
            "volcengine-api",
            "volcengine",
            "spiders.api.volcengine:VolcengineApiSpider",
            "tracker.normalize.volcengine_api",
            needs_api_key=True,
        ),
        Source("aws-offers", "aws", "spiders.offers.aws:AwsOffersSpider", "tracker.normalize.offers", kind="offers"),
        Source(
            "azure-offers", "azure", "spiders.offers.azure:AzureOffersSpider", "tracker.normalize.offers", kind="offers"
        ),
        Source("gcp-offers", "gcp", "spiders.offers.gcp:GcpOffersSpider", "tracker.normalize.offers", kind="offers"),
        Source(
            "alibaba-offers",
            "alibaba",
            "spiders.offers.alibaba:AlibabaOffersSpider",
            "tracker.normalize.offers",
            kind="offers",
        ),
        Source(
            "tencent-offers",
            "tencent",
            "spiders.offers.tencent:TencentOffersSpider",
            "tracker.normalize.offers",
            kind="offers",
        ),
        Source(
            "huawei-offers",
            "huawei",
            "spiders.offers.huawei:HuaweiOffersSpider",
            "tracker.normalize.offers",
            kind="offers",
        ),
        Source(
            "volcengine-offers",
            "volcengine",
            "spiders.offers.volcengine:VolcengineOffersSpider",
            "tracker.normalize.offers",
            kind="offers",
        ),
    )
}
