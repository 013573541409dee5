"""Hostile Alibaba and Volcano Engine answers, watched pages and promotion
pages raise only PageShapeError."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parsel import Selector

from spiders.alibaba import offers as alibaba
from spiders.alibaba.pages import parse_describe_price, parse_price_file, pick_version, price_versions
from spiders.aws.offers import parse_activate
from spiders.azure import offers as azure
from spiders.gcp import offers as gcp
from spiders.huawei import offers as huawei
from spiders.offers import cards, text_of
from spiders.pages import PageShapeError
from spiders.tencent import offers as tencent
from spiders.volcengine import offers as volcengine
from spiders.volcengine.pages import parse_table, parse_template, pick_template_code, template_codes
from spiders.watch import parse_matches
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
FREE_TRIALS = {
    "retCode": "0",
    "result": {
        "products": [{"productId": "ecs-1", "productName": "ECS s6", "description": "1 month", "labels": ["new users"]}]
    },
}
VOUCHERS = {
    "code": 0,
    "data": {
        "list": [
            {
                "couponId": "c1",
                "name": "new user voucher",
                "threshold": 100,
                "discount": 50,
                "validDays": 30,
                "scope": "CVM",
                "userType": "new",
            }
        ]
    },
}

# The HTML page objects: (parse, the tags, attributes and classes it looks for).
CARD_PAGES = [
    (alibaba.parse_trials, ["div", "span", "p"], ["data-product-code"], ["trial-card", "trial-title", "trial-desc"]),
    (alibaba.parse_intl_free, ["div", "h3", "p"], ["data-offer"], ["x"]),
    (alibaba.parse_gpu_promo, ["div", "a"], ["data-promo-id", "href"], ["promo-item", "promo-title", "promo-desc"]),
    (parse_activate, ["div", "span"], ["data-program"], ["program-name", "program-credit", "program-detail"]),
    (azure.parse_free_page, ["div", "h3", "p", "a"], ["data-offer-id", "href"], ["x"]),
    (gcp.parse_free_page, ["section", "h2", "ul", "li"], ["data-program-id"], ["program-summary", "program-terms"]),
    (
        huawei.parse_promotions,
        ["div", "span"],
        ["data-activity"],
        ["activity-card", "activity-title", "activity-benefit"],
    ),
    (tencent.parse_free_area, ["div", "span"], ["data-product-id"], ["free-product", "product-name", "product-tag"]),
    (volcengine.parse_promotions, ["div", "span", "a"], ["data-activity-id", "href"], ["title", "desc", "tag"]),
]
WATCH_SELECTORS = [".offer", "li", "a[href]", "*", "div > p:nth-child(2)", "[data-id]", "script"]


# Building an HTML tree is slower than a JSON body: fewer examples.
HTML_FUZZ = settings(FUZZ, max_examples=60)


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
    assert huawei.parse_free_trials(json.dumps(FREE_TRIALS).encode())
    assert tencent.parse_vouchers(json.dumps(VOUCHERS).encode())


@pytest.mark.parametrize(
    "parse, body, message",
    [
        (parse_table, b"null", "GetTable answered null, not a JSON object"),
        (parse_template, b'{"Result": {"List": 5}}', "Result.List is not a list"),
        (huawei.parse_free_trials, b'{"result": {"products": {}}}', "no result.products list"),
        (tencent.parse_vouchers, b'{"code": 0, "data": {"list": [1]}}', "1/1 coupons lack one of"),
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
@given(bodies(FREE_TRIALS), bodies(VOUCHERS))
def test_offer_json_answers(trials: bytes, vouchers: bytes) -> None:
    only_shape_errors(huawei.parse_free_trials, trials)
    only_shape_errors(tencent.parse_vouchers, vouchers)


@HTML_FUZZ
@given(st.sampled_from(CARD_PAGES), st.data())
def test_offer_card_pages(card_page, data: st.DataObject) -> None:
    parse, tags, attrs, classes = card_page
    only_shape_errors(parse, Selector(text=data.draw(html_pages(tags, attrs, classes))))
    page = Selector(text=data.draw(html_pages(["div", "p", "h3"], ["data-x"], ["a", "b"])))
    only_shape_errors(cards, page, ".a[data-x]", id_attr="data-x", title_css="h3, .b", body_css="p", what="fuzz")
    assert isinstance(text_of(page), str) and text_of(None) == ""


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
