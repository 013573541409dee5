"""The side cost sources of the registry (tracker/sources/__init__.py): each
reads the same list as its provider's GPU price source, kept to side costs."""

from __future__ import annotations

from typing import Any

from tracker.sources.source import Source


def sources() -> tuple[Source, ...]:
    return tuple(Source(**kw) for kw in _declared())


def _declared() -> tuple[dict[str, Any], ...]:
    from spiders.alibaba.side_costs import AlibabaSideCostsSpider
    from spiders.aws.side_costs import AwsSideCostsSpider
    from spiders.azure.side_costs import AzureSideCostsSpider
    from spiders.evidence import Evidence
    from spiders.gcp.side_costs import GcpSideCostsSpider
    from spiders.tencent.side_costs import TencentSideCostsSpider
    from tracker.normalize.side_costs import alibaba, aws, azure, gcp, tencent

    fixture = "tests/fixtures/side-costs/{}/README.md, tests/normalize/test_side_costs.py"
    return (
        dict(
            name="aws-side-costs",
            provider="aws",
            spider=AwsSideCostsSpider,
            normalizer=aws.normalize,
            price_models=("on_demand",),
            regions="3 regions by default, or those named",
            # No real AWSDataTransfer or AmazonVPC file was found: the fixture is ours in the documented
            # format, but for the gp3 product (a real AmazonEC2 file's). Crawled when named.
            evidence=Evidence(
                "assumed",
                "our own files in AWS's documented price list format (AWSDataTransfer, AmazonVPC); only the"
                " gp3 product is a real AmazonEC2 file's, as a public repository keeps it (see the fixture's README)",
                fixture=fixture.format("aws"),
            ),
        ),
        dict(
            name="azure-side-costs",
            provider="azure",
            spider=AzureSideCostsSpider,
            normalizer=azure.normalize,
            price_models=("on_demand",),
            regions="2 regions by default, or those named",
            # No real answer for these meters was found: the pages are ours in the documented shape.
            evidence=Evidence(
                "assumed",
                "our own pages in the Retail Prices API's documented shape (BillingCurrency, Items, NextPageLink),"
                " with Bandwidth, managed disk and IP address meters as public clients read them",
                fixture=fixture.format("azure"),
            ),
        ),
        dict(
            name="gcp-side-costs",
            provider="gcp",
            spider=GcpSideCostsSpider,
            normalizer=gcp.normalize,
            needs_api_key=True,
            price_models=("on_demand",),
            regions="3 regions by default, or those named",
            evidence=Evidence(
                "capture",
                "Compute Engine catalog SKUs (PremiumInternetEgress, SSD, PDStandard) as a public repository keeps"
                " them (see the fixture's README)",
                date="2020-10-05",
                fixture=fixture.format("gcp"),
            ),
        ),
        # The China clouds' price APIs, with the AccessKey pair of their `-api` source (the `china` extra).
        dict(
            name="tencent-side-costs",
            provider="tencent",
            spider=TencentSideCostsSpider,
            normalizer=tencent.normalize,
            needs_api_key=True,
            price_models=("on_demand",),
            regions="3 regions by default, or those named",
            evidence=Evidence(
                "example",
                "the API reference's example answers of InquiryPriceRunInstances (traffic billed by the GB),"
                " InquiryPriceCreateDisks (a disk by the hour) and DescribeZones, TencentCloud/tencentcloud-cli"
                "@30417c981050 tccli/examples/{cvm,cbs}/v20170312/ (see the fixture's README)",
                fixture=fixture.format("tencent") + ", tests/spiders/test_china_side_costs.py",
            ),
        ),
        dict(
            name="alibaba-side-costs",
            provider="alibaba",
            spider=AlibabaSideCostsSpider,
            normalizer=alibaba.normalize,
            needs_api_key=True,
            price_models=("on_demand",),
            regions="3 regions by default, or those named",
            # No answer to a bandwidth or disk inquiry is public: ours, in the SDK model's shape.
            evidence=Evidence(
                "sdk",
                "alibabacloud_ecs20140526 DescribePriceResponseBody (PriceInfo.Price.DetailInfos.DetailInfo[]"
                " Resource, TradePrice, OriginalPrice); our answers to ResourceType=bandwidth and =disk inquiries"
                " in that shape (see the fixture's README)",
                fixture=fixture.format("alibaba") + ", tests/spiders/test_china_side_costs.py",
            ),
        ),
    )
