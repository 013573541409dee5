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
    from spiders.evidence import Evidence
    from tracker.normalize import Normalizer

    SOURCES: dict[str, Source]


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
    # a state file the tracker names; see spiders/state.py.
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


@cache
def _registry() -> dict[str, Source]:
    from spiders.alibaba.api import AlibabaApiSpider
    from spiders.alibaba.offers import AlibabaOffersSpider
    from spiders.alibaba.spider import AlibabaChinaSpider, AlibabaSpider
    from spiders.alibaba.spot_advice import AlibabaSpotAdviceSpider
    from spiders.autodl.spider import AutodlSpider
    from spiders.aws.offers import AwsOffersSpider
    from spiders.aws.reserved import AwsReservedSpider
    from spiders.aws.spider import AwsSpider
    from spiders.aws.spot_advisor import AwsSpotAdvisorSpider
    from spiders.azure.offers import AzureOffersSpider
    from spiders.azure.spider import AzureSpider
    from spiders.coreweave.spider import CoreWeaveSpider
    from spiders.crusoe.spider import CrusoeSpider
    from spiders.digitalocean.spider import DigitalOceanSpider
    from spiders.evidence import Evidence
    from spiders.gcp.offers import GcpOffersSpider
    from spiders.gcp.spider import GcpSpider
    from spiders.huawei.api import HuaweiApiSpider
    from spiders.huawei.offers import HuaweiOffersSpider
    from spiders.huawei.spider import HuaweiSpider
    from spiders.lambda_.spider import LambdaSpider
    from spiders.matpool.spider import MatpoolSpider
    from spiders.nebius.spider import NebiusSpider
    from spiders.oci.spider import OciSpider
    from spiders.runpod.spider import RunpodCommunitySpider, RunpodSpider
    from spiders.tencent.api import TencentApiSpider
    from spiders.tencent.offers import TencentOffersSpider
    from spiders.tencent.spider import TencentSpider
    from spiders.tensordock.spider import TensordockSpider
    from spiders.vastai.spider import VastaiSpider
    from spiders.verda.api import VerdaSpider
    from spiders.volcengine.api import VolcengineApiSpider
    from spiders.volcengine.offers import VolcengineOffersSpider
    from spiders.volcengine.spider import VolcengineSpider
    from spiders.volcengine.spot_advice import VolcengineSpotAdviceSpider
    from spiders.vultr.spider import VultrSpider
    from tracker.normalize import offers
    from tracker.normalize.providers import (
        alibaba,
        autodl,
        aws,
        aws_bulk,
        aws_spot,
        azure,
        china_spot,
        coreweave,
        crusoe,
        digitalocean,
        gcp,
        huawei,
        lambda_,
        matpool,
        nebius,
        oci,
        runpod,
        tencent,
        tensordock,
        vastai,
        verda,
        volcengine,
        vultr,
    )

    every = "every region, or those named"
    od_spot = ("on_demand", "spot")
    subscription = ("on_demand", "monthly", "yearly")
    sources = (
        Source(
            "azure",
            "azure",
            AzureSpider,
            azure.normalize,
            price_models=(*od_spot, "low_priority", "reserved", "savings_plan"),
            regions="2 regions by default, or those named",
            evidence=Evidence(
                "example",
                "the Retail Prices API's documented answer (Microsoft's example: BillingCurrency, Items,"
                " NextPageLink), holding 370 GPU meters as the API published them on 2026-08-03"
                " (a third party's projection, value for value); reservations and savings plans filler",
                fixture="tracker/demo_captures/azure/README.md, tests/spiders/test_azure.py",
            ),
        ),
        Source(
            "aws",
            "aws",
            AwsSpider,
            aws.normalize,
            price_models=od_spot,
            regions=every,
            evidence=Evidence(
                "capture",
                "the pricing page's locations.json, metadata.json, spot feed and 66 rows of the us-east-1"
                " Linux table as AWS served them (a third party's copy, value for value); the other rows filler",
                "2026-08-06",
                "tracker/demo_captures/aws/README.md, tests/spiders/test_aws.py",
            ),
        ),
        Source(
            "aws-reserved",
            "aws",
            AwsReservedSpider,
            aws_bulk.normalize,
            price_models=("reserved", "savings_plan", "on_demand"),
            regions="5 regions by default (a 1 GB file each), or those named",
            evidence=Evidence(
                "example",
                "AWS's documented price list file format (Billing docs, 'Reading the service price list file'"
                " and '... for a Savings Plan', JSON); the files themselves filler",
                fixture="tracker/demo_captures/aws-reserved/README.md, tests/spiders/test_aws_reserved.py",
            ),
        ),
        Source(
            "aws-spot-advisor",
            "aws",
            AwsSpotAdvisorSpider,
            aws_spot.normalize,
            # Spot interruption bands per type, region and OS (db/spot_risk.py), no prices.
            kind="spot_risk",
            price_models=("spot",),
            regions="every region (one file), or those named",
            evidence=Evidence(
                "capture",
                "spot-advisor-data.json as alexei-led/spotinfo@5eedf20 keeps it"
                " (internal/spot/data/spot-advisor-data.json), trimmed to GPU types",
                date="2025-06-28",
                fixture="tests/fixtures/aws-spot-advisor/real/README.md, tests/spiders/test_aws_spot_advisor.py",
            ),
        ),
        Source(
            "alibaba",
            "alibaba",
            AlibabaSpider,
            alibaba.normalize,
            keeps_state=True,
            price_models=(*subscription, "spot"),
            regions=every,
            evidence=Evidence(
                "assumed",
                "no real copy of instancePrice.json is stored in public code (searched by file name, URL and key"
                " form); the shape is public clients' parsers' reading (one unattributed inline excerpt, version"
                " 2.0.7 of 2018 with two non-GPU keys, agrees)",
                fixture="tests/fixtures/alibaba/README.md",
            ),
        ),
        Source(
            "alibaba-cn",
            "alibaba",
            AlibabaChinaSpider,
            alibaba.normalize,
            keeps_state=True,
            price_models=(*subscription, "spot"),
            regions=every,
            evidence=Evidence(
                "assumed",
                "no real copy of the China site's instancePrice.json is stored in public code; the shape is the"
                " international file's, as public clients read both",
                fixture="tests/fixtures/alibaba/README.md",
            ),
        ),
        Source(
            "volcengine",
            "volcengine",
            VolcengineSpider,
            volcengine.normalize,
            keeps_state=True,
            price_models=("on_demand", "monthly"),
            regions=every,
            stock="per zone",
            evidence=Evidence(
                "assumed",
                "no real copy of the anonymous-api ListTemplate / GetTable answers is stored in public code; the"
                " shape is a third party's parser's reading (fuzzbuster/ec2instances.info volcengine/scrape.go)",
                fixture="tests/fixtures/volcengine/README.md",
            ),
        ),
        Source(
            "tencent",
            "tencent",
            TencentSpider,
            tencent.normalize,
            price_models=(*od_spot, "monthly"),
            regions="2 regions by default, or those named",
            stock="per zone",
            evidence=Evidence(
                "example",
                "the items: DescribeZoneInstanceConfigInfos's documented example answers (TencentCloud/tencentcloud-cli"
                " tccli/examples/cvm/v20170312/DescribeZoneInstanceConfigInfos.md); the workbench envelope"
                " {code, data} is public clients' reading only",
                fixture="tests/fixtures/tencent-api/real/README.md",
            ),
        ),
        Source(
            "huawei",
            "huawei",
            HuaweiSpider,
            huawei.normalize,
            price_models=subscription,
            regions=every,
            evidence=Evidence(
                "assumed",
                "no real copy of the calculator's productInfo answer is stored in public code; the shape is third"
                " parties' parsers' reading (fuzzbuster/ec2instances.info huaweicloud/scrape.go, j0taaa/huaweicalculatorAPI)",
                fixture="tracker/demo_captures/huawei/README.md",
            ),
        ),
        Source(
            "gcp",
            "gcp",
            GcpSpider,
            gcp.normalize,
            needs_api_key=True,
            price_models=(*od_spot, "reserved"),
            regions=every,
            evidence=Evidence(
                "example",
                "the Cloud Billing Catalog API's documented Sku (REST reference), with SKU descriptions and"
                " rates from public copies of the catalogue (2023 and 2026); a constructed capture",
                fixture="tracker/demo_captures/gcp/README.md, tests/spiders/test_gcp.py",
            ),
        ),
        # The China clouds' official APIs, with the user's AccessKey pair (the `china` extra).
        Source(
            "tencent-api",
            "tencent",
            TencentApiSpider,
            tencent.normalize_api,
            needs_api_key=True,
            price_models=(*od_spot, "monthly", "yearly"),
            regions="3 regions by default, or those named",
            stock="per zone",
            evidence=Evidence(
                "example",
                "DescribeZoneInstanceConfigInfos example answers, TencentCloud/tencentcloud-cli@5e3914c270f7 (2025-09-23)"
                " and @6dfd3b16a9b9 (2021-03-05) tccli/examples/cvm/v20170312/DescribeZoneInstanceConfigInfos.md",
                fixture="tests/fixtures/tencent-api/real/README.md",
            ),
        ),
        Source(
            "alibaba-api",
            "alibaba",
            AlibabaApiSpider,
            alibaba.normalize_api,
            needs_api_key=True,
            price_models=(*subscription, "spot"),
            regions="3 regions by default, or those named",
            stock="per zone",
            evidence=Evidence(
                "example",
                "DescribePrice example answer of the ECS API reference, SkyeYXL/ecs@17d2d149a903"
                " cn.zh-CN/API参考/其他接口/DescribePrice.md; the other answers: SDK models (alibabacloud_ecs20140526)",
                fixture="tests/fixtures/alibaba-api/real/README.md",
            ),
        ),
        Source(
            "huawei-api",
            "huawei",
            HuaweiApiSpider,
            huawei.normalize_api,
            needs_api_key=True,
            price_models=subscription,
            regions="3 regions by default, or those named",
            evidence=Evidence(
                "example",
                "the ECS API reference's cond:operation:status / cond:operation:az example (abandon with "
                "az0(normal), az1(sellout), az2(obt), az3(normal)): opentelekomcloud-docs/elastic-cloud-server"
                "@efcbeed, SDK model huaweicloudsdkecs FlavorExtraSpec; Huawei's API usage guide's answer",
                fixture="tests/fixtures/huawei-api/README.md, tests/spiders/test_huawei_api.py",
            ),
        ),
        Source(
            "volcengine-api",
            "volcengine",
            VolcengineApiSpider,
            volcengine.normalize_api,
            needs_api_key=True,
            price_models=subscription,
            regions="3 regions by default, or those named",
            stock="per zone",
            evidence=Evidence(
                "sdk",
                "volcengine-python-sdk models (volcenginesdkbilling QueryPriceForPayAsYouGoResponse /"
                " QueryPriceForSubscriptionResponse, volcenginesdkecs DescribeInstanceTypesResponse /"
                " DescribeAvailableResourceResponse); no documented billing example answer is public",
                fixture="tests/fixtures/volcengine-api/README.md",
            ),
        ),
        # Spot interruption rates of the China clouds, to the same AccessKey pair (docs/spot-risk.md).
        Source(
            "alibaba-spot-advice",
            "alibaba",
            AlibabaSpotAdviceSpider,
            china_spot.normalize_alibaba,
            kind="spot_risk",
            needs_api_key=True,
            price_models=("spot",),
            regions="3 regions by default, or those named",
            evidence=Evidence(
                "example",
                "DescribeSpotAdvice's documented example answer (ECS API reference, alibabacloud.com/help/en/ecs/"
                "developer-reference/api-ecs-2014-05-26-describespotadvice) and the SDK model"
                " (alibabacloud_ecs20140526 DescribeSpotAdviceResponseBody)",
                fixture="tests/fixtures/alibaba-spot-advice/README.md, tests/spiders/test_china_spot_advice.py",
            ),
        ),
        Source(
            "volcengine-spot-advice",
            "volcengine",
            VolcengineSpotAdviceSpider,
            china_spot.normalize_volcengine,
            kind="spot_risk",
            needs_api_key=True,
            price_models=("spot",),
            regions="3 regions by default, or those named",
            evidence=Evidence(
                "sdk",
                "volcengine-python-sdk model volcenginesdkecs DescribeSpotAdviceResponse"
                " (AvailableSpotResources, InterruptionRateRange); no documented example answer is public",
                fixture="tests/fixtures/volcengine-spot-advice/README.md, tests/spiders/test_china_spot_advice.py",
            ),
        ),
        # GPU clouds.
        Source(
            "vultr",
            "vultr",
            VultrSpider,
            vultr.normalize,
            price_models=od_spot,
            regions="the regions a plan can be deployed in, or those named",
            stock="per region",
            evidence=Evidence(
                "example",
                "Vultr's API reference (plans, plans-metal, meta.links.next); plan ids and prices as public"
                " clients' answers give them (gpuhunt's Vultr tests); a constructed capture",
                fixture="tests/fixtures/vultr/make_fixtures.py, tests/spiders/test_vultr.py",
            ),
        ),
        Source(
            "digitalocean",
            "digitalocean",
            DigitalOceanSpider,
            digitalocean.normalize,
            needs_api_key=True,
            price_models=("on_demand",),
            regions="the regions a size can be created in",
            stock="per region",
            evidence=Evidence(
                "example",
                "the size object of DigitalOcean's OpenAPI description (digitalocean/openapi,"
                " specification/resources/sizes), gpu_info as its clients show it; a constructed capture",
                fixture="tests/fixtures/digitalocean/make_fixtures.py, tests/spiders/test_digitalocean.py",
            ),
        ),
        Source(
            "verda",
            "verda",
            VerdaSpider,
            verda.normalize,
            needs_api_key=True,
            price_models=od_spot,
            regions="every location",
            stock="per location",
            evidence=Evidence(
                "sdk",
                "verda-cloud/sdk-python: InstanceType (prices as decimal strings), the instance-availability"
                " entries of its integration tests, locations; a constructed capture",
                fixture="tests/fixtures/verda/make_fixtures.py, tests/spiders/test_verda.py",
            ),
        ),
        Source(
            "lambda",
            "lambda",
            LambdaSpider,
            lambda_.normalize,
            needs_api_key=True,
            price_models=("on_demand",),
            regions=every,
            stock="per region",
            evidence=Evidence(
                "example",
                "Lambda's OpenAPI specification 1.10.0 (listInstanceTypes, listRegions and their examples);"
                " types, specs and older prices from SkyPilot's Lambda catalogue; a constructed capture",
                fixture="tests/fixtures/lambda/make_fixtures.py, tests/spiders/test_lambda.py",
            ),
        ),
        Source(
            "oci",
            "oci",
            OciSpider,
            oci.normalize,
            price_models=("on_demand",),
            regions="one list price for every region, stored under those named",
            evidence=Evidence(
                "capture",
                "a real cetools products answer (currencyCode=USD) as a public collector recorded it, trimmed to its"
                " GPU Per Hour parts: getcomputable/gpu-index@38e515c00ad4 tests/fixtures/observatory/oracle/products_usd.json",
                date="2026-08-22",
                fixture="tests/fixtures/oci/README.md, tests/spiders/test_oci.py",
            ),
        ),
        Source(
            "nebius",
            "nebius",
            NebiusSpider,
            nebius.normalize,
            price_models=od_spot,
            regions="the regions each platform is sold in",
            evidence=Evidence(
                "assumed",
                "no real copy of pricing.md is public; its shape as public readers describe it and as the one public"
                " parser of it reads it (jwilliamross/compute-curve NebiusCollector and its test data); the figures"
                " checked against a real copy of nebius.com/prices, getcomputable/gpu-index@055204adf5e6"
                " tests/fixtures/observatory/nebius/prices.html (2026-08-22)",
                fixture="tests/fixtures/nebius/README.md, tracker/demo_captures/nebius/README.md",
            ),
        ),
        Source(
            "coreweave",
            "coreweave",
            CoreWeaveSpider,
            coreweave.normalize,
            price_models=od_spot,
            regions="North America and Europe (one table each on the page)",
            evidence=Evidence(
                "capture",
                "the pricing page as served, ewyluda/gpu-price-index@078a7891acf5"
                " tests/fixtures/coreweave.html (its GPU section, verbatim)",
                date="2026-10-04",
                fixture="tests/fixtures/coreweave/README.md, tests/spiders/test_coreweave.py",
            ),
        ),
        Source(
            "runpod",
            "runpod",
            RunpodSpider,
            runpod.normalize,
            price_models=od_spot,
            regions="every data centre, or those named",
            stock="per data centre and GPU count",
            evidence=Evidence(
                "sdk",
                "the GraphQL fields runpod-python's queries read (runpod/api/queries/gpus.py: gpuTypes, prices,"
                " lowestPrice); stockStatus as gpuhunt reads it; a constructed capture",
                fixture="tests/fixtures/runpod/make_fixtures.py, tests/spiders/test_runpod.py",
            ),
        ),
        # Marketplaces: thousands of host offers, stored per GPU, count and region (docs/marketplaces.md).
        Source(
            "vastai",
            "vastai",
            VastaiSpider,
            vastai.normalize,
            kind="marketplace",
            needs_api_key=True,
            price_models=od_spot,
            regions="macro regions of the hosts' countries",
            stock="offers per GPU, count, region and tier",
            evidence=Evidence(
                "example",
                "Vast.ai's API reference, 'Search Offers (GET)' (vast-ai/docs: id, gpu_name, num_gpus,"
                " dph_total, min_bid, gpu_ram, verification); geolocation as its CLI names it; a constructed capture",
                fixture="tests/fixtures/vastai/make_fixtures.py, tests/spiders/test_vastai.py",
            ),
        ),
        Source(
            "tensordock",
            "tensordock",
            TensordockSpider,
            tensordock.normalize,
            kind="marketplace",
            needs_api_key=True,
            price_models=("on_demand",),
            regions="macro regions of the hosts' countries",
            stock="hostnodes per GPU, count, region and tier",
            evidence=Evidence(
                "example",
                "TensorDock's API docs, 'Fetch Hostnodes and Locations' (v0Name, price_per_hr, pricing, tier);"
                " the hostnodes' available GPUs as public v2 clients read them; a constructed capture",
                fixture="tests/fixtures/tensordock/make_fixtures.py, tests/spiders/test_tensordock.py",
            ),
        ),
        Source(
            "runpod-community",
            "runpod",
            RunpodCommunitySpider,
            runpod.normalize_community,
            kind="marketplace",
            price_models=od_spot,
            regions="macro regions of every country, or of those named",
            stock="countries per GPU, count and region",
            evidence=Evidence(
                "sdk",
                "the GraphQL fields runpod-python's queries read (runpod/api/queries/gpus.py: communityPrice,"
                " communitySpotPrice, lowestPrice per country); a constructed capture",
                fixture="tests/fixtures/runpod/make_fixtures.py, tests/spiders/test_runpod.py",
            ),
        ),
        Source(
            "autodl",
            "autodl",
            AutodlSpider,
            autodl.normalize,
            kind="marketplace",
            needs_api_key=True,
            price_models=("on_demand",),
            regions="AutoDL's regions (北京B区 ...), every one or those named",
            stock="machines with GPUs free, per GPU, count and region",
            evidence=Evidence(
                "capture",
                "one machine record of a real market-list answer, trimmed by its author (gpu_order_num 0, "
                "payg_price 2720): mfznttkx/autodl-gpuhunter@f5969e2 gpuhunter/autodl_client.py",
                date="2024-03-29",
                fixture="tests/fixtures/autodl/README.md, tests/spiders/test_autodl.py",
            ),
        ),
        Source(
            "matpool",
            "matpool",
            MatpoolSpider,
            matpool.normalize,
            kind="marketplace",
            needs_api_key=True,
            price_models=("on_demand",),
            regions="one market (china)",
            stock="machines with GPUs free, per GPU and count",
            evidence=Evidence(
                "assumed",
                "no real answer is public (a user's token only); the shape and meaning (a unit's price, "
                "units of several GPUs, domain) as two public clients read them: Aoblex/matpool-cli@676e791 "
                "test/fixtures.js, src/views.js, docs/api-notes.md; quziang/matpool-gpu@9fef9bf "
                "references/inventory.md",
                fixture="tests/fixtures/matpool/README.md",
            ),
        ),
        Source(
            "crusoe",
            "crusoe",
            CrusoeSpider,
            crusoe.normalize,
            needs_api_key=True,
            price_models=("on_demand",),
            regions="the locations Crusoe states capacity in, or those named",
            stock="per location",
            evidence=Evidence(
                "capture",
                "the pricing page as served (GPU instances, Self-Serve Deployments), trimmed: "
                "getcomputable/gpu-index@055204a tests/fixtures/observatory/crusoe/pricing.html; "
                "the API's answers from Crusoe's OpenAPI definition",
                date="2026-08-22",
                fixture="tests/fixtures/crusoe/README.md, tests/spiders/test_crusoe.py",
            ),
        ),
        Source(
            "aws-offers",
            "aws",
            AwsOffersSpider,
            offers.normalize,
            kind="offers",
            evidence=Evidence(
                "capture",
                "the stored copy of aws.amazon.com/free/free-tier-faqs (its question-and-answer layout and answers);"
                " the Free Tier directory's JSON envelope as the public client jumping-dragon/freebies-analyzer"
                " src/server/api/routers/aws.ts declares it",
                fixture="tests/fixtures/aws-offers/real/expected.toml",
            ),
        ),
        Source(
            "azure-offers",
            "azure",
            AzureOffersSpider,
            offers.normalize,
            kind="offers",
            evidence=Evidence(
                "capture",
                "the stored copies of azure.microsoft.com offer pages ms-azr-0044p (sv-se) and ms-azr-0017g (en-us):"
                " their section order and facts",
                fixture="tests/fixtures/azure-offers/real/expected.toml",
            ),
        ),
        Source(
            "gcp-offers",
            "gcp",
            GcpOffersSpider,
            offers.normalize,
            kind="offers",
            evidence=Evidence(
                "capture",
                "the stored copy (.md.txt) of Google Cloud's Free Program page free-cloud-features on"
                " docs.cloud.google.com: its term list, headings, anchors and sentences",
                fixture="tests/fixtures/gcp-offers/real/expected.toml",
            ),
        ),
        Source(
            "alibaba-offers",
            "alibaba",
            AlibabaOffersSpider,
            offers.normalize,
            kind="offers",
            evidence=Evidence(
                "assumed",
                "no stored copy of free.aliyun.com or alibabacloud.com/free: the page is rendered by JavaScript; its"
                " products come from a public README's table and a third-party page",
                fixture="tests/fixtures/alibaba-offers/real/expected.toml",
            ),
        ),
        Source(
            "tencent-offers",
            "tencent",
            TencentOffersSpider,
            offers.normalize,
            kind="offers",
            evidence=Evidence(
                "capture",
                "the text of cloud.tencent.com/act/new as a stored third-party copy gives it (www.520cd.com/hot/2032.html):"
                " sections, voucher ladder, rules; the headings and list markup are our reading of that text",
                fixture="tests/fixtures/tencent-offers/real/expected.toml",
            ),
        ),
        Source(
            "huawei-offers",
            "huawei",
            HuaweiOffersSpider,
            offers.normalize,
            kind="offers",
            evidence=Evidence(
                "assumed",
                "no stored copy of activity.huaweicloud.com's pages (apps rendered by JavaScript); their slogans come"
                " from Huawei's own links, the card layout is ours",
                fixture="tests/fixtures/huawei-offers/real/expected.toml",
            ),
        ),
        Source(
            "volcengine-offers",
            "volcengine",
            VolcengineOffersSpider,
            offers.normalize,
            kind="offers",
            evidence=Evidence(
                "assumed",
                "no stored copy of www.volcengine.com/activity/codingplan; its plan table comes from a public"
                " comparison note",
                fixture="tests/fixtures/volcengine-offers/real/expected.toml",
            ),
        ),
    )
    from tracker.normalize.side_costs.sources import side_cost_sources

    return {s.name: s for s in (*sources, *(Source(**kw) for kw in side_cost_sources()))}


def __getattr__(name: str) -> Any:
    if name == "SOURCES":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
