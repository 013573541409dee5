"""The China clouds' sources on the providers' own documented answers
(tests/fixtures/<source>/real/, values verbatim; each README names the
repository, commit and path): what a person reads in each answer is what
the parsers and normalizers read. None of these answers is of a GPU type,
so they are read below the spider's GPU filter."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.alibaba.api_pages import api_error, parse_price
from spiders.har import read_har
from spiders.tencent.api_pages import parse_quota_set
from spiders.tencent.pages import is_gpu_item
from tests.conftest import FIXTURES
from tests.helpers import sdk_models
from tracker.normalize import NormalizeError
from tracker.normalize.providers import alibaba, tencent

TENCENT = FIXTURES / "tencent-api" / "real" / "describe-zone-instance-config-infos-examples.har"
ALIBABA = FIXTURES / "alibaba-api" / "real" / "describe-price-example.har"


def answers(path: Path) -> list[Any]:
    return [json.loads(e["response"]["content"]["text"]) for e in read_har(path)["log"]["entries"]]


def tencent_items(answer: Any, kind: str) -> list[Any]:
    return [
        {
            "kind": kind,
            "provider": "tencent",
            "region": "ap-guangzhou",
            "charge_type": item["InstanceChargeType"],
            "currency": "CNY",
            "source_url": "https://cvm.ap-guangzhou.tencentcloudapi.com/",
            "observed_at": "2026-11-02T06:00:00Z",
            "data": item,
        }
        for item in answer["Response"]["InstanceTypeQuotaSet"]
    ]


def test_tencent_documented_answers_fit_the_sdk_model_and_are_no_gpu() -> None:
    stepped, current = answers(TENCENT)
    for answer in (stepped, current):
        assert sdk_models.tencent("DescribeZoneInstanceConfigInfos", answer) == []
        [item] = answer["Response"]["InstanceTypeQuotaSet"]
        assert item["InstanceType"] == "S2.SMALL1" and not is_gpu_item(item)
        assert parse_quota_set(answer) == []  # the spider keeps GPU types only


def test_tencent_documented_stepped_hourly_price_reads_as_written() -> None:
    """2021 example: S2.SMALL1 on demand in ap-guangzhou-2 at 0.15 CNY an hour
    for the first 96 h, 0.07 to 360 h, 0.05 after (UnitPriceDiscount* the same)."""
    stepped, _ = answers(TENCENT)
    for normalize, kind in ((tencent.normalize_api, "tencent.api"), (tencent.normalize, "tencent.zone_instance")):
        [quote] = normalize(tencent_items(stepped, kind)).quotes
        assert (quote.zone, quote.instance_type, quote.price_model.value) == (
            "ap-guangzhou-2",
            "S2.SMALL1",
            "on_demand",
        )
        assert quote.price == Decimal("0.15") and quote.currency == "CNY"
        assert quote.attrs["hourly_steps"] == "from 0 h: 0.15; from 96 h: 0.07; from 360 h: 0.05"
        assert quote.vcpu == 1 and quote.memory_gb == 1 and quote.availability == "available"


def test_tencent_documented_zero_hourly_price_is_skipped_with_a_note_not_the_run() -> None:
    """2025 example: an hourly item on sale (SELL) whose UnitPrice and
    UnitPriceDiscount are 0 (59 / 708 / 587.64 sit in the prepaid fields):
    no hourly price to store. Beside a good item it is skipped with a note."""
    stepped, current = answers(TENCENT)
    [item] = current["Response"]["InstanceTypeQuotaSet"]
    assert (
        item["Price"]["UnitPrice"] == item["Price"]["UnitPriceDiscount"] == 0 and item["Price"]["DiscountPrice"] == 59
    )
    out = tencent.normalize_api(tencent_items(current, "tencent.api"))
    assert out.quotes == []
    assert out.notes == ["tencent-api: S2.SMALL1 (POSTPAID_BY_HOUR) in ap-guangzhou-6 has no price (SELL); skipped"]
    both = tencent_items(stepped, "tencent.zone_instance") + tencent_items(current, "tencent.zone_instance")
    page = tencent.normalize(both)
    assert [q.zone for q in page.quotes] == ["ap-guangzhou-2"]
    assert any("S2.SMALL1 (POSTPAID_BY_HOUR) in ap-guangzhou-6 is on sale at 0" in n for n in page.notes)
    with pytest.raises(NormalizeError, match="on sale at 0"):  # alone, every item odd: the answer changed
        tencent.normalize(tencent_items(current, "tencent.zone_instance"))


def test_alibaba_documented_describe_price_reads_as_written() -> None:
    """The reference's example (ecs.g6.large, cn-hangzhou, one year): TradePrice
    3712.8 CNY, OriginalPrice 4368, no DetailInfos: the order total, said so."""
    [answer] = answers(ALIBABA)
    assert sdk_models.alibaba("DescribePrice", answer) == []
    assert api_error(200, answer) is None
    read = parse_price(answer)
    assert read == {"price": 3712.8, "list_price": 4368, "currency": "CNY", "basis": "total"}
    out = alibaba.normalize_api(
        [
            {
                "kind": "alibaba.api.price",
                "region": "cn-hangzhou",
                "observed_at": "2026-11-02T06:00:00Z",
                "source_url": "https://ecs.cn-hangzhou.aliyuncs.com/",
                "data": {**read, "instance_type": "ecs.g6.large", "variant": "1yr"},
            }
        ]
    )
    [quote] = out.quotes
    assert (quote.price, quote.list_price, quote.currency) == (Decimal("3712.8"), Decimal("4368"), "CNY")
    assert (quote.price_model.value, quote.term, quote.unit.value) == ("yearly", "1yr", "year")
    assert quote.attrs == {"price_basis": "order total"}
