"""Huawei Cloud: the calculator page objects, the normalizer and its reading
of acceleratorCard, and the CLI end to end on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.har import read_har
from spiders.huawei.pages import parse_menu, parse_product_info
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only, page_json, set_page_json, shifted
from tracker.normalize import NormalizeError
from tracker.normalize.providers.huawei import normalize, parse_card

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
# The first crawl of CAPTURE runs once per worker (`replayed`, tests/helpers/replayed.py).
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.xdist_group("spiders-huawei")]

CAPTURE = DEMO_CAPTURES / "huawei" / "2026-11-02-cn-north-4+cn-east-3.har.gz"
FIRST = ("crawl", "huawei", "--replay", str(CAPTURE), "--format", "json")
LATER = datetime(2026, 11, 9, 3, tzinfo=UTC)


def entries() -> list[dict[str, Any]]:
    return read_har(CAPTURE)["log"]["entries"]


def raw_items() -> list[Any]:
    items = []
    for entry in entries()[1:]:
        region = next(q["value"] for q in entry["request"]["queryString"] if q["name"] == "region")
        for found in parse_product_info(entry["response"]["content"]["text"].encode()):
            items.append(
                {
                    "kind": "huawei.ecs_flavor",
                    "observed_at": entry["startedDateTime"],
                    "source_url": entry["request"]["url"],
                    "region": region,
                    "currency": "CNY",
                    "data": found,
                }
            )
    return items


def test_menu_lists_the_ecs_regions() -> None:
    assert parse_menu(entries()[0]["response"]["content"]["text"].encode()) == ["cn-north-4", "cn-east-3"]


def test_only_gpu_flavors_are_kept() -> None:
    kept = {i["data"]["spec"] for i in raw_items()}
    assert not kept & {"s6.large.2", "c7.2xlarge.2"}
    assert {"p1.2xlarge.8", "p2v.2xlarge.8", "p2s.2xlarge.8", "pi2.2xlarge.4", "g6.10xlarge.7"} <= kept


def test_every_plan_becomes_a_row() -> None:
    result = normalize(raw_items())
    quotes = result.quotes
    # 53 Linux rows, and 5 of the one flavor also sold with Windows: the OS is
    # imageSpec's, the flavor spec's (resourceSpecCode joins the two).
    assert len({q.key for q in quotes}) == len(quotes) == 58
    assert result.notes == ["huawei: billing modes not tracked: RI"]
    assert {q.instance_type for q in quotes if q.os == "windows"} == {"pi2.2xlarge.4"}
    on_demand = dict(instance_type="pi2.2xlarge.4", region="cn-north-4", price_model="on_demand")
    assert (only(quotes, **on_demand, os="linux").price, only(quotes, **on_demand, os="windows").price) == (
        Decimal("8.97"),
        Decimal("10.05"),
    )
    # p2v.2xlarge.8's planList holds its picked plan; the rest are in bakPlanList.
    where = dict(instance_type="p2v.2xlarge.8", region="cn-north-4")
    expected = {
        ("on_demand", ""): ("26.12", "hour"),
        ("monthly", "1mo"): ("9760", "month"),
        ("monthly", "3mo"): ("29280", "term"),
        ("yearly", "1yr"): ("97600", "year"),
        ("yearly", "3yr"): ("234240", "term"),
    }
    for (model, term), (price, unit) in expected.items():
        q = only(quotes, **where, price_model=model, term=term)
        assert (q.price, q.unit, q.currency, q.zone, q.availability) == (Decimal(price), unit, "CNY", "", None)
    three_year = only(quotes, **where, price_model="yearly", term="3yr")
    assert three_year.hourly_rate() == Decimal(234240) / 26280


def test_gpu_spec_comes_from_the_card_first() -> None:
    quotes = normalize(raw_items()).quotes
    p2s = only(quotes, instance_type="p2s.16xlarge.8", price_model="on_demand")
    assert (p2s.gpu_model, p2s.gpu_count, p2s.gpu_memory_gb, p2s.vcpu, p2s.memory_gb) == ("V100 32GB", 8, 256, 64, 512)
    a100 = only(quotes, instance_type="p3.2xlarge.8", price_model="on_demand")
    assert (a100.gpu_model, a100.gpu_memory_gb) == ("A100 80GB", 80)
    # No acceleratorCard: the spec table's figures.
    p1 = only(quotes, instance_type="p1.2xlarge.8", price_model="on_demand")
    assert (p1.gpu_model, p1.gpu_count, p1.gpu_memory_gb) == ("P100", 1, 16)
    # The card wins over the table when they disagree.
    items = raw_items()
    target = next(i for i in items if i["data"]["spec"] == "p2v.2xlarge.8")
    target["data"]["acceleratorCard"] = "1 × NVIDIA V100 / 1 × 32GiB"
    card = only(
        normalize(items).quotes, instance_type="p2v.2xlarge.8", region=target["region"], price_model="on_demand"
    )
    assert (card.gpu_model, card.gpu_memory_gb) == ("V100 32GB", 32)


@pytest.mark.parametrize(
    "text, model, count, memory",
    [
        ("1 × NVIDIA V100 / 1 × 16GiB", "V100", "1", "16"),
        ("8 × NVIDIA V100 / 8 × 32GiB", "V100 32GB", "8", "256"),
        ("4*NVIDIA T4 16GB", "T4", "4", "64"),
        ("1*NVIDIA Tesla P100 PCIe(16GB)", "P100", "1", "16"),
        ("2 x NVIDIA A100 80GB", "A100 80GB", "2", "160"),
        ("1*NVIDIA L20", "L20", "1", None),
        # The vendor glued to the model, as the calculator writes real cards.
        ("1*NVIDIAT4", "T4", "1", None),
        ("8*NVIDIA-A100-80G", "A100 80GB", "8", "640"),
        ("2*NVIDIATeslaV100-32G", "V100 32GB", "2", "64"),
    ],
)
def test_accelerator_card_forms(text: str, model: str, count: str, memory: str | None) -> None:
    card = parse_card(text, "x")
    assert (card["gpu_model"], card["gpu_count"], card["gpu_memory_gb"]) == (
        model,
        Decimal(count),
        Decimal(memory) if memory else None,
    )


@pytest.mark.parametrize(
    "text, reason",
    [
        ("NVIDIA V100", "cannot read acceleratorCard"),
        ("1 × NVIDIA V100 / 1 × 24GiB", "no V100 has 24"),
    ],
)
def test_unreadable_cards_are_errors(text: str, reason: str) -> None:
    with pytest.raises(NormalizeError, match=reason):
        parse_card(text, "p2v.2xlarge.8")


def test_card_without_memory_that_the_table_cannot_settle_is_an_error() -> None:
    items = raw_items()
    target = next(i for i in items if i["data"]["spec"] == "p3.2xlarge.8")
    target["data"]["acceleratorCard"] = "2*NVIDIA A100"
    # One odd flavor is left out with a note; the others are stored.
    result = normalize(items)
    assert "p3.2xlarge.8" not in {q.instance_type for q in result.quotes} and result.quotes
    assert any("does not say which A100" in n and n.startswith("huawei: skipped:") for n in result.notes)
    # Every flavor odd: the answer changed shape, and the run fails.
    for item in items:
        item["data"]["acceleratorCard"] = "2*NVIDIA A100"
    with pytest.raises(NormalizeError, match="does not say which A100"):
        normalize(items)


def _product(flavors: list[dict[str, Any]]) -> bytes:
    return json.dumps({"product": {"ec2_vm": flavors}}).encode()


def _fixture_flavors() -> list[dict[str, Any]]:
    return page_json(entries()[1])["product"]["ec2_vm"]


def _without(key: str, count: int, plans: bool = False) -> bytes:
    flavors = [f for f in _fixture_flavors() if f["resourceSpecCode"].startswith(("p", "g"))]
    for flavor in flavors[:count]:
        if plans:
            del flavor["planList"][0][key]
        else:
            flavor.pop(key)
            flavor.pop("bakPlanList", None)
    return _product(flavors)


@pytest.mark.parametrize(
    "body, reason",
    [
        (b'{"product": {"ec2_vm": [', "not valid JSON"),
        (b'{"products": {}}', "no product object"),
        (b'{"product": {"ec2": []}}', "no ec2_vm list"),
        (_without("planList", 2), r"planList \(or bakPlanList\) missing in 2/10 items"),
        (_without("amount", 3, plans=True), r"planList\[\].amount missing in 3/"),
    ],
)
def test_changed_product_shapes_fail_loudly(body: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_product_info(body)


@pytest.mark.parametrize(
    "body, reason",
    [
        (b'{"menus": []}', "no menuInfos list"),
        (b'{"menuInfos": [{"subCategoryLists": [{"urlPath": "obs"}]}]}', "no calculator entry with urlPath 'ecs'"),
        (b'{"menuInfos": [{"subCategoryLists": [{"urlPath": "ecs"}]}]}', "has no regionOnline.regionList"),
    ],
)
def test_changed_menu_shapes_fail_loudly(body: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_menu(body)


# --- end to end through the CLI ---------------------------------------------


def crawl(cli, har: Path, *regions: str):
    args = [a for r in regions for a in ("-r", r)]
    return cli("crawl", "huawei", *args, "--replay", str(har), "--format", "json")


def test_prices_in_cny_with_periods(cli, replayed) -> None:
    (first,) = replayed(FIRST)  # every region menuInfo lists
    assert first.code == 0, first.err
    runs = json.loads(cli("runs", "--format", "json").out)
    assert runs[0]["regions"] == "cn-north-4,cn-east-3"
    rows = json.loads(cli("prices", "--provider", "huawei", "--gpu", "V100", "--format", "json").out)
    assert {r["currency"] for r in rows} == {"CNY"}
    assert {r["gpu_model"] for r in rows} == {"V100", "V100 32GB"}
    hours = {"hour": 1, "month": 720, "year": 8760}
    for row in rows:
        divisor = hours.get(row["unit"]) or {"3mo": 2160, "3yr": 26280}[row["term"]]
        assert Decimal(row["hourly_price"]) == (Decimal(row["price"]) / divisor).quantize(Decimal("0.000001"))
    periods = {(r["price_model"], r["term"], r["unit"]) for r in rows}
    assert periods == {
        ("on_demand", "", "hour"),
        ("monthly", "1mo", "month"),
        ("monthly", "3mo", "term"),
        ("yearly", "1yr", "year"),
        ("yearly", "3yr", "term"),
    }


def test_price_change_between_replays(cli, tmp_path: Path) -> None:
    assert crawl(cli, CAPTURE, "cn-north-4").code == 0

    def cheaper(i: int, entry: dict[str, Any]) -> None:
        if "productInfo" in entry["request"]["url"] and "cn-north-4" in entry["request"]["url"]:
            page = page_json(entry)
            for flavor in page["product"]["ec2_vm"]:
                if flavor["resourceSpecCode"] == "pi2.2xlarge.4.linux":
                    next(p for p in flavor["planList"] if p["billingMode"] == "ONDEMAND")["amount"] = 8.07
            set_page_json(entry, page)

    result = crawl(cli, shifted(CAPTURE, tmp_path / "later.har", LATER, cheaper), "cn-north-4")
    changes = json.loads(result.out)
    assert [
        (c["kind"], c["instance_type"], c["price_model"], c["old_price"], c["new_price"], c["currency"])
        for c in changes
    ] == [("price_drop", "pi2.2xlarge.4", "on_demand", "8.97", "8.07", "CNY")]


def test_region_the_calculator_does_not_list(cli) -> None:
    result = crawl(cli, CAPTURE, "ap-southeast-1")
    assert result.code == 1 and "Traceback" not in result.err
    expected = "Huawei: the calculator does not price ECS in ap-southeast-1 (it does in cn-north-4, cn-east-3)"
    assert expected in result.err


def test_changed_shape_fails_the_run_and_keeps_the_data(cli, replayed, tmp_path: Path) -> None:
    assert replayed(FIRST)[0].code == 0
    before = json.loads(cli("prices", "--provider", "huawei", "--format", "json").out)

    def no_plans(i: int, entry: dict[str, Any]) -> None:
        if "productInfo" in entry["request"]["url"] and "cn-east-3" in entry["request"]["url"]:
            page = page_json(entry)
            for flavor in page["product"]["ec2_vm"]:
                flavor.pop("planList")
                flavor.pop("bakPlanList", None)
            set_page_json(entry, page)

    result = crawl(cli, shifted(CAPTURE, tmp_path / "broken.har", LATER, no_plans))
    assert result.code == 1 and "Huawei: planList (or bakPlanList) missing in 4/4 items" in result.err
    assert json.loads(cli("prices", "--provider", "huawei", "--format", "json").out) == before
    assert [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)] == ["source_broken"]
