"""The China clouds' side cost normalizers on their answers
(tests/fixtures/side-costs/{tencent,alibaba}/README.md): Tencent's documented
examples read as a person reads them; an hourly disk price becomes a price
per GB-month at 730 hours; what is odd is refused or skipped with a note."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from spiders.alibaba.side_costs import parse_line
from tests.conftest import FIXTURES
from tracker.normalize import NormalizeError
from tracker.normalize.side_costs import alibaba, tencent

HERE = FIXTURES / "side-costs"
WHEN = "2026-11-28T06:00:00Z"


def answer(provider: str, name: str) -> Any:
    return json.loads((HERE / provider / name).read_text())


def tencent_item(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": kind,
        "region": "ap-shanghai",
        "currency": "CNY",
        "observed_at": WHEN,
        "source_url": "https://cvm.ap-shanghai.tencentcloudapi.com/",
        "data": data,
    }


def bandwidth() -> dict[str, Any]:
    price = answer("tencent", "inquiry-price-run-instances-example-3.json")["Response"]["Price"]["BandwidthPrice"]
    return tencent_item("tencent.side_bandwidth", {**price, "zone": "ap-shanghai-2"})


def disk() -> dict[str, Any]:
    price = answer("tencent", "inquiry-price-create-disks-example-2.json")["Response"]["DiskPrice"]
    return tencent_item("tencent.side_disk", {**price, "disk_type": "CLOUD_PREMIUM", "disk_gb": 100})


def test_tencent_documented_answers_read_as_written() -> None:
    """Example 3: traffic 0.52 CNY/GB (list 0.8); example 2: a 100 GB premium
    disk at 0.042 CNY an hour (the high-precision field before the rounded 0.04)."""
    out = tencent.normalize([bandwidth(), disk()])
    assert out.notes == []
    egress, premium = out.quotes
    assert (egress.instance_type, egress.price, egress.currency, egress.unit.value) == (
        "internet egress",
        Decimal("0.52"),
        "CNY",
        "gb",
    )
    assert egress.attrs == {
        "side_cost": "internet_egress",
        "tier_from_gb": "0",
        "tier_to_gb": "",
        "zone": "ap-shanghai-2",
        "list_price": "0.8",
    }
    assert (premium.instance_type, premium.price, premium.unit.value) == (
        "disk CLOUD_PREMIUM",
        Decimal("0.3066"),  # 0.042 / 100 x 730
        "gb_month",
    )
    assert premium.attrs["hour_price"] == "0.042" and premium.attrs["hour_price_field"] == "UnitPriceDiscountHigh"
    assert premium.attrs["disk_gb"] == "100" and premium.attrs["hours_per_month"] == "730"


def test_tencent_another_charge_unit_is_refused_and_a_zero_price_skipped() -> None:
    odd = bandwidth()
    odd["data"]["ChargeUnit"] = "HOUR"  # a bandwidth billed by the hour is not egress per GB
    with pytest.raises(NormalizeError, match="charged per HOUR, not per GB"):
        tencent.normalize([odd])
    free = disk()
    free["data"].update(UnitPrice=0, UnitPriceDiscount=0, UnitPriceDiscountHigh="0", UnitPriceHigh="0")
    out = tencent.normalize([bandwidth(), free])
    assert [q.instance_type for q in out.quotes] == ["internet egress"]
    assert out.notes == ["tencent-side-costs: disk CLOUD_PREMIUM in ap-shanghai has no hourly price; skipped"]


def alibaba_item(record: dict[str, Any], kind: str = "alibaba.side_price") -> dict[str, Any]:
    return {
        "kind": kind,
        "region": "cn-beijing",
        "observed_at": WHEN,
        "source_url": "https://ecs.cn-beijing.aliyuncs.com/",
        "data": record,
    }


def test_alibaba_reads_the_line_asked_and_turns_an_hourly_disk_into_gb_month() -> None:
    egress = {**parse_line(answer("alibaba", "describe-price-bandwidth.json"), "bandwidth"), "asked": "bandwidth"}
    essd = parse_line(answer("alibaba", "describe-price-disk-cloud_essd-PL1.json"), "disk")
    essd.update(asked="disk", category="cloud_essd", performance_level="PL1", disk_gb=100)
    out = alibaba.normalize([alibaba_item(egress), alibaba_item(essd)])
    first, second = out.quotes
    assert (first.instance_type, first.price, first.unit.value, first.currency) == (
        "internet egress",
        Decimal("0.8"),
        "gb",
        "CNY",
    )
    assert (second.instance_type, second.price, second.unit.value) == (
        "disk cloud_essd PL1",
        Decimal("1.533"),  # 0.21 an hour / 100 GB x 730
        "gb_month",
    )
    assert second.attrs["hour_price"] == "0.21" and second.attrs["list_hour_price"] == "0.21"


def test_alibaba_a_total_is_said_so_other_lines_and_unpriced_inquiries_are_skipped() -> None:
    data = answer("alibaba", "describe-price-bandwidth.json")
    del data["PriceInfo"]["Price"]["DetailInfos"]
    total = {**parse_line(data, "bandwidth"), "asked": "bandwidth"}
    assert total["basis"] == "total"
    other = answer("alibaba", "describe-price-disk-cloud_essd-PL1.json")
    other["PriceInfo"]["Price"]["DetailInfos"]["DetailInfo"][0]["Resource"] = "systemDisk"
    unknown = parse_line(other, "disk")
    unknown.update(asked="disk", category="cloud_essd", performance_level="PL1", disk_gb=100)
    unpriced = {"asked": "disk", "category": "cloud_essd", "performance_level": "PL0", "disk_gb": 100}
    unpriced.update(code="PriceNotFound", message="The price of your queried resource is not available now.")
    out = alibaba.normalize(
        [alibaba_item(total), alibaba_item(unknown), alibaba_item(unpriced, kind="alibaba.api.unpriced")]
    )
    [quote] = out.quotes
    assert quote.attrs["price_basis"] == "order total" and quote.price == Decimal("0.8")
    assert out.notes == [
        "alibaba-side-costs: disk cloud_essd PL1 in cn-beijing: the answer's price lines are for systemDisk,"
        " none the one asked; skipped",
        "alibaba-side-costs: disk cloud_essd PL0 in cn-beijing: DescribePrice answered PriceNotFound:"
        " The price of your queried resource is not available now.; skipped",
    ]
