"""The Alibaba and Volcano Engine page objects and normalizers on small
inputs: discovery, API errors and ambiguous values."""

from __future__ import annotations

import json
import re

import pytest

from spiders.alibaba.pages import parse_describe_price, parse_price_file, pick_version, price_versions
from spiders.alibaba.spider import sign_rpc
from spiders.pages import PageShapeError
from spiders.volcengine.pages import configuration, parse_table, parse_template, pick_template_code, template_codes
from tests.helpers.harutil import from_jsonl
from tracker.normalize import NormalizeError
from tracker.normalize.providers.alibaba import normalize as normalize_alibaba
from tracker.normalize.providers.volcengine import normalize as normalize_volcengine

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

PAGE_URLS = [
    "https://g.alicdn.com/aliyun/ecs-price-info-intl/2.0.433/price/js_price/filter_price/instanceTypePrice_2.js",
    "https://g.alicdn.com/aliyun/ecs-price-info/2.0.97/price/js_price/disk_price/diskPrice.js",
]


def test_rpc_signature_matches_the_documented_example() -> None:
    params = {
        "Timestamp": "2016-02-23T12:46:24Z",
        "Format": "XML",
        "AccessKeyId": "testid",
        "Action": "DescribeRegions",
        "SignatureMethod": "HMAC-SHA1",
        "Version": "2014-05-26",
        "SignatureNonce": "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf",
        "SignatureVersion": "1.0",
    }
    assert sign_rpc(params, "testsecret", "GET") == "OLeaidS1JvxuMvnyHOwuJ+uX5qY="


def test_versions_are_told_apart_by_site() -> None:
    assert price_versions(PAGE_URLS, "ecs-price-info-intl") == {"2.0.433"}
    assert price_versions(PAGE_URLS, "ecs-price-info") == {"2.0.97"}
    with pytest.raises(PageShapeError, match="several price file versions"):
        pick_version({"2.0.433", "2.0.434"}, "https://example.test/pricing")
    with pytest.raises(PageShapeError, match="names no price file version"):
        pick_version(set(), "https://example.test/pricing")


@pytest.mark.parametrize(
    "body, message",
    [
        (b"<html>", "the price file is not valid JSON"),
        (
            json.dumps({"currency": "USD", "pricingInfo": {"cn-hangzhou::ecs.gn6i-c4g1.xlarge": {}}}).encode(),
            "1 pricingInfo keys are not region::type::network::os::io",
        ),
        (
            json.dumps(
                {
                    "currency": "USD",
                    "pricingInfo": {
                        "cn-hangzhou::ecs.g7.large::vpc::linux::optimized": {"hours": [{"price": "0.1", "period": "1"}]}
                    },
                }
            ).encode(),
            "lists no GPU instance types",
        ),
        (json.dumps({"pricingInfo": {}}).encode(), "currency missing"),
    ],
)
def test_price_file_shape_errors(body: bytes, message: str) -> None:
    with pytest.raises(PageShapeError, match=message):
        parse_price_file(body)


def test_describe_price_errors_name_the_api_code() -> None:
    assert parse_describe_price(400, b'{"Code": "PriceNotFound", "Message": "x"}') is None
    with pytest.raises(PageShapeError, match=re.escape("HTTP 404 InvalidAccessKeyId.NotFound: Specified access key")):
        parse_describe_price(404, b'{"Code": "InvalidAccessKeyId.NotFound", "Message": "Specified access key"}')
    with pytest.raises(PageShapeError, match="TradePrice missing"):
        parse_describe_price(200, b'{"PriceInfo": {"Price": {"Currency": "CNY"}}}')


def _alibaba_item(hours: list[dict]) -> dict:
    return {
        "kind": "alibaba.price",
        "observed_at": "2026-08-03T06:00:00Z",
        "source_url": "u",
        "currency": "CNY",
        "data": {
            "region": "cn-hangzhou",
            "instance_type": "ecs.gn9x.8xlarge",
            "network": "vpc",
            "os": "linux",
            "io": "optimized",
            "hours": hours,
            "months": [],
            "years": [],
        },
    }


def test_alibaba_normalizer_refuses_ambiguity_and_notes_unknown_types() -> None:
    out = normalize_alibaba(from_jsonl([_alibaba_item([{"price": "12.5", "period": "1"}])]))
    assert [(q.price_model, str(q.price), q.gpu_model) for q in out.quotes] == [("on_demand", "12.5", None)]
    assert out.notes == ["alibaba: no GPU spec for ecs.gn9x.8xlarge; stored without GPU fields"]
    with pytest.raises(NormalizeError, match="two hours prices for period 1"):
        normalize_alibaba(
            from_jsonl([_alibaba_item([{"price": "12.5", "period": "1"}, {"price": "11", "period": "1"}])])
        )
    with pytest.raises(NormalizeError, match="not a positive amount"):
        normalize_alibaba(from_jsonl([_alibaba_item([{"price": "0", "period": "1"}])]))
    # Beside a good record, an odd one is skipped with a note.
    out = normalize_alibaba(
        from_jsonl([_alibaba_item([{"price": "0", "period": "1"}]), _alibaba_item([{"price": "12.5", "period": "1"}])])
    )
    assert len(out.quotes) == 1
    assert (
        "alibaba: skipped: Alibaba: hours price '0' is not a positive amount for ecs.gn9x.8xlarge in cn-hangzhou"
        in (out.notes)
    )


def test_template_code_discovery_and_stale_codes() -> None:
    asked = [
        "https://www.volcengine.com/anonymous-api/trade/price?Action=ListTemplate&TemplateCode=CLT7412250034519861248"
    ]
    assert template_codes(asked) == {"CLT7412250034519861248"}
    with pytest.raises(PageShapeError, match="several template codes"):
        pick_template_code({"CLT7412250034519861248", "CLT7412250034519861249"}, "p")
    assert parse_template(b'{"ResponseMetadata": {}, "Result": {"List": []}}') is None
    assert parse_template(b'{"ResponseMetadata": {"Error": {"Code": "InvalidParameter"}}}') is None
    assert configuration({"ConfigurationCode": "ecs.gni2.3xlarge.month"}) == "ecs.gni2.3xlarge"


def test_table_errors_and_monthly_multiples() -> None:
    with pytest.raises(PageShapeError, match="GetTable answered Throttling: slow down"):
        parse_table(b'{"ResponseMetadata": {"Error": {"Code": "Throttling", "Message": "slow down"}}}')
    rows = parse_table(
        json.dumps(
            {
                "ResponseMetadata": {},
                "Result": {
                    "TableList": [
                        {
                            "Rows": [
                                {
                                    "Product": "ECS",
                                    "ConfigurationCode": "ecs.gni2.3xlarge",
                                    "Region": "cn-beijing",
                                    "PriceInfoList": [
                                        {"Period": "hourly", "Price": 8.44},
                                        {"Period": "monthly", "Times": 3, "Price": 10000},
                                    ],
                                }
                            ]
                        }
                    ]
                },
            }
        ).encode()
    )
    item = {"kind": "volcengine.price", "observed_at": "2026-08-03T06:00:00Z", "source_url": "u", "data": rows[0]}
    quotes = normalize_volcengine(from_jsonl([item])).quotes
    assert [(q.price_model, q.unit, q.currency) for q in quotes] == [("on_demand", "hour", "CNY")]
