"""AutoDL: the market list's page object (pages, both price fields, an error
code, an odd machine), the normalizer on the one public real machine record
(tests/fixtures/autodl/gpuhunter-list-machine.json: GPUs idle, none
orderable) and on the demo captures (aggregates worked out by hand from
tests/fixtures/autodl/make_fixtures.py), and a replay of both: A800 free in
北京B区, a cheaper 4090 in 西北B区."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.autodl.pages import parse_machines
from spiders.har import read_har
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import from_jsonl, only
from tracker.normalize.providers.autodl import normalize

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

EARLY = DEMO_CAPTURES / "autodl" / "2026-11-02-beijing-B+west-B.har.gz"
LATER = DEMO_CAPTURES / "autodl" / "2026-12-01-beijing-B+west-B.har.gz"
REGIONS = ["beijing-B", "west-B"]
GPUHUNTER = Path(__file__).parents[1] / "fixtures" / "autodl" / "gpuhunter-list-machine.json"


def raw_items(path: Path = EARLY) -> tuple[list[Any], int, list[int]]:
    items, odd, lasts = [], 0, []
    for entry in read_har(path)["log"]["entries"]:
        machines, skipped, last = parse_machines(entry["response"]["content"]["text"].encode())
        odd += skipped
        lasts.append(last)
        envelope = {"observed_at": entry["startedDateTime"], "source_url": entry["request"]["url"]}
        items += [{**envelope, "kind": "autodl.machine", "regions": REGIONS, "data": m} for m in machines]
    return items, odd, lasts


def test_pages_both_price_fields_and_an_odd_machine() -> None:
    items, odd, lasts = raw_items()
    assert lasts == [2, 2] and odd == 1
    prices = {i["data"]["machine_id"]: i["data"]["price"] for i in items}
    assert prices["bj4090b"] == 1980  # the older payg_price
    assert prices["bj4090a"] == 2080  # machine_sku_info's payg current_price


def test_orderable_gpus_decide_an_offer_on_the_real_record() -> None:
    machines, odd, last = parse_machines(GPUHUNTER.read_bytes())
    assert (odd, last) == (0, 1)
    real = machines[0]
    assert (real["machine_id"], real["gpu_idle_num"], real["gpu_order_num"], real["price"]) == (
        "2dd949a4cf",
        1,
        0,
        2720,
    )
    envelope = {"observed_at": "2024-03-29T00:00:00Z", "source_url": "https://www.autodl.com/api/v1/user/machine/list"}
    items = [{**envelope, "kind": "autodl.machine", "regions": ["west-B"], "data": m} for m in machines]
    result = normalize(from_jsonl(items))
    # The real machine (1 idle, 0 orderable) is no offer; its twin (3 idle, 2 orderable) is one in 1x and 2x only.
    assert sorted((q.instance_type, q.price, q.offer_count) for q in result.quotes) == [
        ("1x RTX 4090", Decimal("2.72"), 1),
        ("2x RTX 4090", Decimal("5.44"), 1),
    ]
    assert any("1 machines have GPUs idle but none orderable" in n for n in result.notes)


def test_an_error_code_is_a_shape_error_with_the_code() -> None:
    with pytest.raises(PageShapeError, match="AuthorizeFailed"):
        parse_machines('{"code": "AuthorizeFailed", "msg": "登录超时"}'.encode())


# region, group: lowest, median (CNY an hour), offers
AGGREGATES = [
    # beijing-B 4090: 1.98 (1 free), 2.08 (3 free), 2.28 (8 free)
    ("beijing-B", "1x RTX 4090", "1.98", "2.08", 3),
    ("beijing-B", "2x RTX 4090", "4.16", "4.36", 2),
    ("beijing-B", "8x RTX 4090", "18.24", "18.24", 1),
    ("west-B", "4x RTX 4090", "7.52", "7.52", 1),
    ("west-B", "8x H800", "84.0", "84.0", 1),
]


@pytest.mark.parametrize(("region", "group", "low", "mid", "offers"), AGGREGATES)
def test_machines_aggregate_per_region_gpu_and_free_count(region, group, low, mid, offers) -> None:
    q = only(normalize(raw_items()[0]).quotes, region=region, instance_type=group)
    assert (q.price, q.median_price, q.offer_count) == (Decimal(low), Decimal(mid), offers)
    assert q.currency == "CNY" and q.attrs["region_name"] in ("北京B区", "西北B区")


def test_a_demo_machine_idle_but_not_orderable_is_no_offer() -> None:
    items = raw_items()[0]
    assert any(i["data"]["machine_id"] == "xb4090z" for i in items)
    west = only(normalize(items).quotes, region="west-B", instance_type="1x RTX 4090")
    assert (west.price, west.offer_count) == (Decimal("1.88"), 2)  # xb4090a and xb4090b; not xb4090z at 1.68


def test_a_gpu_the_table_lacks_keeps_its_memory_from_the_list() -> None:
    result = normalize(raw_items()[0])
    vgpu = only(result.quotes, instance_type="1x vGPU-32GB")
    assert vgpu.gpu_model is None and vgpu.gpu_memory_gb == Decimal(32)
    assert any("vGPU-32GB" in n for n in result.notes)


def test_a_month_later(cli) -> None:
    for har in (EARLY, LATER):
        args = ("crawl", "autodl", "--replay", str(har), "--region", "beijing-B", "--region", "west-B")
        assert cli(*args).code == 0
    changes = json.loads(cli("changes", "--format", "json").out)
    assert sorted((c["kind"], c["region"], c["instance_type"]) for c in changes) == [
        ("new_sku", "beijing-B", "1x A800-80GB"),
        ("new_sku", "beijing-B", "2x A800-80GB"),
        ("price_drop", "west-B", "1x RTX 4090"),
        ("price_drop", "west-B", "2x RTX 4090"),
        ("price_drop", "west-B", "4x RTX 4090"),
    ]
    a800 = next(c for c in changes if c["instance_type"] == "1x A800-80GB")
    assert "region_name: 北京B区" in a800["detail"] and "availability: not_listed -> available" in a800["detail"]


def test_missing_token_skips_autodl(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_AUTODL_API_KEY", raising=False)
    result = cli("crawl", "autodl")
    assert result.code == 1 and "autodl: skipped: no API key" in result.err
