"""Hostile Tencent and Huawei answers raise only our own error types."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from spiders.huawei.pages import parse_menu, parse_product_info
from spiders.pages import PageShapeError
from spiders.tencent.pages import parse_zone_configs
from tests.security.test_fuzz import FUZZ, json_values
from tracker.normalize import NormalizeError
from tracker.normalize.providers.huawei import normalize as normalize_huawei
from tracker.normalize.providers.tencent import normalize as normalize_tencent


def normalize_quietly(
    normalizer, kind: str, records: list, *, observed: str = "2026-11-02T02:00:00Z", region: object = "cn-north-4"
) -> None:
    """Runs a normalizer on records; only a NormalizeError may come out."""
    items = [
        {
            "kind": kind,
            "observed_at": observed,
            "source_url": "https://x",
            "region": region,
            "currency": "CNY",
            "data": r,
        }
        for r in records
    ]
    try:
        normalizer(items)
    except NormalizeError:
        pass


def set_field(record: dict, field: str, value: object) -> dict:
    """'Price.UnitPrice' sets record['Price']['UnitPrice']; 'plan.amount' the last plan's."""
    head, _, tail = field.partition(".")
    if not tail:
        record[head] = value
    else:
        (record["Price"] if head == "Price" else record["planList"][-1])[tail] = value
    return record


OBSERVED = st.sampled_from(["2026-11-02T02:00:00Z", "yesterday", ""])

tencent_price = st.dictionaries(
    st.sampled_from(["UnitPrice", "UnitPriceDiscount", "OriginalPrice", "DiscountPrice", "ChargeUnit"]),
    json_values | st.sampled_from(["HOUR", "MONTH", "12.5", "0", "NaN"]),
    max_size=5,
)
tencent_items = st.dictionaries(
    st.sampled_from(
        [
            "InstanceType",
            "Zone",
            "InstanceChargeType",
            "Status",
            "Price",
            "Cpu",
            "Memory",
            "Gpu",
            "GpuCount",
            "InstanceFamily",
        ]
    ),
    json_values
    | tencent_price
    | st.sampled_from(
        [
            "GN7.2XLARGE32",
            "ap-guangzhou-6",
            "POSTPAID_BY_HOUR",
            "PREPAID",
            "SPOTPAID",
            "SELL",
            "SOLD_OUT",
            "GN7",
            "0.25",
            "NaN",
            "Infinity",
        ]
    ),
    max_size=10,
)


@FUZZ
@given(
    st.binary(max_size=200)
    | st.fixed_dictionaries(
        {
            "code": json_values,
            "data": st.fixed_dictionaries(
                {"Response": st.fixed_dictionaries({"InstanceTypeQuotaSet": st.lists(tencent_items, max_size=4)})}
            ),
        }
    ).map(lambda v: json.dumps(v).encode())
    | json_values.map(lambda v: json.dumps(v).encode())
)
def test_tencent_page_raises_only_page_shape_error(body: bytes) -> None:
    try:
        parse_zone_configs(body)
    except PageShapeError:
        pass


@FUZZ
@given(st.lists(tencent_items, max_size=4), OBSERVED, json_values)
def test_tencent_normalizer_raises_only_normalize_error(records: list, observed: str, region: object) -> None:
    normalize_quietly(normalize_tencent, "tencent.zone_instance", records, observed=observed, region=region)


huawei_plans = st.dictionaries(
    st.sampled_from(["billingMode", "periodNum", "amount"]),
    json_values | st.sampled_from(["ONDEMAND", "MONTHLY", "YEARLY", "RI", "1e999999", "3", "-1", "0.5"]),
    max_size=3,
)
huawei_flavors = st.dictionaries(
    st.sampled_from(["resourceSpecCode", "cpu", "mem", "acceleratorCard", "planList"]),
    json_values
    | st.lists(huawei_plans, max_size=3)
    | st.sampled_from(
        [
            "p2v.2xlarge.8",
            "pi2.2xlarge.4",
            "8vCPUs",
            "64GiB",
            "1 × NVIDIA V100 / 1 × 16GiB",
            "2*NVIDIA A100",
            "1 * x / 2 * 999999999999GiB",
        ]
    ),
    max_size=5,
)


@FUZZ
@given(
    st.binary(max_size=200)
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.fixed_dictionaries({"product": st.fixed_dictionaries({"ec2_vm": st.lists(huawei_flavors, max_size=4)})}).map(
        lambda v: json.dumps(v).encode()
    )
)
def test_huawei_pages_raise_only_page_shape_error(body: bytes) -> None:
    for parse in (parse_product_info, parse_menu):
        try:
            parse(body)
        except PageShapeError:
            pass


@FUZZ
@given(st.lists(huawei_flavors, max_size=4), OBSERVED)
def test_huawei_normalizer_raises_only_normalize_error(records: list, observed: str) -> None:
    normalize_quietly(normalize_huawei, "huawei.ecs_flavor", records, observed=observed)


VALID_TENCENT = {
    "InstanceType": "GN10Xp.2XLARGE40",
    "Zone": "ap-guangzhou-6",
    "InstanceFamily": "GN10Xp",
    "InstanceChargeType": "POSTPAID_BY_HOUR",
    "Status": "SELL",
    "Cpu": 10,
    "Memory": 40,
    "Gpu": 1,
    "GpuCount": 1,
    "Price": {
        "UnitPrice": 11.95,
        "UnitPriceDiscount": 10.76,
        "ChargeUnit": "HOUR",
        "OriginalPrice": 4732.2,
        "DiscountPrice": 4732.2,
    },
}
VALID_HUAWEI = {
    "resourceSpecCode": "p2v.2xlarge.8",
    "cpu": "8vCPUs",
    "mem": "64GiB",
    "acceleratorCard": "1 × NVIDIA V100 / 1 × 16GiB",
    "planList": [
        {"billingMode": "ONDEMAND", "periodNum": None, "amount": 26.12},
        {"billingMode": "YEARLY", "periodNum": 3, "amount": 234240},
    ],
}


@FUZZ
@given(
    st.sampled_from(
        sorted(VALID_TENCENT)
        + ["Price.UnitPrice", "Price.UnitPriceDiscount", "Price.ChargeUnit", "Price.DiscountPrice"]
    ),
    json_values,
    st.sampled_from(["POSTPAID_BY_HOUR", "PREPAID", "SPOTPAID"]),
)
def test_tencent_normalizer_with_one_field_broken(field: str, value: object, charge_type: str) -> None:
    record = json.loads(json.dumps({**VALID_TENCENT, "InstanceChargeType": charge_type}))
    normalize_quietly(normalize_tencent, "tencent.zone_instance", [set_field(record, field, value)])


@FUZZ
@given(
    st.sampled_from(sorted(VALID_HUAWEI) + ["plan.billingMode", "plan.periodNum", "plan.amount"]),
    json_values | st.sampled_from(["1e999999", "3", "x × y / z", "8 × NVIDIA A100 / 8 × 24GiB"]),
)
def test_huawei_normalizer_with_one_field_broken(field: str, value: object) -> None:
    record = json.loads(json.dumps(VALID_HUAWEI))
    normalize_quietly(normalize_huawei, "huawei.ecs_flavor", [set_field(record, field, value)])
