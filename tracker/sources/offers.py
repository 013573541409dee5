"""The promotion pages: each provider's offers, read by the offer reader. Declared as the registry (tracker/sources/__init__.py) reads them."""

from __future__ import annotations

from tracker.sources.source import Source


def sources() -> tuple[Source, ...]:
    from spiders.alibaba.offers import AlibabaOffersSpider
    from spiders.aws.offers import AwsOffersSpider
    from spiders.azure.offers import AzureOffersSpider
    from spiders.evidence import Evidence
    from spiders.gcp.offers import GcpOffersSpider
    from spiders.huawei.offers import HuaweiOffersSpider
    from spiders.tencent.offers import TencentOffersSpider
    from spiders.volcengine.offers import VolcengineOffersSpider
    from tracker.normalize import offers

    return (
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
