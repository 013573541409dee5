"""The China APIs' documented shapes and states, and one item a provider
cannot price: skipped with a note naming it, its last price kept (never
"removed"), the rest stored.

Where a figure comes from (tests/fixtures/china-api-shapes.md has the list):
the Alibaba DescribePrice reference example (instance line 4368 / 655.2 /
3712.8, the PriceNotFound error and its message), Huawei's FlavorExtraSpec
model (the abandon + per-zone example, hws:performancetype on early
flavors), Tencent's documented DescribeZoneInstanceConfigInfos example with
stepped prices (S2.SMALL1 0.15 / 0.07 / 0.05) and its untiered examples
that give every step as 0. The rest are our own figures in those shapes.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from spiders.alibaba.api_pages import parse_price, parse_stock
from spiders.huawei.api_pages import parse_flavors
from tests.helpers.harutil import from_jsonl, page_json, set_page_json, shifted
from tracker.normalize import NormalizeError
from tracker.normalize.providers import alibaba, tencent

DEMO = Path(__file__).resolve().parents[2] / "tracker" / "demo_captures"
ALIBABA = DEMO / "alibaba-api" / "2026-11-02-cn-beijing.har.gz"
HUAWEI = DEMO / "huawei-api" / "2026-11-02-cn-north-4.har.gz"
VOLCANO = DEMO / "volcengine-api" / "2026-11-02-cn-beijing.har.gz"
TENCENT = DEMO / "tencent-api" / "2026-11-02-ap-guangzhou.har.gz"
LATER, LATEST = datetime(2026, 11, 9, 6, tzinfo=UTC), datetime(2026, 11, 16, 6, tzinfo=UTC)


def price_answer(detail: dict[str, Any] | None, total: float) -> dict[str, Any]:
    price: dict[str, Any] = {"Currency": "CNY", "OriginalPrice": total, "DiscountPrice": 0, "TradePrice": total}
    if detail is not None:
        price["DetailInfos"] = detail
    return {"RequestId": "473469C7-AA6F-4DC5-B3DB-A3DC0DE3C83E", "PriceInfo": {"Price": price, "Rules": {"Rule": []}}}


# The reference's own ResourcePriceModel line: Resource instance, 4368 / 655.2 / 3712.8.
REFERENCE_LINE = {"Resource": "instance", "OriginalPrice": 4368, "DiscountPrice": 655.2, "TradePrice": 3712.8}
IMAGE_LINE = {"Resource": "image", "OriginalPrice": 100, "DiscountPrice": 0, "TradePrice": 100}


@pytest.mark.parametrize(
    "detail",
    [
        {"ResourcePriceModel": [REFERENCE_LINE, IMAGE_LINE]},  # the API reference's container and Resource
        {"DetailInfo": [{**REFERENCE_LINE, "Resource": "instanceType"}, IMAGE_LINE]},  # the SDK model's
    ],
)
def test_alibaba_reads_the_instance_line_under_either_container(detail: dict[str, Any]) -> None:
    found = parse_price(price_answer(detail, 3812.8))
    assert (found["price"], found["list_price"], found["basis"]) == (3712.8, 4368, "instance")


def test_alibaba_a_total_is_never_an_instance_price_without_saying_so() -> None:
    assert parse_price(price_answer(None, 3812.8))["basis"] == "total"
    unknown = parse_price(price_answer({"ResourcePriceModel": [IMAGE_LINE]}, 3812.8))
    assert unknown["basis"] == "unknown" and unknown["resources"] == ["image"]
    item = {"observed_at": "2026-11-02T06:00:00Z", "source_url": "https://ecs.cn-beijing.aliyuncs.com/", "region": "r"}
    out = alibaba.normalize_api(
        from_jsonl(
            [
                {
                    **item,
                    "kind": "alibaba.api.price",
                    "data": {
                        **parse_price(price_answer(None, 3812.8)),
                        "instance_type": "ecs.gn7i-c8g1.2xlarge",
                        "variant": "1yr",
                    },
                },
                {
                    **item,
                    "kind": "alibaba.api.price",
                    "data": {**unknown, "instance_type": "ecs.gn7e-c16g1.32xlarge", "variant": "1yr"},
                },
            ]
        )
    )
    [quote] = out.quotes
    assert quote.price == Decimal("3812.8") and quote.attrs == {"price_basis": "order total"}
    assert any("no DetailInfos.DetailInfo or DetailInfos.ResourcePriceModel line" in n for n in out.notes)
    assert any(
        "ecs.gn7e-c16g1.32xlarge (1yr) in r skipped, its last price kept" in n and "Resource image" in n
        for n in out.notes
    )


def test_alibaba_reads_both_stock_casings() -> None:
    def answer(kind: str, available: str, sold: str) -> dict[str, Any]:
        supported = [
            {"Value": "ecs.gn7i-c8g1.2xlarge", "Status": available},
            {"Value": "ecs.gn7e-c16g1.32xlarge", "Status": sold},
        ]
        resource = {"Type": kind, "SupportedResources": {"SupportedResource": supported}}
        zone = {"ZoneId": "cn-beijing-h", "AvailableResources": {"AvailableResource": [resource]}}
        return {"AvailableZones": {"AvailableZone": [zone]}}

    for shape in (answer("InstanceType", "Available", "SoldOut"), answer("instanceType", "available", "soldOut")):
        assert [(s["instance_type"], s["availability"]) for s in parse_stock(shape)] == [
            ("ecs.gn7i-c8g1.2xlarge", "available"),
            ("ecs.gn7e-c16g1.32xlarge", "sold_out"),
        ]
    odd = parse_stock(answer("InstanceType", "Surprise", "SoldOut"))[0]
    assert odd["availability"] is None and odd["status"] == "Surprise/None"


def _query(entry: dict[str, Any]) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(entry["request"]["url"]).query).items()}


def price_not_found(i: int, entry: dict[str, Any]) -> None:
    """gn7i's pay-as-you-go DescribePrice answers the documented PriceNotFound (HTTP 400)."""
    q = _query(entry)
    if q.get("InstanceType") == "ecs.gn7i-c8g1.2xlarge" and q.get("SpotStrategy") == "NoSpot":
        entry["response"]["status"] = 400
        set_page_json(
            entry,
            {
                "RequestId": "C0003E8B-B930-4F59-ADC0-0E209A9012A8",
                "HostId": "ecs.cn-beijing.aliyuncs.com",
                "Code": "PriceNotFound",
                "Message": "The price of your queried resource is not available now, please try other resources.",
            },
        )


def held_twice(cli, source: str, first: Path, edit, tmp_path: Path, *, region: str) -> list[str]:
    """`first` stored, then the edited capture twice (a week apart): the errs
    of those two runs; every row of the first run is still open after them."""
    assert cli("crawl", source, "-r", region, "--replay", str(first)).code == 0
    provider = source.removesuffix("-api")
    stored = {
        (r["instance_type"], r["zone"], r["price_model"], r["term"])
        for r in json.loads(cli("prices", "--provider", provider, "--format", "json").out)
    }
    errs = []
    for n, when in enumerate((LATER, LATEST)):
        capture = shifted(first, tmp_path / f"{source}-{n}.har", when, edit)
        result = cli("crawl", source, "-r", region, "--replay", str(capture))
        assert result.code == 0, result.err
        errs.append(" ".join(result.err.split()))  # the notes as one line each, however the console wrapped them
    now = {
        (r["instance_type"], r["zone"], r["price_model"], r["term"])
        for r in json.loads(cli("prices", "--provider", provider, "--format", "json").out)
    }
    assert now == stored
    return errs


def test_alibaba_price_not_found_skips_that_type_and_keeps_its_price(sqlite_cli, tmp_path: Path) -> None:
    errs = held_twice(sqlite_cli, "alibaba-api", ALIBABA, price_not_found, tmp_path, region="cn-beijing")
    note = "ecs.gn7i-c8g1.2xlarge (on_demand) in cn-beijing skipped, its last price kept: DescribePrice answered PriceNotFound"
    assert all(note in err for err in errs)
    removed = json.loads(sqlite_cli("changes", "--kind", "sku_removed", "--format", "json").out)
    assert removed == []
    rows = json.loads(sqlite_cli("prices", "--provider", "alibaba", "--format", "json").out)
    gn7i = [r for r in rows if r["instance_type"] == "ecs.gn7i-c8g1.2xlarge" and r["price_model"] == "on_demand"]
    assert gn7i and {r["price"] for r in gn7i} == {"11.52"}


def test_alibaba_every_type_unpriceable_is_a_failed_run(sqlite_cli, tmp_path: Path) -> None:
    def all_missing(i: int, entry: dict[str, Any]) -> None:
        if "InstanceType" in _query(entry) and "DestinationResource" not in _query(entry):
            entry["response"]["status"] = 400
            set_page_json(entry, {"RequestId": "X", "Code": "PriceNotFound", "Message": "not available now"})

    capture = shifted(ALIBABA, tmp_path / "none.har", LATER, all_missing)
    result = sqlite_cli("crawl", "alibaba-api", "-r", "cn-beijing", "--replay", str(capture))
    assert result.code == 1 and "no type could be priced" in result.err and "Traceback" not in result.err


FLAVOR_SPECS = {"ecs:performancetype": "gpu", "pci_passthrough:alias": "nvidia-v100:1"}


def flavors(*specs: dict[str, str]) -> dict[str, Any]:
    return {
        "flavors": [
            {"name": f"p2s.{n}xlarge.8", "vcpus": "8", "ram": 65536, "os_extra_specs": {**FLAVOR_SPECS, **s}}
            for n, s in enumerate(specs, start=1)
        ]
    }


def test_huawei_abandon_with_zones_on_sale_is_kept_for_those_zones() -> None:
    # The reference's own example: abandoned region-wide, sold in the zones it names.
    spec = {
        "cond:operation:status": "abandon",
        "cond:operation:az": "cn-north-4a(normal), cn-north-4b(sellout), cn-north-4c(obt), cn-north-4d(abandon)",
    }
    [flavor] = parse_flavors(flavors(spec))
    assert flavor["status"] is None
    assert flavor["zones"] == {"cn-north-4a": "available", "cn-north-4b": "sold_out", "cn-north-4c": "limited"}
    assert parse_flavors(flavors({"cond:operation:status": "abandon"})) == []


@pytest.mark.parametrize(
    "state, availability",
    [
        ("normal", "available"),
        ("promotion", "available"),
        ("sellout", "sold_out"),
        ("obt_sellout", "sold_out"),
        ("obt", "limited"),
        ("private", "limited"),
        ("test", "limited"),
    ],
)
def test_huawei_every_sale_state_is_mapped(state: str, availability: str) -> None:
    [flavor] = parse_flavors(flavors({"cond:operation:az": f"cn-north-4a({state})"}))
    assert flavor["zones"] == {"cn-north-4a": availability} and "unknown_states" not in flavor


def test_huawei_a_real_answer_abandoned_but_beta_sold_out_in_one_zone() -> None:
    # Facts of a real ListFlavors answer quoted in public code (ac6.12xlarge.2), given a GPU alias here.
    spec = {
        "cond:operation:status": "abandon",
        "cond:operation:az": "cn-south-1a(abandon),cn-south-2b(abandon),cn-south-1f(obt_sellout),"
        "cn-south-1e(abandon),cn-south-1(abandon),cn-south-1c(abandon)",
    }
    [flavor] = parse_flavors(flavors(spec))
    assert flavor["zones"] == {"cn-south-1f": "sold_out"}


def test_huawei_unknown_state_is_kept_raw_and_early_flavors_use_hws_performancetype() -> None:
    [odd] = parse_flavors(flavors({"cond:operation:status": "surprise"}))
    assert odd["status"] is None and odd["unknown_states"] == ["surprise"]
    early = {
        "flavors": [
            {"name": "p1.2xlarge.8", "vcpus": "8", "ram": 65536, "os_extra_specs": {"hws:performancetype": "gpu"}}
        ]
    }
    assert [f["flavor"] for f in parse_flavors(early)] == ["p1.2xlarge.8"]


def huawei_left_out(i: int, entry: dict[str, Any]) -> None:
    """The on-demand rating answer leaves out the second flavor of its batch (id "1")."""
    if entry["request"]["url"].endswith("/on-demand-resources"):
        page = page_json(entry)
        page["product_rating_results"] = [r for r in page["product_rating_results"] if r["id"] != "1"]
        set_page_json(entry, page)


def test_huawei_a_flavor_left_out_is_held(sqlite_cli, tmp_path: Path) -> None:
    body = json.loads(
        next(
            e
            for e in json.loads(gz_text(HUAWEI))["log"]["entries"]
            if e["request"]["url"].endswith("/on-demand-resources")
        )["request"]["postData"]["text"]
    )
    second = body["product_infos"][1]["resource_spec"].removesuffix(".linux")
    errs = held_twice(sqlite_cli, "huawei-api", HUAWEI, huawei_left_out, tmp_path, region="cn-north-4")
    assert all(f"{second} (on_demand) in cn-north-4 skipped, its last price kept" in e for e in errs)
    assert json.loads(sqlite_cli("changes", "--kind", "sku_removed", "--format", "json").out) == []
    rows = json.loads(sqlite_cli("prices", "--provider", "huawei", "--format", "json").out)
    assert [r for r in rows if r["instance_type"] == second and r["price_model"] == "on_demand"]


def volcano_left_out(i: int, entry: dict[str, Any]) -> None:
    if "QueryPriceForPayAsYouGo" in entry["request"]["url"]:
        page = page_json(entry)
        page["Result"]["ConfigList"] = page["Result"]["ConfigList"][1:]
        set_page_json(entry, page)


def test_volcano_a_type_left_out_is_held(sqlite_cli, tmp_path: Path) -> None:
    errs = held_twice(sqlite_cli, "volcengine-api", VOLCANO, volcano_left_out, tmp_path, region="cn-beijing")
    assert all("ecs.gni2.3xlarge (on_demand) in cn-beijing skipped, its last price kept" in e for e in errs)
    assert json.loads(sqlite_cli("changes", "--kind", "sku_removed", "--format", "json").out) == []
    rows = json.loads(sqlite_cli("prices", "--provider", "volcengine", "--format", "json").out)
    assert [r for r in rows if r["instance_type"] == "ecs.gni2.3xlarge" and r["price_model"] == "on_demand"]


def gz_text(path: Path) -> str:
    import gzip

    return gzip.decompress(path.read_bytes()).decode("utf-8")


def tencent_item(price: dict[str, Any]) -> Any:
    return {
        "kind": "tencent.api",
        "region": "ap-guangzhou",
        "currency": "CNY",
        "observed_at": "2026-11-02T06:00:00Z",
        "source_url": "https://cvm.ap-guangzhou.tencentcloudapi.com/",
        "data": {
            "InstanceType": "S2.SMALL1",
            "Zone": "ap-guangzhou-2",
            "InstanceChargeType": "POSTPAID_BY_HOUR",
            "Status": "SELL",
            "Cpu": 1,
            "Memory": 1,
            "Price": price,
        },
    }


def test_tencent_stepped_prices_are_stored_with_their_steps() -> None:
    # The documented example: 0.15 for hours 0-96, 0.07 for 96-360, 0.05 after (list and discount alike).
    documented = {
        "UnitPrice": 0.15,
        "UnitPriceSecondStep": 0.07,
        "UnitPriceThirdStep": 0.05,
        "UnitPriceDiscount": 0.15,
        "UnitPriceDiscountSecondStep": 0.07,
        "UnitPriceDiscountThirdStep": 0.05,
        "ChargeUnit": "HOUR",
    }
    out = tencent.normalize_api([tencent_item(documented)])
    [quote] = out.quotes
    assert quote.price == Decimal("0.15") and quote.attrs == {
        "hourly_steps": "from 0 h: 0.15; from 96 h: 0.07; from 360 h: 0.05"
    }
    assert any("1 hourly prices are tiered by hours of use" in n for n in out.notes)
    # The untiered examples give every step as 0: no schedule.
    zeros = {
        **documented,
        "UnitPriceSecondStep": 0,
        "UnitPriceThirdStep": 0,
        "UnitPriceDiscountSecondStep": 0,
        "UnitPriceDiscountThirdStep": 0,
    }
    assert tencent.normalize_api([tencent_item(zeros)]).quotes[0].attrs == {}


def test_an_answer_without_any_item_stays_an_error() -> None:
    with pytest.raises(NormalizeError):
        alibaba.normalize_api(from_jsonl([{"kind": "alibaba.api.price", "data": None}]))


def test_tencent_page_source_keeps_the_steps_too() -> None:
    """The purchase page's backend answers the same ItemPrice: the documented steps, on a GPU type."""
    from tests.spiders.test_tencent import raw_items

    items = [i for i in raw_items() if i["charge_type"] == "POSTPAID_BY_HOUR"]
    first = items[0]["data"]
    first["Price"].update(UnitPriceSecondStep=0.07, UnitPriceThirdStep=0.05)
    first["Price"].update(UnitPriceDiscountSecondStep=0.07, UnitPriceDiscountThirdStep=0.05)
    out = tencent.normalize(items)
    stepped = [q for q in out.quotes if q.attrs.get("hourly_steps")]
    assert len(stepped) == 1 and stepped[0].attrs["hourly_steps"].endswith("from 96 h: 0.07; from 360 h: 0.05")
    assert any(n.startswith("tencent: 1 hourly prices are tiered by hours of use") for n in out.notes)
