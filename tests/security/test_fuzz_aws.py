"""Hostile AWS answers (pricing pages, bulk offer and savings plan files, the
free plan directory) raise only PageShapeError."""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spiders.aws.bulk_pages import GpuProducts, parse_offer_file, parse_region_index, subset_body
from spiders.aws.offers import parse_free_tier
from spiders.aws.pages import (
    parse_locations,
    parse_metadata,
    parse_ondemand_page,
    parse_spot_advisor,
    parse_spot_feed,
    unwrap_callback,
)
from spiders.aws.savings_pages import GpuRates, parse_plan_file, parse_plan_index, plan_subset_body
from spiders.pages import PageShapeError
from tests.security.shapes import bodies
from tests.security.test_fuzz import FUZZ

LOCATIONS = {"US East (N. Virginia)": {"name": "US East (N. Virginia)", "code": "us-east-1", "type": "AWS Region"}}
METADATA = {"valueAttributes": {"Location": ["US East (N. Virginia)"], "plc:OperatingSystem": ["Linux"]}}
ONDEMAND = {
    "manifest": {"currencyCode": "USD"},
    "regions": {
        "US East (N. Virginia)": {
            "p5 linux": {"price": "98.32", "Instance Type": "p5.48xlarge", "Location": "US East (N. Virginia)"},
            "m5 linux": {"price": "0.19", "Instance Type": "m5.large", "Location": "US East (N. Virginia)"},
        }
    },
}
SPOT_FEED = {
    "config": {
        "regions": [
            {
                "region": "us-east",
                "instanceTypes": [
                    {
                        "type": "gpu",
                        "sizes": [
                            {"size": "p3.2xlarge", "valueColumns": [{"name": "linux", "prices": {"USD": "0.91"}}]}
                        ],
                    }
                ],
            }
        ]
    }
}
SPOT_ADVISOR = {
    "ranges": [{"index": 0, "label": "<5%"}],
    "spot_advisor": {"us-east-1": {"Linux": {"p3.2xlarge": {"s": 70, "r": 0}}}},
}
FREE_TIER = {
    "metadata": {"count": 1, "totalHits": 1},
    "items": [
        {
            "item": {
                "id": "free-tier-products#amazon-ec2",
                "additionalFields": {"serviceName": "Amazon EC2", "calloutLarge": "750 Hours", "frontCtaUrl": "/ec2/"},
            },
            "tags": [{"id": "free-tier-products#tier#12monthsfree"}],
        }
    ],
}
REGION_INDEX = {
    "regions": {
        "us-east-1": {
            "regionCode": "us-east-1",
            "currentVersionUrl": "/offers/v1.0/aws/AmazonEC2/1/us-east-1/index.json",
        }
    }
}
OFFER_FILE = {
    "formatVersion": "v1.0",
    "offerCode": "AmazonEC2",
    "version": "1",
    "publicationDate": "2026-08-01",
    "products": {
        "SKU1": {
            "sku": "SKU1",
            "productFamily": "Compute Instance",
            "attributes": {
                "instanceType": "p5.48xlarge",
                "tenancy": "Shared",
                "capacitystatus": "Used",
                "operatingSystem": "Linux",
                "preInstalledSw": "NA",
            },
        }
    },
    "terms": {
        "OnDemand": {
            "SKU1": {"SKU1.T1": {"priceDimensions": {"SKU1.T1.D1": {"unit": "Hrs", "pricePerUnit": {"USD": "98.32"}}}}}
        },
        "Reserved": {},
    },
}
PLAN_INDEX = {"regions": [{"regionCode": "us-east-1", "versionUrl": "/savingsPlan/v1.0/aws/1/us-east-1/index.json"}]}
RATE = {
    "discountedSku": "R1",
    "discountedUsageType": "BoxUsage:p5.48xlarge",
    "discountedOperation": "RunInstances",
    "discountedServiceCode": "AmazonEC2",
    "rateCode": "P1.R1",
    "unit": "Hrs",
    "discountedRate": {"price": "60.1", "currency": "USD"},
}
PLAN_FILE = {
    "version": "1",
    "publicationDate": "2026-08-01",
    "regionCode": "us-east-1",
    "products": [
        {
            "sku": "P1",
            "productFamily": "ComputeSavingsPlans",
            "usageType": "ComputeSP:1yrNoUpfront",
            "attributes": {"purchaseOption": "No Upfront"},
        }
    ],
    "terms": {
        "savingsPlan": [
            {
                "sku": "P1",
                "effectiveDate": "2026-08-01",
                "leaseContractLength": {"duration": 1, "unit": "year"},
                "rates": [RATE],
            }
        ]
    },
}
KEEP_PRODUCTS = GpuProducts.for_systems(["Linux"])
KEEP_RATES = GpuRates.for_systems(["Linux"])


def only_shape_errors(parse, *args) -> None:
    try:
        parse(*args)
    except PageShapeError:
        pass


def test_the_valid_documents_parse() -> None:
    # The fuzzing starts from documents each parser accepts, so that the
    # mutations reach past the first check.
    assert parse_locations(json.dumps(LOCATIONS).encode())
    assert parse_metadata(json.dumps(METADATA).encode())
    assert parse_ondemand_page(json.dumps(ONDEMAND).encode(), "US East (N. Virginia)")[1]
    assert parse_spot_feed(json.dumps(SPOT_FEED).encode())
    assert parse_spot_advisor(json.dumps(SPOT_ADVISOR).encode())
    assert parse_free_tier(json.dumps(FREE_TIER).encode())
    assert parse_region_index(json.dumps(REGION_INDEX).encode(), "https://pricing.us-east-1.amazonaws.com/")
    assert parse_offer_file(json.dumps(OFFER_FILE).encode(), KEEP_PRODUCTS)[1]
    assert parse_plan_index(json.dumps(PLAN_INDEX).encode(), "https://pricing.us-east-1.amazonaws.com/")
    assert parse_plan_file(json.dumps(PLAN_FILE).encode(), KEEP_RATES)[1]


@pytest.mark.parametrize(
    "parse, body, message",
    [
        (parse_spot_feed, b'{"config": []}', "no config.regions list"),
        (parse_spot_feed, b'{"config": {"regions": [1]}}', "is not {region, instanceTypes"),
        (parse_free_tier, b'{"items": [true]}', "1 of 1 cards have no item.id or serviceName"),
        (parse_free_tier, b'{"items": 1}', "has no items"),
        (parse_free_tier, b"[" * 5000, "is not valid JSON"),
        (parse_spot_advisor, b'{"ranges": [], "spot_advisor": {"us-east-1": [1]}}', "is not {Linux|Windows"),
    ],
)
def test_wrong_shapes_name_what_was_expected(parse, body: bytes, message: str) -> None:
    # The crashes fuzzing found (AttributeError, TypeError, RecursionError), kept as cases.
    with pytest.raises(PageShapeError, match=re.escape(message)):
        parse(body)


@FUZZ
@given(bodies(LOCATIONS), bodies(METADATA), bodies(ONDEMAND))
def test_pricing_page_tables(locations: bytes, metadata: bytes, ondemand: bytes) -> None:
    only_shape_errors(parse_locations, locations)
    only_shape_errors(parse_metadata, metadata)
    only_shape_errors(parse_ondemand_page, ondemand, "US East (N. Virginia)")


@FUZZ
@given(bodies(SPOT_FEED), st.sampled_from([b"", b"callback(", b"cb.x("]), bodies(SPOT_ADVISOR))
def test_spot_feed_and_advisor(feed: bytes, wrapper: bytes, advisor: bytes) -> None:
    wrapped = wrapper + feed + (b");" if wrapper else b"")
    assert isinstance(unwrap_callback(wrapped), bytes)
    only_shape_errors(parse_spot_feed, wrapped)
    only_shape_errors(parse_spot_advisor, advisor)


@FUZZ
@given(bodies(FREE_TIER))
def test_free_tier_directory(body: bytes) -> None:
    only_shape_errors(parse_free_tier, body)


@FUZZ
@given(bodies(REGION_INDEX), bodies(PLAN_INDEX))
def test_region_indexes(offer_index: bytes, plan_index: bytes) -> None:
    only_shape_errors(parse_region_index, offer_index, "https://pricing.us-east-1.amazonaws.com/")
    only_shape_errors(parse_plan_index, plan_index, "https://pricing.us-east-1.amazonaws.com/")


@FUZZ
@given(bodies(OFFER_FILE))
def test_bulk_offer_file(body: bytes) -> None:
    only_shape_errors(parse_offer_file, body, KEEP_PRODUCTS)
    only_shape_errors(subset_body, io.BytesIO(body), KEEP_PRODUCTS)


@FUZZ
@given(bodies(PLAN_FILE))
def test_savings_plan_file(body: bytes) -> None:
    only_shape_errors(parse_plan_file, body, KEEP_RATES)
    only_shape_errors(plan_subset_body, io.BytesIO(body), KEEP_RATES)
