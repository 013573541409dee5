"""Hostile Billing Catalog pages and SKUs raise only our own error types."""

from __future__ import annotations

import copy
import json

from hypothesis import given
from hypothesis import strategies as st

from spiders.gcp.pages import parse_skus_page
from spiders.pages import PageShapeError
from tests.helpers.harutil import from_jsonl
from tests.security.test_fuzz import FUZZ, json_values
from tracker.normalize import NormalizeError
from tracker.normalize.providers.gcp import normalize

VALID_SKU = {
    "skuId": "039F-D0DA-4055",
    "description": "Nvidia Tesla A100 GPU running in Americas",
    "category": {"resourceFamily": "Compute", "resourceGroup": "GPU", "usageType": "OnDemand"},
    "serviceRegions": ["us-central1"],
    "pricingInfo": [
        {
            "pricingExpression": {
                "usageUnit": "h",
                "tieredRates": [
                    {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "2", "nanos": 933908000}}
                ],
            }
        }
    ],
}
# Where a broken value may go: (path into the SKU, key).
PLACES = [
    ((), "skuId"),
    ((), "description"),
    ((), "category"),
    ((), "serviceRegions"),
    ((), "pricingInfo"),
    (("category",), "usageType"),
    (("pricingInfo", 0), "pricingExpression"),
    (("pricingInfo", 0, "pricingExpression"), "usageUnit"),
    (("pricingInfo", 0, "pricingExpression"), "tieredRates"),
    (("pricingInfo", 0, "pricingExpression", "tieredRates", 0), "startUsageAmount"),
    (("pricingInfo", 0, "pricingExpression", "tieredRates", 0), "unitPrice"),
    (("pricingInfo", 0, "pricingExpression", "tieredRates", 0, "unitPrice"), "units"),
    (("pricingInfo", 0, "pricingExpression", "tieredRates", 0, "unitPrice"), "nanos"),
    (("pricingInfo", 0, "pricingExpression", "tieredRates", 0, "unitPrice"), "currencyCode"),
]


@FUZZ
@given(
    st.binary(max_size=200)
    | st.fixed_dictionaries({"skus": st.lists(json_values, max_size=4), "nextPageToken": json_values}).map(
        lambda v: json.dumps(v).encode()
    )
)
def test_gcp_page_raises_only_page_shape_error(body: bytes) -> None:
    try:
        parse_skus_page(body)
    except PageShapeError:
        pass


@FUZZ
@given(st.sampled_from(PLACES), json_values | st.sampled_from(["NaN", "Infinity", "-1", "1e400", "Commit1Yr"]))
def test_gcp_normalizer_with_one_field_broken(place, value: object) -> None:
    sku = copy.deepcopy(VALID_SKU)
    target: object = sku
    for step in place[0]:
        target = target[step]  # type: ignore[index]
    target[place[1]] = value  # type: ignore[index]
    items = [
        {
            "kind": "gcp.sku",
            "observed_at": "2026-08-03T06:00:00Z",
            "source_url": "https://x",
            "regions": [],
            "data": sku,
        }
    ]
    try:
        normalize(from_jsonl(items))
    except NormalizeError:
        pass
