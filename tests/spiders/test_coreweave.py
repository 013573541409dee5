"""CoreWeave, on a real copy of its pricing page (tests/fixtures/coreweave/README.md):
both region tables, each price from its own column, the footnote marks, the
HGX H100's single class, odd rows skipped one by one, and the demo's two
captures through the CLI."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

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

REAL = Path(__file__).parents[1] / "fixtures" / "coreweave" / "real" / "2026-10-04-pricing.html"
EARLY = DEMO_CAPTURES / "coreweave" / "2026-10-04-north-america+europe.har.gz"
LATE = DEMO_CAPTURES / "coreweave" / "2026-11-03-north-america+europe.har.gz"
B200, H100, A100 = "NVIDIA HGX B200", "NVIDIA HGX H100", "NVIDIA A100"


def html_of(path: Path = EARLY) -> str:
    return str(read_har(path)["log"]["entries"][0]["response"]["content"]["text"])


def rows(html: str | None = None) -> list[Any]:
    return list(parse_gpu_instances(Selector(text=html if html is not None else html_of())))


def items(html: str | None = None, regions: list[str] | None = None) -> list[Any]:
    entry = read_har(EARLY)["log"]["entries"][0]
    envelope = {"kind": "coreweave.instance", "observed_at": entry["startedDateTime"], "source_url": URL}
    return [{**envelope, "regions": regions or [], "data": r} for r in rows(html)]


URL = "https://www.coreweave.com/pricing"


def test_the_demo_replays_the_real_copy() -> None:
    assert html_of(EARLY) == REAL.read_text(encoding="utf-8")


def test_every_gpu_row_of_both_region_tables() -> None:
    found = rows()
    names = [r["name"] for r in found]
    assert [r["region"] for r in found] == ["NORTH AMERICA"] * 12 + ["EUROPE"] * 12
    assert names[:12] == names[12:] and "AMD Genoa (9274F)" not in names  # the CPU table is not read
    assert {H100, "NVIDIA GB200 NVL72", "NVIDIA GB300 NVL72", "NVIDIA L40"} <= set(names)
    gb200 = [r for r in found if r["name"] == "NVIDIA GB200 NVL72"]
    assert [r["gpu_count"] for r in gb200] == ["4", "4"]  # served as "4^1"


def test_each_price_from_its_own_column() -> None:
    by_key = {(r["name"], r["region"]): r for r in rows()}
    prices = ("gpu_count", "price", "spot_price", "inference_price")
    assert [by_key[(A100, "NORTH AMERICA")][k] for k in prices] == ["8", "$21.60", "$9.65", "$2.70"]
    assert [by_key[(B200, "NORTH AMERICA")][k] for k in prices] == ["8", "$68.80", "$34.11", "$8.60"]
    assert [by_key[(B200, "EUROPE")][k] for k in prices] == ["8", "$68.80", "$34.87", ""]  # no inference column
    assert by_key[("NVIDIA HGX B300", "NORTH AMERICA")]["price"] == "Contact sales"
    h200 = by_key[("NVIDIA HGX H200", "NORTH AMERICA")]
    assert (h200["vram_gb"], h200["vcpus"], h200["ram_gb"], h200["storage_tb"]) == ("141", "128", "2,048", "61.44")


def test_the_instance_price_with_its_gpu_count() -> None:
    out = normalize(items())
    b200 = only(out.quotes, instance_type=B200, price_model="on_demand", region="north-america")
    assert (b200.price, b200.gpu_count, b200.per_gpu_hour(), b200.gpu_model) == (
        Decimal("68.80"),
        8,
        Decimal("8.6"),
        "B200",
    )
    assert (b200.gpu_memory_gb, b200.vcpu, b200.memory_gb, b200.currency) == (1440, 128, 2048, "USD")
    for name, price in ((A100, "21.60"), ("NVIDIA HGX H200", "50.44"), ("NVIDIA L40S", "18.00"), (H100, "49.24")):
        quote = only(out.quotes, instance_type=name, price_model="on_demand", region="north-america")
        assert (quote.price, quote.gpu_count) == (Decimal(price), 8), name
    gb200 = only(out.quotes, instance_type="NVIDIA GB200 NVL72", region="europe")
    assert (gb200.price, gb200.gpu_count, gb200.per_gpu_hour(), gb200.gpu_model) == (
        Decimal("42.00"),
        4,
        Decimal("10.5"),
        "GB200",
    )
    assert only(out.quotes, instance_type="NVIDIA L40", price_model="on_demand", region="europe").gpu_model == "L40"
    assert all(q.gpu_model for q in out.quotes) and not [n for n in out.notes if "no GPU spec" in n]


def test_spot_prices_and_europe_as_its_own_region() -> None:
    out = normalize(items())
    spot = {(q.instance_type, q.region): q.price for q in out.quotes if str(q.price_model) == "spot"}
    assert spot[(B200, "north-america")] == Decimal("34.11") and spot[(B200, "europe")] == Decimal("34.87")
    assert spot[(H100, "north-america")] == Decimal("19.71") and spot[(H100, "europe")] == Decimal("19.51")
    assert ("NVIDIA L40S", "europe") not in spot  # "N/A": not sold as spot there, and no note
    assert {q.region for q in out.quotes} == {"north-america", "europe"}
    keys = [(q.instance_type, str(q.price_model), q.region) for q in out.quotes]
    assert len(keys) == len(set(keys)) == 34
    # "Contact sales": that price left out with a note, the other kept; the GB300 NVL72 has neither.
    assert "coreweave: NVIDIA HGX B300 in europe: its on_demand price reads 'Contact sales'; not stored" in out.notes
    assert [str(q.price_model) for q in out.quotes if q.instance_type == "NVIDIA HGX B300"] == ["spot", "spot"]
    assert not [q for q in out.quotes if q.instance_type == "NVIDIA GB300 NVL72"]
    assert not [n for n in out.notes if "N/A" in n or "inference" in n.lower()]


def test_regions_asked_for_narrow_the_rows() -> None:
    quotes = normalize(items(regions=["europe"])).quotes
    assert {q.region for q in quotes} == {"europe"} and len(quotes) == 16


@pytest.mark.parametrize(
    "old, new",
    [
        ("<div>4^1</div>", "<div>4<sup>1</sup></div>"),  # as a browser shows it
        ('class="table-row-v2 w-dyn-item kubernetes-gpu-pricing"', 'class="table-row w-dyn-item gpu-pricing"'),
        ('<div class="table-v2-header">', '<div class="table-header-removed">'),  # no header: the page's order
    ],
)
def test_other_markup_gives_the_same_records(old: str, new: str) -> None:
    real = html_of()
    assert old in real
    assert rows(real.replace(old, new)) == rows()


def test_prices_without_their_mobile_labels() -> None:
    bare = html_of().replace('class="instance-price"', 'class="x"').replace('class="spot-price"', 'class="y"')
    assert rows(bare) == rows()


def _edit(name: str, region: str, **change: str) -> list[Any]:
    found = copy.deepcopy(items())
    next(i for i in found if (i["data"]["name"], i["data"]["region"]) == (name, region))["data"].update(change)
    return found


@pytest.mark.parametrize(
    "change, note, left",
    [
        ({"gpu_count": ""}, "coreweave: NVIDIA A100 in europe skipped: its GPU count reads ''", 32),
        ({"gpu_count": "2.5"}, "coreweave: NVIDIA A100 in europe skipped: its GPU count reads '2.5'", 32),
        ({"spot_price": "soon"}, "coreweave: NVIDIA A100 in europe: its spot price reads 'soon'; kept as it was", 33),
    ],
)
def test_one_odd_row_is_skipped_with_a_note(change: dict, note: str, left: int) -> None:
    out = normalize(_edit(A100, "EUROPE", **change))
    assert note in out.notes and len(out.quotes) == left
    assert [(h.region, h.instance_type) for h in out.held] == [("europe", A100)]
    assert len([q for q in out.quotes if q.instance_type == A100 and q.region == "north-america"]) == 2


def test_an_instance_twice_in_one_region() -> None:
    found = items()
    twin = copy.deepcopy(next(i for i in found if i["data"]["name"] == B200))
    assert len(normalize([*found, twin]).quotes) == 34  # the same prices again: one quote each
    twin["data"]["spot_price"] = "$30.00"
    out = normalize([*found, twin])
    assert "coreweave: NVIDIA HGX B200 is listed twice in north-america with other prices; the second skipped" in (
        out.notes
    )
    assert only(out.quotes, instance_type=B200, price_model="spot", region="north-america").price == Decimal("34.11")


def test_nothing_priced_fails() -> None:
    gb300 = [i for i in items() if i["data"]["name"] == "NVIDIA GB300 NVL72"]
    with pytest.raises(NormalizeError, match="none of the 2 GPU instance rows could be priced"):
        normalize(gb300)


@pytest.mark.parametrize(
    "html, reason",
    [
        ("<html><body><h1>Pricing</h1></body></html>", "no GPU instance row"),
        (
            '<div class="table-row-v2 w-dyn-item kubernetes-cpu-pricing"><div class="table-v2-cell">8</div></div>',
            "no GPU instance row",
        ),
        (
            '<div class="table-row-v2 w-dyn-item kubernetes-gpu-pricing"><div class="table-v2-cell">8</div></div>',
            "names its instance",
        ),
    ],
)
def test_page_shapes_fail_loudly(html: str, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_gpu_instances(Selector(text=html))


def test_two_captures_through_the_cli(cli) -> None:
    first = cli("crawl", "coreweave", "--replay", str(EARLY))
    assert first.code == 0, first.err  # both region tables: no "two prices for" failure
    second = cli("crawl", "coreweave", "--replay", str(LATE), "--format", "json")
    assert second.code == 0, second.err
    got = sorted(
        (c["kind"], c["instance_type"], c["region"], c["price_model"], c["new_price"]) for c in json.loads(second.out)
    )
    assert got == [
        ("new_sku", "NVIDIA L40S", "europe", "spot", "7.70"),
        ("price_drop", "NVIDIA HGX H200", "north-america", "on_demand", "47.92"),
        ("price_drop", "NVIDIA HGX H200", "north-america", "spot", "19.88"),
    ]
