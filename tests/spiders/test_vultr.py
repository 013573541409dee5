"""Vultr: the plans pages, the normalizer and a replay of the demo captures
(constructed in Vultr's shape; see tests/fixtures/vultr/make_fixtures.py).
Expected figures are worked out by hand from the capture's plans."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.har import read_har
from spiders.pages import PageShapeError
from spiders.vultr.pages import parse_plans_page
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tracker.normalize import NormalizeError
from tracker.normalize.providers.vultr import normalize

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

FOLDER = DEMO_CAPTURES / "vultr"
EARLY, LATE = sorted(FOLDER.glob("*.har.gz"))


def raw_items(path: Path = EARLY, regions: list[str] | None = None) -> list[Any]:
    items = []
    for entry in read_har(path)["log"]["entries"]:
        url = entry["request"]["url"]
        metal = "/plans-metal" in url
        plans, _ = parse_plans_page(entry["response"]["content"]["text"].encode(), metal=metal)
        kind = "vultr.metal" if metal else "vultr.plan"
        items += [
            {
                "kind": kind,
                "observed_at": entry["startedDateTime"],
                "source_url": url,
                "regions": regions or [],
                "data": p,
            }
            for p in plans
        ]
    return items


def test_pages_follow_the_cursor_and_keep_gpu_plans() -> None:
    entries = read_har(EARLY)["log"]["entries"]
    first = parse_plans_page(entries[0]["response"]["content"]["text"].encode())
    assert entries[2]["request"]["url"].endswith(f"cursor={first[1]}")
    last = parse_plans_page(entries[2]["response"]["content"]["text"].encode())
    assert last[1] is None
    metal, cursor = parse_plans_page(entries[1]["response"]["content"]["text"].encode(), metal=True)
    # vbm-4c-32gb has no GPU: left out
    assert [p["id"] for p in metal] == ["vbm-112c-2048gb-8-h100-gpu", "vbm-256c-2048gb-8-mi300x-gpu"]
    assert cursor is None


def test_a_page_without_its_list_is_a_shape_error() -> None:
    with pytest.raises(PageShapeError, match="no plans list"):
        parse_plans_page(json.dumps({"error": "x"}).encode())


# instance type, region, price model, price, GPU count, GPU memory
QUOTES = [
    ("vcg-a100-1c-6g-4vram", "ewr", "on_demand", "0.123", "0.05", "4"),  # 4 of an A100's 80 GB
    ("vcg-a100-12c-120g-80vram", "ord", "on_demand", "2.397", "1", "80"),
    ("vcg-a16-2c-8g-2vram", "ewr", "on_demand", "0.059", "0.125", "2"),  # 2 of 16 GB
    ("vbm-112c-2048gb-8-h100-gpu", "sea", "on_demand", "23.92", "8", "640"),
    ("vbm-112c-2048gb-8-h100-gpu", "sea", "spot", "18.4", "8", "640"),  # hourly_cost_preemptible
    ("vbm-256c-2048gb-8-mi300x-gpu", "ord", "spot", "14.72", "8", "1536"),
]


@pytest.mark.parametrize("instance_type, region, model, price, count, memory", QUOTES)
def test_quotes(instance_type, region, model, price, count, memory) -> None:
    quote = only(normalize(raw_items()).quotes, instance_type=instance_type, region=region, price_model=model)
    assert (quote.price, quote.gpu_count, quote.gpu_memory_gb) == (Decimal(price), Decimal(count), Decimal(memory))
    assert (quote.currency, quote.unit, quote.availability) == ("USD", "hour", "available")


def test_plan_fields_spec_rows_and_monthly_cap() -> None:
    quotes = normalize(raw_items()).quotes
    h100 = only(quotes, instance_type="vbm-112c-2048gb-8-h100-gpu", region="sea", price_model="on_demand")
    assert (h100.gpu_model, h100.vcpu, h100.gpu_interconnect) == (
        "H100",
        Decimal(224),
        "NVLink 4 via NVSwitch 3 (900 GB/s)",
    )
    assert h100.attrs == {"plan_kind": "bare metal", "monthly_cap": "16074.24"}
    a40 = only(quotes, instance_type="vcg-a40-4c-20g-8vram", region="ewr", price_model="on_demand")
    assert (a40.gpu_model, a40.memory_gb, a40.gpu_interconnect) == ("A40", Decimal(20), "PCIe")
    assert round(a40.gpu_count * 6, 20) == 1  # 8 of 48 GB: a sixth of the card
    # a plan is quoted only where it is deployable: the A100 slice is in ewr alone
    assert {q.region for q in quotes if q.instance_type == "vcg-a100-1c-6g-4vram"} == {"ewr"}


def test_regions_select_locations() -> None:
    quotes = normalize(raw_items(regions=["sea"])).quotes
    assert {q.region for q in quotes} == {"sea"}


def test_an_odd_plan_is_skipped_with_a_note() -> None:
    items = raw_items()
    odd = copy.deepcopy(items[0])
    odd["data"].update(id="vcg-x1-2c-8g-8vram", gpu_type="NVIDIA_X1")
    cheap = copy.deepcopy(items[1])
    cheap["data"]["hourly_cost"] = "n/a"
    out = normalize([*items, odd, cheap])
    assert len(out.quotes) == len(normalize(items).quotes)
    assert any("vcg-x1-2c-8g-8vram skipped" in n and "NVIDIA_X1" in n for n in out.notes)
    assert any(f"{cheap['data']['id']} skipped" in n and "hourly_cost" in n for n in out.notes)


def test_a_plan_deployable_nowhere_is_noted() -> None:
    items = raw_items()
    items[0]["data"]["locations"] = []
    out = normalize(items)
    assert any("deployable in no region" in n for n in out.notes)


def test_no_plan_priced_is_an_error() -> None:
    items = raw_items()
    for item in items:
        item["data"]["hourly_cost"] = None
        item["data"].pop("hourly_cost_preemptible", None)
    with pytest.raises(NormalizeError, match="none of the"):
        normalize(items)


def crawl(cli, har: Path):
    return cli("crawl", "vultr", "--replay", str(har), "--format", "json")


def test_replay_two_captures_yields_the_month_s_changes(sqlite_cli) -> None:
    assert crawl(sqlite_cli, EARLY).code == 0
    changes = json.loads(crawl(sqlite_cli, LATE).out)
    found = sorted((c["kind"], c["instance_type"], c["region"], c.get("new_price") or "") for c in changes)
    assert found == [
        ("new_sku", "vbm-112c-2048gb-8-h100-gpu", "ewr", "18.4"),
        ("new_sku", "vbm-112c-2048gb-8-h100-gpu", "ewr", "23.92"),
        ("price_drop", "vcg-a100-12c-120g-80vram", "ewr", "2.156"),
        ("price_drop", "vcg-a100-12c-120g-80vram", "ord", "2.156"),
        ("price_increase", "vcg-a16-2c-8g-2vram", "ewr", "0.062"),
        ("price_increase", "vcg-a16-2c-8g-2vram", "ord", "0.062"),
    ]
