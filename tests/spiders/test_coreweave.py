"""CoreWeave: both layouts of the pricing page read into the same records,
the normalizer (on-demand and spot, the row's own figures, "Contact sales"),
odd instances skipped one by one, and two captures through the CLI."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest
from parsel import Selector

from spiders.coreweave.pages import parse_gpu_instances
from spiders.har import read_har
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tracker.normalize import NormalizeError
from tracker.normalize.providers.coreweave import normalize

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

EARLY = DEMO_CAPTURES / "coreweave" / "2026-11-02-north-america.har.gz"
LATE = DEMO_CAPTURES / "coreweave" / "2026-12-01-north-america.har.gz"
TABLE = Path(__file__).parents[1] / "fixtures" / "coreweave" / "2026-08-03-table-layout.har.gz"


def page(path: Path = EARLY) -> Selector:
    return Selector(text=read_har(path)["log"]["entries"][0]["response"]["content"]["text"])


def raw_items(path: Path = EARLY) -> list[dict]:
    entry = read_har(path)["log"]["entries"][0]
    envelope = {
        "kind": "coreweave.instance",
        "observed_at": entry["startedDateTime"],
        "source_url": entry["request"]["url"],
    }
    return [{**envelope, "regions": [], "data": r} for r in parse_gpu_instances(page(path))]


def test_the_card_layout() -> None:
    rows = {r["name"]: r for r in parse_gpu_instances(page())}
    assert len(rows) == 10 and "CPU: AMD Genoa (9274F) High Performance" not in rows
    h100 = rows["NVIDIA HGX H100"]
    assert (h100["region"], h100["gpu_count"], h100["vram_gb"], h100["price"], h100["spot_price"]) == (
        "North America",
        "8",
        "80",
        "$49.24/hr",
        "$19.71/hr",
    )
    assert rows["NVIDIA GB200 NVL72"]["gpu_count"] == "4"  # the footnote mark is not part of it
    assert rows["NVIDIA GH200"]["spot_price"] == ""


def test_the_table_layout_gives_the_same_records() -> None:
    cards = {r["name"]: r for r in parse_gpu_instances(page())}
    table = {r["name"]: r for r in parse_gpu_instances(page(TABLE))}
    assert set(table) == set(cards)
    for name, row in table.items():
        assert row["region"] == "" and row["spot_price"] == ""  # the older table shows neither
        same = ("gpu_count", "vram_gb", "vcpus", "ram_gb", "storage_tb")
        assert [row[k] for k in same] == [cards[name][k] for k in same], name
        assert row["price"] == cards[name]["price"].removesuffix("/hr")


def test_on_demand_and_spot_with_the_rows_figures() -> None:
    out = normalize(raw_items())
    h100 = only(out.quotes, instance_type="NVIDIA HGX H100", price_model="on_demand")
    assert (h100.price, h100.region, h100.currency) == (Decimal("49.24"), "north-america", "USD")
    assert (h100.gpu_model, h100.gpu_count, h100.gpu_memory_gb, h100.vcpu, h100.memory_gb) == (
        "H100",
        8,
        640,
        128,
        2048,
    )
    assert h100.gpu_interconnect == "NVLink 4 via NVSwitch 3 (900 GB/s)" and h100.per_gpu_hour() == Decimal("6.155")
    assert only(out.quotes, instance_type="NVIDIA HGX H100", price_model="spot").price == Decimal("19.71")
    gb200 = only(out.quotes, instance_type="NVIDIA GB200 NVL72")
    assert (gb200.gpu_model, gb200.gpu_count, gb200.gpu_memory_gb, gb200.vcpu) == ("GB200", 4, 744, 144)
    # "Contact sales": the on-demand price is left out, the spot price kept.
    assert [str(q.price_model) for q in out.quotes if q.instance_type == "NVIDIA HGX B300"] == ["spot"]
    assert "coreweave: NVIDIA HGX B300: its on_demand price reads 'Contact sales'; not stored" in out.notes
    assert "coreweave: no GPU spec for NVIDIA L40; stored without the GPU model" in out.notes
    assert len(out.quotes) == 14


def test_the_table_layout_prices_on_demand_in_north_america() -> None:
    quotes = normalize(raw_items(TABLE)).quotes
    assert {str(q.price_model) for q in quotes} == {"on_demand"} and {q.region for q in quotes} == {"north-america"}
    assert only(quotes, instance_type="NVIDIA HGX B200").price == Decimal("68.80")


def _edit(name: str, **change: str) -> list[dict]:
    items = copy.deepcopy(raw_items())
    next(i for i in items if i["data"]["name"] == name)["data"].update(change)
    return items


@pytest.mark.parametrize(
    "change, note",
    [
        ({"gpu_count": ""}, "coreweave: NVIDIA A100 skipped: its GPU count reads ''"),
        ({"gpu_count": "2.5"}, "coreweave: NVIDIA A100 skipped: its GPU count reads '2.5'"),
        ({"price": "$", "spot_price": "soon"}, "coreweave: NVIDIA A100: its spot price reads 'soon'; not stored"),
    ],
)
def test_one_odd_instance_is_skipped_with_a_note(change: dict, note: str) -> None:
    out = normalize(_edit("NVIDIA A100", **change))
    assert not [q for q in out.quotes if q.instance_type == "NVIDIA A100"]
    assert note in out.notes and len(out.quotes) == 12


def test_optional_figures_stay_empty() -> None:
    quote = only(normalize(_edit("NVIDIA L40S", vcpus="", ram_gb="", vram_gb="")).quotes, instance_type="NVIDIA L40S")
    assert (quote.vcpu, quote.memory_gb, quote.gpu_memory_gb) == (None, None, 384)  # the spec table's GPU memory


def test_nothing_priced_fails() -> None:
    items = [i for i in raw_items() if i["data"]["name"] == "NVIDIA HGX B300"]
    items[0]["data"]["spot_price"] = ""
    with pytest.raises(NormalizeError, match="none of the 1 GPU instances could be priced"):
        normalize(items)


@pytest.mark.parametrize(
    "html, reason",
    [
        ("<html><body><h1>Pricing</h1></body></html>", "neither a GPU instance table"),
        (
            '<div class="table-v2 kubernetes-gpu-pricing"><div class="table-row-v2"><div class="table-v2-cell">8</div></div></div>',
            "names its instance",
        ),
    ],
)
def test_page_shapes_fail_loudly(html: str, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_gpu_instances(Selector(text=html))


def test_two_captures_through_the_cli(cli) -> None:
    assert cli("crawl", "coreweave", "--replay", str(EARLY)).code == 0
    second = cli("crawl", "coreweave", "--replay", str(LATE), "--format", "json")
    assert second.code == 0, second.err
    got = sorted((c["kind"], c["instance_type"], c["price_model"], c["new_price"]) for c in json.loads(second.out))
    assert got == [
        ("new_sku", "NVIDIA HGX B300", "on_demand", "72.50"),
        ("price_drop", "NVIDIA HGX H200", "on_demand", "47.92"),
        ("price_drop", "NVIDIA HGX H200", "spot", "19.88"),
    ]
