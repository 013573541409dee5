"""Side costs read from the providers' own lists (tests/fixtures/side-costs/,
each with a README saying where its shape comes from): AWS's bulk offer
files, Azure's Retail Prices API, GCP's Cloud Billing Catalog."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from spiders.aws.bulk_pages import parse_offer_file
from spiders.aws.side_costs import side_product
from spiders.azure.side_costs import parse_side_page
from spiders.gcp.side_costs import parse_side_page as parse_gcp_page
from tests.conftest import FIXTURES
from tracker.normalize import NormalizeError
from tracker.normalize.side_costs import aws, azure, gcp, tier_words

HERE = FIXTURES / "side-costs"
AT = "2026-11-30T06:00:00Z"


def aws_items(name: str, region: str = "us-east-1") -> list[dict]:
    _, records = parse_offer_file((HERE / "aws" / name).read_bytes(), side_product)
    return [
        {"kind": "aws.side_product", "observed_at": AT, "source_url": "u", "region": region, "data": r} for r in records
    ]


def table(quotes) -> dict[tuple[str, str], tuple[str, str, dict]]:
    return {(q.region, q.instance_type): (format(q.price.normalize(), "f"), q.unit.value, q.attrs) for q in quotes}


def test_tier_words() -> None:
    assert tier_words(Decimal(0), Decimal(10240)) == "first 10 TB"
    assert tier_words(Decimal(10240), Decimal(51200)) == "next 40 TB"
    assert tier_words(Decimal(153600), None) == "over 150 TB"
    assert tier_words(Decimal(0), None) == ""
    assert tier_words(Decimal(0), Decimal(100)) == "first 100 GB"


def test_aws_transfer_tiers_directions_disk_and_address() -> None:
    items = [*aws_items("AWSDataTransfer-us-east-1.json"), *aws_items("AmazonEC2-us-east-1.json")]
    items += aws_items("AmazonVPC-us-east-1.json")
    got = table(aws.normalize(items).quotes)
    assert {k[1]: v[:2] for k, v in got.items()} == {
        "internet egress, first 10 TB": ("0.09", "gb"),
        "internet egress, next 40 TB": ("0.085", "gb"),
        "internet egress, next 100 TB": ("0.07", "gb"),
        "internet egress, over 150 TB": ("0.05", "gb"),
        "inter-region transfer to us-west-2": ("0.02", "gb"),
        "inter-region transfer to eu-west-1": ("0.02", "gb"),
        "inter-zone transfer": ("0.01", "gb"),
        "disk gp3": ("0.08", "gb_month"),
        "public IPv4": ("0.005", "hour"),
    }
    # Inbound transfer, a transfer leaving another region, gp2 and idle addresses are left out.
    attrs = got[("us-east-1", "internet egress, next 40 TB")][2]
    assert (attrs["side_cost"], attrs["tier_from_gb"], attrs["tier_to_gb"]) == ("internet_egress", "10240", "51200")
    assert got[("us-east-1", "internet egress, over 150 TB")][2]["tier_to_gb"] == ""


def test_aws_a_dimension_in_another_unit_is_refused() -> None:
    page = json.loads((HERE / "aws" / "AmazonVPC-us-east-1.json").read_text())
    for term in page["terms"]["OnDemand"]["CCCCUSE1IPV4USE0"].values():
        for dimension in term["priceDimensions"].values():
            dimension["unit"] = "GB"
    _, records = parse_offer_file(json.dumps(page).encode(), side_product)
    item = {"kind": "aws.side_product", "observed_at": AT, "source_url": "u", "region": "us-east-1"}
    with pytest.raises(NormalizeError, match="a public_ip priced per 'GB', not per hour"):
        aws.normalize([{**item, "data": r} for r in records])


def azure_items() -> list[dict]:
    items = []
    for name in ("bandwidth", "disks", "ip"):
        meters, link = parse_side_page((HERE / "azure" / f"{name}-eastus.json").read_bytes())
        assert link is None
        items += [
            {"kind": "azure.side_meter", "observed_at": AT, "source_url": "u", "region": "eastus", "data": m}
            for m in meters
        ]
    return items


def test_azure_tiers_from_minimum_units_and_disks_per_gb_month() -> None:
    got = table(azure.normalize(azure_items()).quotes)
    assert {k[1]: v[:2] for k, v in got.items()} == {
        "internet egress, first 10 TB": ("0.087", "gb"),
        "internet egress, next 40 TB": ("0.083", "gb"),
        "internet egress, next 100 TB": ("0.07", "gb"),
        "internet egress, over 150 TB": ("0.05", "gb"),
        "inter-region transfer": ("0.02", "gb"),
        "disk Premium SSD P30": ("0.12", "gb_month"),
        "disk Premium SSD P10": ("0.153984375", "gb_month"),
        "disk Standard SSD E30": ("0.075", "gb_month"),
        "disk Standard SSD E10": ("0.075", "gb_month"),
        "public IPv4": ("0.005", "hour"),
    }
    e30 = got[("eastus", "disk Standard SSD E30")][2]
    assert (e30["disk_gb"], e30["disk_month_price"]) == ("1024", "76.8")


def test_gcp_matched_by_category_not_wording() -> None:
    skus, token = parse_gcp_page((HERE / "gcp" / "skus-page-1.json").read_bytes())
    assert token is None
    assert "4E32-F036-B1D1" not in {s["skuId"] for s in skus}  # a CPU SKU: not a side cost
    items = [
        {"kind": "gcp.side_sku", "observed_at": AT, "source_url": "u", "regions": ["us-east4"], "data": s} for s in skus
    ]
    got = table(gcp.normalize(items).quotes)
    assert {k[1]: v[:2] for k, v in got.items()} == {
        "disk pd-standard": ("0.044", "gb_month"),
        "disk pd-ssd": ("0.187", "gb_month"),
        # The old wording and the new one are both read: the category decides.
        "internet egress to Americas, first 1 TB": ("0.12", "gb"),
        "internet egress to Americas, next 9 TB": ("0.11", "gb"),
        "internet egress to Americas, over 10 TB": ("0.08", "gb"),
        "internet egress to EMEA, first 1 TB": ("0.12", "gb"),
        "internet egress to EMEA, next 9 TB": ("0.11", "gb"),
        "internet egress to EMEA, over 10 TB": ("0.08", "gb"),
        "inter-region transfer to Iowa": ("0.01", "gb"),
        "inter-zone transfer": ("0.01", "gb"),
    }
    # A region the crawl did not ask for prices nothing.
    assert not gcp.normalize([{**i, "regions": ["us-central1"]} for i in items]).quotes
