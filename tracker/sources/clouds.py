"""The clouds' GPU price sources (their pages, price lists and official APIs) and their spot interruption advice. Declared as the registry (tracker/sources/__init__.py) reads them."""

from __future__ import annotations

from tracker.sources.source import Source


def sources() -> tuple[Source, ...]:
    from spiders.alibaba.api import AlibabaApiSpider
    from spiders.alibaba.spider import AlibabaChinaSpider, AlibabaSpider
    from spiders.alibaba.spot_advice import AlibabaSpotAdviceSpider
    from spiders.aws.reserved import AwsReservedSpider
    from spiders.aws.spider import AwsSpider
    from spiders.aws.spot_advisor import AwsSpotAdvisorSpider
    from spiders.azure.spider import AzureSpider
    from spiders.evidence import Evidence
    from spiders.gcp.spider import GcpSpider
    from spiders.huawei.api import HuaweiApiSpider
    from spiders.huawei.spider import HuaweiSpider
    from spiders.tencent.api import TencentApiSpider
    from spiders.tencent.spider import TencentSpider
    from spiders.volcengine.api import VolcengineApiSpider
    from spiders.volcengine.spider import VolcengineSpider
    from spiders.volcengine.spot_advice import VolcengineSpotAdviceSpider
    from tracker.normalize.providers import (
        alibaba,
        aws,
        aws_bulk,
        aws_spot,
        azure,
        china_spot,
        gcp,
        huawei,
        tencent,
        volcengine,
    )

    every = "every region, or those named"
    od_spot = ("on_demand", "spot")
    subscription = ("on_demand", "monthly", "yearly")
    return (
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
    )
