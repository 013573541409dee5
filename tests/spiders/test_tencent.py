"""Tencent Cloud: the page object and normalizer on the fixture capture, and
the CLI end to end (SQLite and PostgreSQL): prices, list versus discounted
price, availability and its changes, and a changed shape failing loudly."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.har import read_har
from spiders.pages import PageShapeError
from spiders.tencent.pages import parse_zone_configs
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only, page_json, set_page_json, shifted
from tracker.normalize import NormalizeError
from tracker.normalize.providers.tencent import normalize

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
# The first crawl of CAPTURE runs once per worker (`replayed`, tests/helpers/replayed.py).
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.xdist_group("spiders-tencent")]

CAPTURE = DEMO_CAPTURES / "tencent" / "2026-11-02-ap-guangzhou+ap-beijing.har.gz"
FIRST = ("crawl", "tencent", "-r", "ap-guangzhou", "-r", "ap-beijing", "--replay", str(CAPTURE), "--format", "json")
LATER = datetime(2026, 11, 9, 2, tzinfo=UTC)


def request_of(entry: dict[str, Any]) -> tuple[str, str]:
    """(zone, charge type) a fixture entry answers."""
    filters = {f["Name"]: f["Values"][0] for f in json.loads(entry["request"]["postData"]["text"])["data"]["Filters"]}
    return filters.get("zone", ""), filters["instance-charge-type"]


def raw_items(path: Path = CAPTURE) -> list[Any]:
    items = []
    for entry in read_har(path)["log"]["entries"]:
        zone, charge_type = request_of(entry)
        region = zone.rsplit("-", 1)[0]
        for found in parse_zone_configs(entry["response"]["content"]["text"].encode()):
            items.append(
                {
                    "kind": "tencent.zone_instance",
                    "observed_at": entry["startedDateTime"],
                    "source_url": entry["request"]["url"],
                    "region": region,
                    "charge_type": charge_type,
                    "currency": "CNY",
                    "data": found,
                }
            )
    return items


def test_only_gpu_types_are_kept() -> None:
    kept = {i["data"]["InstanceType"] for i in raw_items()}
    assert "S5.LARGE8" not in kept
    assert {"GN7.2XLARGE32", "GN7vw.3XLARGE20", "GN10Xp.2XLARGE40", "GT4.41XLARGE948", "PNV4.7XLARGE116"} <= kept


def test_normalized_rows_per_charge_type() -> None:
    quotes = normalize(raw_items()).quotes
    assert len({q.key for q in quotes}) == len(quotes) == 54
    where = dict(instance_type="GN10Xp.2XLARGE40", zone="ap-guangzhou-6")
    od = only(quotes, **where, price_model="on_demand")
    assert (od.region, od.price, od.list_price, od.currency, od.unit, od.term) == (
        "ap-guangzhou",
        Decimal("10.76"),
        Decimal("11.95"),
        "CNY",
        "hour",
        "",
    )
    assert (od.gpu_model, od.gpu_count, od.gpu_memory_gb, od.vcpu, od.memory_gb) == ("V100 32GB", 1, 32, 10, 40)
    monthly = only(quotes, **where, price_model="monthly")
    assert (monthly.price, monthly.list_price, monthly.unit, monthly.term) == (
        Decimal("4732.2"),
        Decimal("4732.2"),
        "month",
        "1mo",
    )
    spot = only(quotes, **where, price_model="spot")
    assert (spot.price, spot.list_price, spot.unit) == (Decimal("2.99"), Decimal("11.95"), "hour")


def test_list_price_and_discount_are_kept_apart() -> None:
    quotes = normalize(raw_items()).quotes
    gt4 = only(quotes, instance_type="GT4.4XLARGE96", zone="ap-beijing-6", price_model="on_demand")
    assert (gt4.list_price, gt4.price) == (Decimal("29.08"), Decimal("23.26"))  # 8折 (20% off)
    gn7 = only(quotes, instance_type="GN7.2XLARGE32", zone="ap-guangzhou-7", price_model="monthly")
    assert (gn7.list_price, gn7.price) == (Decimal("3246.05"), Decimal("2596.84"))
    assert all(q.list_price is not None and q.price <= q.list_price for q in quotes)


def test_availability_and_vgpu_slices() -> None:
    quotes = normalize(raw_items()).quotes
    sold = [q for q in quotes if q.availability == "sold_out"]
    assert [(q.instance_type, q.zone, q.price_model) for q in sold] == [
        ("GT4.41XLARGE948", "ap-guangzhou-6", "monthly")
    ]
    assert {q.availability for q in quotes} == {"available", "sold_out"}
    vgpu = only(quotes, instance_type="GN7vw.3XLARGE20", price_model="on_demand")
    assert (vgpu.gpu_model, vgpu.gpu_count, vgpu.gpu_memory_gb) == ("T4", Decimal("0.25"), 4)


def _page(items: list[dict[str, Any]]) -> bytes:
    return json.dumps({"code": 0, "data": {"Response": {"InstanceTypeQuotaSet": items, "RequestId": "r"}}}).encode()


def _fixture_page(index: int = 0) -> list[dict[str, Any]]:
    entry = read_har(CAPTURE)["log"]["entries"][index]
    return page_json(entry)["data"]["Response"]["InstanceTypeQuotaSet"]


def _without_unit_price(items: list[Any], count: int = 3) -> list[Any]:
    for item in items[:count]:
        del item["Price"]["UnitPrice"]
        del item["Price"]["UnitPriceDiscount"]
    return items


# The API reference's own example (DescribeZoneInstanceConfigInfos, example 1):
# an hourly item on sale whose hourly prices are 0 and whose ChargeUnit is a
# placeholder. Its field names and values; the GPU fields are set by the test.
DOCUMENTED = {
    "Status": "SELL",
    "Zone": "ap-guangzhou-2",
    "NetworkCard": 0,
    "Price": {
        "DiscountPrice": 59.0,
        "OriginalPriceThreeYear": 0.0,
        "DiscountOneYear": 0.0,
        "UnitPrice": 0.0,
        "UnitPriceThirdStep": 0.0,
        "OriginalPriceFiveYear": 0.0,
        "Discount": 0.0,
        "DiscountFiveYear": 0.0,
        "UnitPriceDiscountThirdStep": 0.0,
        "UnitPriceSecondStep": 0.0,
        "OriginalPrice": 59.0,
        "DiscountThreeYear": 0.0,
        "UnitPriceDiscountSecondStep": 0.0,
        "UnitPriceDiscount": 0.0,
        "DiscountPriceFiveYear": 0.0,
        "OriginalPriceOneYear": 708.0,
        "ChargeUnit": "xx",
        "DiscountPriceThreeYear": 0.0,
        "DiscountPriceOneYear": 587.64,
    },
    "InstanceFamily": "S2",
    "Externals": {},
    "InstanceType": "S2.SMALL1",
    "TypeName": "Standard S2",
    "InstanceChargeType": "POSTPAID_BY_HOUR",
    "Memory": 1,
    "LocalDiskTypeList": [],
    "Cpu": 1,
    "SoldOutReason": "",
    "StorageBlockAmount": 0,
    "CpuType": "Intel Xeon E5-2680 v4",
    "InstancePps": 20,
    "InstanceBandwidth": 1.5,
    "Gpu": 0,
    "Fpga": 0,
    "Remark": "",
}


def _item(data: Mapping[str, Any]) -> Any:
    return {"kind": "tencent.zone_instance", "observed_at": "2026-11-02T02:00:00Z", "source_url": "u", "data": data}


def test_documented_example_parses() -> None:
    """Not a GPU type: left out, with no error."""
    assert parse_zone_configs(_page([DOCUMENTED])) == []
    # Were it one, the item on sale at 0 is skipped with a note, never failing
    # the provider; a sibling item stays.
    as_gpu = {**DOCUMENTED, "InstanceType": "GN7.2XLARGE32", "InstanceFamily": "GN7", "Gpu": 1}
    minimal = {**as_gpu, "Zone": "ap-guangzhou-3", "Price": {"UnitPrice": 8.67, "ChargeUnit": "HOUR"}}
    notes: list[str] = []
    found = parse_zone_configs(_page([as_gpu, minimal]), notes)
    assert len(found) == 2 and notes == []
    result = normalize([_item(i) for i in found])
    # Without UnitPriceDiscount (optional in the reference): priced at UnitPrice.
    assert [(q.zone, q.price, q.list_price) for q in result.quotes] == [
        ("ap-guangzhou-3", Decimal("8.67"), Decimal("8.67"))
    ]
    assert any(
        "GN7.2XLARGE32" in n and "ap-guangzhou-2" in n and n.startswith("tencent: skipped:") for n in result.notes
    )


@pytest.mark.parametrize(
    "body, reason",
    [
        (b'{"code": 0, "data": {"Response": {"InstanceTypeQuotaSet": [', "not valid JSON"),
        (b'{"code": 0, "data": {"Response": {"RequestId": "r"}}}', "no InstanceTypeQuotaSet list"),
        (b'{"code": 0, "data": {}}', "no data.Response"),
        (b'{"code": 1001, "msg": "login required"}', "answered code 1001: login required"),
        (
            b'{"code": 0, "data": {"Response": {"Error": {"Code": "InvalidZone", "Message": "no such zone"}}}}',
            "InvalidZone: no such zone",
        ),
        (
            _page(_without_unit_price(_fixture_page(), count=10)),
            r"Price.UnitPrice \(or UnitPriceDiscount\) missing in 10/10 items",
        ),
        (
            _page([{**i, "InstanceChargeType": "PREPAID_NEW"} for i in _fixture_page()]),
            "unknown InstanceChargeType PREPAID_NEW",
        ),
        (_page([{k: v for k, v in i.items() if k != "Status"} for i in _fixture_page()]), "Status missing in 10/10"),
    ],
)
def test_changed_shapes_fail_loudly(body: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_zone_configs(body)


def test_odd_items_of_an_answer_are_skipped_with_a_note() -> None:
    notes: list[str] = []
    found = parse_zone_configs(_page(_without_unit_price(_fixture_page())), notes)
    assert len(found) == 7
    assert notes == ["tencent: Price.UnitPrice (or UnitPriceDiscount) missing in 3/10 items; skipped"]


def test_unknown_status_skips_the_item_unless_every_item_has_one() -> None:
    items = raw_items()
    items[0]["data"]["Status"] = "PRESALE"
    result = normalize(items)
    assert len(result.quotes) == len(items) - 1
    assert any("unknown Status 'PRESALE'" in n for n in result.notes)
    for item in items:
        item["data"]["Status"] = "PRESALE"
    with pytest.raises(NormalizeError, match="unknown Status 'PRESALE'"):
        normalize(items)


def test_zero_priced_items_are_skipped_with_a_note() -> None:
    items = raw_items()
    first = items[0]["data"]
    first["Price"]["UnitPriceDiscount"] = 0
    result = normalize(items)
    assert len(result.quotes) == 53 and any("is on sale at 0" in n for n in result.notes)
    first["Status"] = "SOLD_OUT"
    result = normalize(items)
    assert len(result.quotes) == 53 and any("sold out with no price" in n for n in result.notes)


# --- end to end through the CLI ---------------------------------------------


def crawl(cli, har: Path):
    return cli("crawl", "tencent", "-r", "ap-guangzhou", "-r", "ap-beijing", "--replay", str(har), "--format", "json")


def set_status(instance_type: str, zone: str, charge_type: str, status: str):
    def edit(i: int, entry: dict[str, Any]) -> None:
        if request_of(entry) != (zone, charge_type):
            return
        page = page_json(entry)
        for item in page["data"]["Response"]["InstanceTypeQuotaSet"]:
            if item["InstanceType"] == instance_type:
                item["Status"] = status
        set_page_json(entry, page)

    return edit


def test_prices_in_cny_with_periods(cli, replayed) -> None:
    assert replayed(FIRST)[0].code == 0
    rows = json.loads(cli("prices", "--provider", "tencent", "--gpu", "V100", "--format", "json").out)
    assert rows and {r["currency"] for r in rows} == {"CNY"}
    assert {r["gpu_model"] for r in rows} == {"V100 32GB"}
    assert {(r["price_model"], r["term"], r["unit"]) for r in rows} == {
        ("on_demand", "", "hour"),
        ("spot", "", "hour"),
        ("monthly", "1mo", "month"),
    }
    for row in rows:
        hours = 720 if row["unit"] == "month" else 1
        assert Decimal(row["hourly_price"]) == (Decimal(row["price"]) / hours).quantize(Decimal("0.000001"))
        assert row["zone"].startswith(row["region"] + "-") and row["availability"] == "available"
    big = next(r for r in rows if r["instance_type"] == "GN10Xp.20XLARGE320" and r["price_model"] == "monthly")
    assert (big["price"], big["list_price"], big["gpu_count"]) == ("37730.88", "37730.88", "8")
    assert Decimal(big["price_per_gpu_hour"]) == (Decimal("37730.88") / 720 / 8).quantize(Decimal("0.000001"))


def test_sold_out_between_replays_is_one_availability_change(cli, replayed, tmp_path: Path) -> None:
    assert replayed(FIRST)[0].code == 0
    edit = set_status("GN10Xp.2XLARGE40", "ap-beijing-6", "POSTPAID_BY_HOUR", "SOLD_OUT")
    result = crawl(cli, shifted(CAPTURE, tmp_path / "sold.har", LATER, edit))
    assert result.code == 0, result.err
    changes = json.loads(result.out)
    assert [(c["kind"], c["instance_type"], c["zone"], c["price_model"]) for c in changes] == [
        ("availability_changed", "GN10Xp.2XLARGE40", "ap-beijing-6", "on_demand")
    ]
    assert changes[0]["detail"] == "availability: available -> sold_out"
    assert changes[0]["old_price"] == changes[0]["new_price"] == "10.97"

    logged = json.loads(cli("changes", "--provider", "tencent", "--format", "json").out)
    assert [(c["kind"], c["zone"], c["detail"]) for c in logged] == [
        ("availability_changed", "ap-beijing-6", "availability: available -> sold_out")
    ]
    table = cli("changes", "--kind", "availability_changed").out
    assert "available → sold out" in table
    wide = cli("changes", "--kind", "availability_changed", "--wide").out
    assert "ap-beijing-6" in wide
    row = json.loads(
        cli(
            "prices",
            "--instance-type",
            "GN10Xp.2XLARGE40",
            "--region",
            "ap-beijing",
            "--price-model",
            "on_demand",
            "--format",
            "json",
        ).out
    )
    assert [r["availability"] for r in row] == ["sold_out"]

    back = crawl(cli, shifted(CAPTURE, tmp_path / "back.har", datetime(2026, 11, 16, 2, tzinfo=UTC)))
    assert [(c["kind"], c["detail"]) for c in json.loads(back.out)] == [
        ("availability_changed", "availability: sold_out -> available")
    ]


def test_changed_shape_fails_the_run_and_keeps_the_data(cli, replayed, tmp_path: Path) -> None:
    assert replayed(FIRST)[0].code == 0
    before = json.loads(cli("prices", "--provider", "tencent", "--format", "json").out)

    def drop_unit_price(i: int, entry: dict[str, Any]) -> None:
        if request_of(entry) == ("ap-guangzhou-6", "POSTPAID_BY_HOUR"):
            page = page_json(entry)
            quota = page["data"]["Response"]["InstanceTypeQuotaSet"]
            set_page_json(
                entry,
                {"code": 0, "data": {"Response": {"InstanceTypeQuotaSet": _without_unit_price(quota, len(quota))}}},
            )

    result = crawl(cli, shifted(CAPTURE, tmp_path / "broken.har", LATER, drop_unit_price))
    assert result.code == 1 and "Traceback" not in result.err
    assert "Tencent: Price.UnitPrice (or UnitPriceDiscount) missing in 10/10 items" in result.err
    assert json.loads(cli("prices", "--provider", "tencent", "--format", "json").out) == before
    assert [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)] == ["source_broken"]


def test_gpu_count_of_the_answer_wins_and_memory_follows_it() -> None:
    items = raw_items()
    item = next(i for i in items if i["data"]["InstanceType"] == "GN7.2XLARGE32")
    item["data"]["GpuCount"] = 1.0
    quote = normalize([item]).quotes[0]
    assert str(quote.gpu_count) == "1" and quote.gpu_memory_gb == 16
    item["data"]["GpuCount"] = 0.5
    quote = normalize([item]).quotes[0]
    assert (quote.gpu_count, quote.gpu_memory_gb) == (Decimal("0.5"), 8)
