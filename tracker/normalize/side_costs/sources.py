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
            evidence=Evidence(
                "example",
                "AWS's documented price list file format (AWSDataTransfer, AmazonEC2, AmazonVPC offer files); the"
                " gp3 product as a public repository keeps a real AmazonEC2 file's (see the fixture's README)",
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
            evidence=Evidence(
                "example",
                "the Retail Prices API's documented answer (BillingCurrency, Items, NextPageLink) holding Bandwidth,"
                " managed disk and IP address meters as public clients read them",
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
