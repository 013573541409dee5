"""Hostile answers for the GPU clouds' sources (Lambda, OCI, Nebius,
CoreWeave): the page objects raise only PageShapeError, and what they do
return the normalizers read or refuse with NormalizeError, never a crash."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from parsel import Selector

from spiders.coreweave.pages import parse_gpu_instances
from spiders.lambda_.pages import api_error, parse_instance_types, parse_regions
from spiders.nebius.pages import parse_pricing
from spiders.oci.pages import parse_products
from spiders.pages import PageShapeError
from tests.security.shapes import bodies, html_pages
from tests.security.test_fuzz import FUZZ
from tests.security.test_fuzz_pages import HTML_FUZZ
from tracker.normalize import NormalizeError
from tracker.normalize.providers import coreweave, lambda_, nebius, oci

WHEN = "2026-11-02T07:00:00Z"
TYPES = {
    "data": {
        "gpu_8x_h100_sxm5": {
            "instance_type": {
                "name": "gpu_8x_h100_sxm5",
                "description": "8x H100 (80 GB SXM5)",
                "gpu_description": "H100 (80 GB SXM5)",
                "price_cents_per_hour": 2392,
                "specs": {"vcpus": 208, "memory_gib": 1800, "storage_gib": 24780, "gpus": 8},
            },
            "regions_with_capacity_available": [{"name": "us-east-1", "description": "Virginia, USA"}],
        }
    }
}
REGIONS = {"data": [{"name": "us-east-1", "description": "Virginia, USA"}]}
PRICE_LIST = {
    "lastUpdated": "2026-10-28T09:09:55.872Z",
    "items": [
        {
            "partNumber": "B98415",
            "displayName": "Oracle Cloud Infrastructure - Compute - GPU - H100",
            "metricName": "GPU Per Hour",
            "serviceCategory": "Compute - GPU",
            "currencyCodeLocalizations": [{"currencyCode": "USD", "prices": [{"model": "PAY_AS_YOU_GO", "value": 10}]}],
        }
    ],
}
NEBIUS_LINES = [
    "#### NVIDIA® H100 NVLink with Intel Sapphire Rapids",
    "This platform is available in the `eu-north1` region.",
    '<Tabs>\n<Tab title="USD">',
    "| **Item — from October 1, 2026** | **Price** | **Unit** |",
    "|---|---|---|",
    "| NVIDIA® H100 NVLink with Intel Sapphire Rapids | \\$4.50 | 1 GPU hour |",
    "| Preemptible NVIDIA® L40S PCIe with Intel Ice Lake. CPU | \\$0.012 | 1 vCPU hour |",
    "</Tab>\n</Tabs>",
    "## Disks",
]


def _survives(normalize: Any, kind: str, records: list[Any], **extra: Any) -> None:
    items = [{"kind": kind, "observed_at": WHEN, "source_url": "https://x", **extra, "data": r} for r in records]
    try:
        normalize(items)
    except NormalizeError:
        pass


@FUZZ
@given(bodies(TYPES), bodies(REGIONS))
def test_lambda_answers(types: bytes, regions: bytes) -> None:
    assert api_error(types) is None or isinstance(api_error(types), str)
    try:
        records = parse_regions(regions)
    except PageShapeError:
        records = []
    _survives(lambda_.normalize, "lambda.region", records, regions=[])
    try:
        found = parse_instance_types(types)
    except PageShapeError:
        return
    _survives(lambda_.normalize, "lambda.instance_type", found, regions=["us-east-1"])


@FUZZ
@given(bodies(PRICE_LIST))
def test_oci_price_list(body: bytes) -> None:
    try:
        products, _updated, _next = parse_products(body)
    except PageShapeError:
        return
    _survives(oci.normalize, "oci.product", products, regions=["us-ashburn-1"], currency="USD", last_updated="x")


@FUZZ
@given(st.lists(st.sampled_from(NEBIUS_LINES) | st.text(max_size=40), max_size=12))
def test_nebius_page(lines: list[str]) -> None:
    try:
        rows = parse_pricing("\n".join(lines))
    except PageShapeError:
        return
    _survives(nebius.normalize, "nebius.price", rows, regions=[])


@HTML_FUZZ
@given(
    html_pages(
        ["div", "h3", "sup", "p", "section", "script"],
        ["role", "data-x"],
        ["kubernetes-gpu-pricing", "table-row-v2", "table-row", "table-v2-cell", "table-model-name"],
    )
    | st.lists(
        st.sampled_from(
            ["On-demand GPU instances", "Region: North America", "NVIDIA HGX H100", "On-Demand Price:", "$49.24/hr"]
            + ["Spot Price:", "8", "GPU Count", "Contact sales", "On-demand CPU instances"]
        )
        | st.text(max_size=20),
        max_size=14,
    ).map(lambda lines: "<html><body>" + "".join(f"<div>{line}</div>" for line in lines) + "</body></html>")
)
def test_coreweave_page(html: str) -> None:
    try:
        rows = parse_gpu_instances(Selector(text=html))
    except PageShapeError:
        return
    _survives(coreweave.normalize, "coreweave.instance", rows, regions=[])
