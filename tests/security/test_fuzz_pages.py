"""Hostile Alibaba and Volcano Engine answers, watched pages and promotion
pages raise only PageShapeError; the block reader never invents a block."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parsel import Selector

from spiders.alibaba import offers as alibaba
from spiders.alibaba.pages import parse_describe_price, parse_price_file, pick_version, price_versions
from spiders.aws import offers as aws
from spiders.azure import offers as azure
from spiders.gcp import offers as gcp
from spiders.huawei import offers as huawei
from spiders.offers import page_blocks, text_of
from spiders.pages import PageShapeError
from spiders.tencent import offers as tencent
from spiders.volcengine import offers as volcengine
from spiders.volcengine.pages import parse_table, parse_template, pick_template_code, template_codes
from spiders.watch import parse_matches
from tests.conftest import examples
from tests.security.shapes import bodies, html_pages
from tests.security.test_fuzz import FUZZ

PRICE_FILE = {
    "currency": "USD",
    "version": "1.0.7",
    "publicationDate": "2026-08-01",
    "pricingInfo": {
        "cn-hangzhou::ecs.gn7i-c8g1.2xlarge::vpc::linux::optimized": {
            "hours": [{"price": "1.9", "period": "1"}],
            "months": [{"price": "900", "period": "1"}],
        }
    },
}
DESCRIBE_PRICE = {
    "PriceInfo": {"Price": {"Currency": "CNY", "OriginalPrice": 10.5, "DiscountPrice": 0, "TradePrice": 10.5}}
}
ROW = {
    "Product": "ECS",
    "ConfigurationCode": "ecs.gni2.3xlarge.month",
    "Region": "cn-beijing",
    "ChargeItemCode": "instance",
    "PriceInfoList": [{"Period": "month", "Times": 1, "Price": "2310.6"}],
}
TABLE = {"ResponseMetadata": {"RequestId": "r"}, "Result": {"Tables": [{"Rows": [ROW]}]}}
TEMPLATE_TEXT = json.dumps(
    {
        "Items": [
            {
                "Product": "ECS",
                "ConfigurationCode": "ecs.gni2.3xlarge",
                "AbilityAttrs": [{"Ability": "vcpu", "Value": "12"}],
            }
        ]
    }
)
TEMPLATE = {"ResponseMetadata": {}, "Result": {"List": [{"TemplateCode": "CLT1234567", "Template": TEMPLATE_TEXT}]}}
FREE_TIER = {
    "metadata": {"count": 1, "totalHits": 1},
    "items": [
        {
            "item": {
                "id": "free-tier-products#aws-lambda",
                "additionalFields": {
                    "serviceName": "AWS Lambda",
                    "calloutLarge": "1 Million",
                    "calloutSmall": "free requests per month",
                    "backDescription": "<p>free</p>",
                },
            },
            "tags": [{"id": "free-tier-products#tier#always-free", "name": "Always Free"}],
        }
    ],
}

# Every HTML page object of the offers sources, and the tags they read by.
OFFER_PAGES = [
    alibaba.parse_trials,
    alibaba.parse_intl_free,
    aws.parse_guide,
    aws.parse_activate,
    azure.parse_offer,
    azure.parse_free_services,
    gcp.parse_free_docs,
    huawei.parse_free_trials,
    huawei.parse_promotions,
    tencent.parse_new_user,
    tencent.parse_free_area,
    volcengine.parse_coding_plan,
]
BLOCK_TAGS = ["main", "div", "h1", "h2", "h3", "h4", "p", "ul", "li", "table", "tr", "th", "td", "dl", "dt", "dd"]
WATCH_SELECTORS = [".offer", "li", "a[href]", "*", "div > p:nth-child(2)", "[data-id]", "script"]


# Building an HTML tree is slower than a JSON body: fewer examples.
HTML_FUZZ = settings(FUZZ, max_examples=examples(60))


def only_shape_errors(parse, *args, **kw) -> None:
    try:
        parse(*args, **kw)
    except PageShapeError:
        pass


def test_the_valid_documents_parse() -> None:
    assert parse_price_file(json.dumps(PRICE_FILE).encode())[1]
    assert parse_describe_price(200, json.dumps(DESCRIBE_PRICE).encode())
    assert parse_table(json.dumps(TABLE).encode())
    assert parse_template(json.dumps(TEMPLATE).encode())
    assert aws.parse_free_tier(json.dumps(FREE_TIER).encode())[0]["text"].startswith("1 Million free requests")


@pytest.mark.parametrize(
    "parse, body, message",
    [
        (parse_table, b"null", "GetTable answered null, not a JSON object"),
        (parse_template, b'{"Result": {"List": 5}}', "Result.List is not a list"),
        (aws.parse_free_tier, b'{"items": {}}', "the directory answer has no items"),
        (aws.parse_free_tier, b'{"items": [{"item": {"id": "x"}}]}', "1 of 1 cards have no item.id or serviceName"),
    ],
)
def test_wrong_shapes_name_what_was_expected(parse, body: bytes, message: str) -> None:
    with pytest.raises(PageShapeError, match=re.escape(message)):
        parse(body)


@FUZZ
@given(bodies(PRICE_FILE), st.sampled_from([200, 400, 404, 500]), bodies(DESCRIBE_PRICE))
def test_alibaba_price_file_and_describe_price(price_file: bytes, status: int, describe: bytes) -> None:
    only_shape_errors(parse_price_file, price_file)
    only_shape_errors(parse_describe_price, status, describe)


@FUZZ
@given(
    st.lists(
        st.text(max_size=60)
        | st.sampled_from(
            [
                "https://g.alicdn.com/ecs-price-info-intl/1.0.7/price/x.js",
                "/ecs-price-info-intl/2.0/",
                "CLT1234567 CLT7654321",
                "templateCode=CLT0000001",
            ]
        ),
        max_size=3,
    )
)
def test_version_and_template_code_pickers(texts: list[str]) -> None:
    only_shape_errors(pick_version, price_versions(texts, "ecs-price-info-intl"), "https://x")
    only_shape_errors(pick_template_code, template_codes(texts), "https://x")


@FUZZ
@given(bodies(TABLE), bodies(TEMPLATE), bodies(json.loads(TEMPLATE_TEXT)))
def test_volcengine_table_and_template(table: bytes, template: bytes, template_text: bytes) -> None:
    only_shape_errors(parse_table, table)
    only_shape_errors(parse_template, template)
    # The template is JSON text inside the JSON answer: break it there too.
    inner = {
        **TEMPLATE,
        "Result": {"List": [{"TemplateCode": "CLT1234567", "Template": template_text.decode("utf-8", "replace")}]},
    }
    only_shape_errors(parse_template, json.dumps(inner).encode())


@FUZZ
@given(bodies(FREE_TIER))
def test_offer_json_answers(free_tier: bytes) -> None:
    only_shape_errors(aws.parse_free_tier, free_tier)


@HTML_FUZZ
@given(st.sampled_from(OFFER_PAGES), st.data())
def test_offer_pages(parse, data: st.DataObject) -> None:
    html = data.draw(html_pages(BLOCK_TAGS, ["id", "hidden", "href", "name"], ["x"]))
    try:
        records = parse(Selector(text=html))
    except PageShapeError:
        return
    words = text_of(Selector(text=html))
    ids = [r["id"] for r in records]
    assert records and len(set(ids)) == len(ids)
    # Every block's title is words the page shows; none is made up.
    assert all(r["title"] and r["title"].split()[0] in words for r in records)
    assert isinstance(text_of(None), str) and text_of(None) == ""


def test_block_ids_stay_put_when_the_page_is_reordered() -> None:
    first = "<main><h2>Free Trial</h2><p>$300</p><h2>Free Tier</h2><p>e2-micro</p><ul><li>满100减50</li></ul></main>"
    second = "<main><h2>Free Tier</h2><p>e2-micro</p><ul><li>满100减80</li></ul><h2>Free Trial</h2><p>$400</p></main>"
    ids = [sorted(r["id"] for r in page_blocks(Selector(text=t), what="t", items=True)) for t in (first, second)]
    assert ids[0] == ids[1] == ["free-tier", "free-trial", "满100"]


@HTML_FUZZ
@given(
    html_pages(
        ["div", "li", "a", "p", "script", "style", "noscript"],
        ["href", "data-id", "id", "data-offer-id", "data-sku"],
        ["offer", "price"],
    ),
    st.sampled_from(WATCH_SELECTORS),
)
def test_watched_page(html: str, selector: str) -> None:
    only_shape_errors(parse_matches, Selector(text=html), selector, what="watch:fuzz")
