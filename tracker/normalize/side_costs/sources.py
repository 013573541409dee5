"""The side cost sources of the registry (tracker/sources.py), as the
keyword arguments of its `Source`: each reads the same list as its
provider's GPU price source, kept to side costs."""

from __future__ import annotations

from typing import Any


def side_cost_sources() -> tuple[dict[str, Any], ...]:
    from spiders.aws.side_costs import AwsSideCostsSpider
    from spiders.azure.side_costs import AzureSideCostsSpider
    from spiders.evidence import Evidence
    from spiders.gcp.side_costs import GcpSideCostsSpider
    from tracker.normalize.side_costs import aws, azure, gcp

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
    )
