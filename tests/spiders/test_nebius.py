"""Nebius: the Compute pricing page (Markdown) read into price rows, the
normalizer on the demo captures (unified and part-priced platforms, the
table in force on the day, preemptible prices), every heading form public
material shows (tests/fixtures/nebius/README.md), odd rows, and two captures
through the CLI."""

from __future__ import annotations

import copy
import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from spiders.har import read_har
from spiders.nebius.items import NebiusItem, NebiusPriceRow
from spiders.nebius.pages import heading, parse_pricing
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers.harutil import only
from tracker.normalize import NormalizeError
from tracker.normalize.providers.nebius import _in_force, normalize

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

NAME = "eu-north1+us-central1+uk-south1.har.gz"
EARLY = DEMO_CAPTURES / "nebius" / f"2026-09-03-{NAME}"
LATE = DEMO_CAPTURES / "nebius" / f"2026-10-03-{NAME}"
ID_HEADINGS = FIXTURES / "nebius" / "2026-09-03-platform-id-headings.har.gz"
H100 = "NVIDIA® H100 NVLink with Intel Sapphire Rapids"


def text(path: Path = EARLY) -> str:
    return read_har(path)["log"]["entries"][0]["response"]["content"]["text"]


def raw_items(path: Path = EARLY, when: str | None = None, regions: list[str] | None = None) -> list[NebiusItem]:
    entry = read_har(path)["log"]["entries"][0]
    return [
        NebiusItem(
            kind="nebius.price",
            observed_at=when or entry["startedDateTime"],
            source_url=entry["request"]["url"],
            regions=regions or [],
            data=row,
        )
        for row in parse_pricing(text(path))
    ]


def test_rows_keep_the_usd_tab_and_the_tables_date() -> None:
    rows = parse_pricing(text())
    h100 = [r for r in rows if r["section"] == H100]
    assert [(r["period"], r["item"].startswith("Preemptible"), r["price"]) for r in h100] == [
        ("before October 1, 2026", False, "\\$3.85"),
        ("before October 1, 2026", True, "\\$2.15"),
        ("from October 1, 2026", False, "\\$4.50"),
        ("from October 1, 2026", True, "\\$2.15"),
    ]
    assert {r["regions"][0] if r["regions"] else "" for r in h100} == {"eu-north1"}
    assert {r["platform"] for r in rows} == {""}  # this page's headings name no platform ID
    assert not [r for r in rows if "₪" in r["price"]]  # the ILS tab is not read
    assert not [r for r in rows if "SSD" in r["item"]]  # the disks are not a platform section
    genoa = [r for r in rows if r["section"] == "Non-GPU AMD Epyc Genoa"]
    assert genoa and genoa[0]["regions"] == []  # "available in all regions"


def test_unified_platforms_cost_their_gpu_count_times_the_gpu_hour() -> None:
    quotes = normalize(raw_items()).quotes
    h100 = only(quotes, instance_type="gpu-h100-sxm.8gpu-128vcpu-1600gb", price_model="on_demand")
    assert (h100.price, h100.region, h100.currency, h100.attrs["formula"]) == (
        Decimal("30.80"),
        "eu-north1",
        "USD",
        "8 x 3.85",
    )
    assert (h100.gpu_model, h100.gpu_count, h100.vcpu, h100.memory_gb) == ("H100", 8, 128, 1600)
    spot = only(quotes, instance_type="gpu-h100-sxm.1gpu-16vcpu-200gb", price_model="spot")
    assert spot.price == Decimal("2.15")
    h200 = {q.region for q in quotes if q.instance_type.startswith("gpu-h200-sxm.")}
    assert h200 == {"eu-north1", "us-central1"}
    b300 = only(quotes, instance_type="gpu-b300-sxm.8gpu-192vcpu-2768gb", price_model="spot")
    assert b300.price == Decimal("34.40")  # 8 x 4.30, nebius.com/prices on 2026-08-22


def test_part_priced_platforms_add_their_parts() -> None:
    quotes = normalize(raw_items()).quotes
    ice_lake = only(quotes, instance_type="gpu-l40s-a.1gpu-8vcpu-32gb")
    # 1 x 1.35 + 8 x 0.012 + 32 x 0.0032, the figure Nebius users work out for this preset
    assert ice_lake.price == Decimal("1.5484") and ice_lake.attrs["formula"] == "1 x 1.35 + 8 x 0.012 + 32 x 0.0032"
    genoa = only(quotes, instance_type="gpu-l40s-d.4gpu-128vcpu-768gb")
    assert genoa.price == Decimal("4") * Decimal("1.35") + 128 * Decimal("0.01") + 768 * Decimal("0.0032")
    assert not [q for q in quotes if "l40s" in q.instance_type and str(q.price_model) == "spot"]


def test_the_table_in_force_on_the_day_is_used() -> None:
    assert _in_force("before October 1, 2026", date(2026, 9, 30)) is True
    assert _in_force("from October 1, 2026", date(2026, 9, 30)) is False
    assert _in_force("from October 1, 2026", date(2026, 10, 1)) is True
    assert _in_force("", date(2026, 1, 1)) is True and _in_force("soon", date(2026, 1, 1)) is None
    later = normalize(raw_items(when="2026-10-02T00:00:00Z")).quotes
    h100 = only(later, instance_type="gpu-h100-sxm.1gpu-16vcpu-200gb", price_model="on_demand")
    assert h100.price == Decimal("4.50")


def test_the_crawl_regions_narrow_the_sections_regions() -> None:
    quotes = normalize(raw_items(regions=["us-central1"])).quotes
    assert {q.region for q in quotes} == {"us-central1"}
    assert {q.instance_type.split(".")[0] for q in quotes} == {"gpu-h200-sxm", "gpu-b200-sxm", "gpu-rtx6000"}


@pytest.mark.parametrize(
    "text, expected",
    [
        # the form the one public parser of the page splits on its comma (issue 38)
        ("NVIDIA® B200 NVLink, gpu-b200-sxm", ("NVIDIA® B200 NVLink", "gpu-b200-sxm")),
        ("NVIDIA® RTX PRO™ 6000, gpu-rtx6000", ("NVIDIA® RTX PRO™ 6000", "gpu-rtx6000")),
        ("NVIDIA® B200 NVLink,  `gpu-b200-sxm-a`", ("NVIDIA® B200 NVLink", "gpu-b200-sxm-a")),
        # "<name> (<ID>)", as a public table of Nebius's platforms writes them
        (
            "NVIDIA® H200 NVLink with Intel Sapphire Rapids (gpu-h200-sxm)",
            ("NVIDIA® H200 NVLink with Intel Sapphire Rapids", "gpu-h200-sxm"),
        ),
        # the name alone, as the console's price list and public clients write it
        (H100, (H100, "")),
        (f"{H100} {{#h100}}", (H100, "")),
        ("Non-GPU AMD Epyc Genoa, cpu-d3", ("Non-GPU AMD Epyc Genoa", "cpu-d3")),
        ("NVIDIA® GB300 NVL72, with Grace", ("NVIDIA® GB300 NVL72, with Grace", "")),
    ],
)
def test_every_heading_form_names_its_platform(text: str, expected: tuple[str, str]) -> None:
    assert heading(text) == expected


def _key(quote) -> tuple:
    return (quote.instance_type, quote.region, str(quote.price_model), quote.price)


def test_headings_with_platform_ids_price_what_the_plain_ones_do() -> None:
    """Replayed in the public parser's form (heading, comma, platform ID; short
    item names; one indented table per tab, both periods in it), the page
    prices every preset, at the prices the plain form gives (issue 38: this
    form used to price nothing and fail the run)."""
    rows = parse_pricing(text(ID_HEADINGS))
    b200 = [r for r in rows if r["platform"] == "gpu-b200-sxm"]
    assert {(r["section"], r["period"], r["item"], r["price"]) for r in b200} >= {
        ("NVIDIA® B200 NVLink", "from October 1, 2026", "NVIDIA® B200 NVLink", "\\$8.50"),
        ("NVIDIA® B200 NVLink", "before October 1, 2026", "NVIDIA® B200 NVLink", "\\$7.15"),
    }
    assert {r["regions"][0] for r in b200} == {"us-central1"}  # "only available in the `us-central1` [region]"
    assert not [r for r in rows if "₪" in r["price"]]
    out = normalize(raw_items(ID_HEADINGS))
    assert sorted(map(_key, out.quotes)) == sorted(map(_key, normalize(raw_items()).quotes))
    assert len(out.quotes) == 27 and not [n for n in out.notes if "no platform known" in n]
    later = normalize(raw_items(ID_HEADINGS, when="2026-10-02T00:00:00Z")).quotes
    assert only(later, instance_type="gpu-b200-sxm.1gpu-20vcpu-224gb", price_model="on_demand").price == Decimal("8.50")


def test_a_name_without_its_platform_id_is_read_where_it_is_one_platforms() -> None:
    items = raw_items(ID_HEADINGS)
    for i in items:
        i["data"]["platform"] = ""  # the short names alone: "NVIDIA® B200 NVLink"
    out = normalize(items)
    assert {q.instance_type.split(".")[0] for q in out.quotes} >= {"gpu-h100-sxm", "gpu-b200-sxm", "gpu-rtx6000"}
    # Two L40S platforms share "NVIDIA L40S PCIe"; their full names tell them apart.
    assert {q.instance_type.split(".")[0] for q in out.quotes if "l40s" in q.instance_type} == {
        "gpu-l40s-a",
        "gpu-l40s-d",
    }
    in_force = [i for i in items if not i["data"]["period"].startswith("from")]  # on 2026-09-03
    me = copy.deepcopy(next(i for i in in_force if i["data"]["section"] == "NVIDIA® B200 NVLink"))
    me["data"]["regions"] = ["me-west1"]
    assert {q.instance_type.split(".")[0] for q in normalize([me]).quotes} == {"gpu-b200-sxm-a"}


def test_a_platform_id_without_presets_is_noted_not_the_whole_page() -> None:
    items = raw_items(ID_HEADINGS)
    twin = copy.deepcopy(next(i for i in items if i["data"]["platform"] == "gpu-h100-sxm" and i["data"]["period"]))
    twin["data"]["period"] = ""  # in force on any day
    twin["data"].update({"section": "NVIDIA® GB300 NVL72", "platform": "gpu-gb300-nvl72"})
    out = normalize(items + [twin])
    assert "nebius: gpu-gb300-nvl72 has no preset in gpu_specs/nebius.csv; not stored" in out.notes
    assert len(out.quotes) == 27


def _edit(item_start: str, change: NebiusPriceRow) -> list[NebiusItem]:
    items = copy.deepcopy(raw_items())
    for i in items:
        if i["data"]["item"].startswith(item_start):
            i["data"].update(change)
    return items


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"price": "on request"}, "'on request' per '1 GPU hour' is not a price we read"),
        ({"unit": "1 GPU minute"}, "per '1 GPU minute' is not a price we read"),
    ],
)
def test_one_odd_row_is_skipped_with_a_note(change: NebiusPriceRow, reason: str) -> None:
    out = normalize(_edit("NVIDIA® RTX PRO™ 6000", change))
    assert not [
        q for q in out.quotes if q.instance_type.startswith("gpu-rtx6000") and str(q.price_model) == "on_demand"
    ]
    assert any(reason in n for n in out.notes), out.notes
    assert len(out.quotes) == 27 - 2


def test_an_unknown_platform_is_noted_and_two_prices_for_one_are_an_error() -> None:
    items = raw_items()
    twin = copy.deepcopy(next(i for i in items if i["data"]["section"] == H100))
    twin["data"]["section"] = "NVIDIA® GB300 NVL72 with Grace"
    out = normalize(items + [twin])
    assert "nebius: no platform known for the section 'NVIDIA GB300 NVL72 with Grace'; not stored" in out.notes
    clash = copy.deepcopy(
        next(i for i in items if i["data"]["section"] == H100 and not i["data"]["period"].startswith("from"))
    )
    clash["data"]["price"] = "\\$9.99"
    with pytest.raises(NormalizeError, match="two unified prices for gpu-h100-sxm in eu-north1"):
        normalize(items + [clash])


def test_nothing_priced_fails() -> None:
    with pytest.raises(NormalizeError, match="no platform on the pricing page could be priced"):
        normalize([i for i in raw_items() if i["data"]["section"].startswith("Non-GPU")])


@pytest.mark.parametrize(
    "page, reason",
    [
        ("# Compute pricing\n\nNo sections here.", "no platform sections"),
        ("#### NVIDIA® H100\n\nThis platform is available in the `eu-north1` region.\n\nSoon.", "no price table"),
        ("#### X\n\n| **Item** | **Price** | **Unit** |\n|---|---|---|\n| A | \\$1 |\n", "has 2 cells, not 3"),
    ],
)
def test_page_shapes_fail_loudly(page: str, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_pricing(page)


def test_two_captures_through_the_cli(cli) -> None:
    assert cli("crawl", "nebius", "--replay", str(EARLY)).code == 0
    second = cli("crawl", "nebius", "--replay", str(LATE), "--format", "json")
    assert second.code == 0, second.err
    got = sorted(
        (c["kind"], c["instance_type"], c["region"], c["price_model"], c["new_price"]) for c in json.loads(second.out)
    )
    assert got == sorted(
        [
            ("price_increase", "gpu-b200-sxm.1gpu-20vcpu-224gb", "us-central1", "on_demand", "8.50"),
            ("price_increase", "gpu-b200-sxm.8gpu-160vcpu-1792gb", "us-central1", "on_demand", "68.00"),
            ("price_increase", "gpu-h100-sxm.1gpu-16vcpu-200gb", "eu-north1", "on_demand", "4.50"),
            ("price_increase", "gpu-h100-sxm.8gpu-128vcpu-1600gb", "eu-north1", "on_demand", "36.00"),
        ]
        + [
            ("price_drop", f"gpu-h200-sxm.{preset}", region, "spot", price)
            for region in ("eu-north1", "us-central1")
            for preset, price in (("1gpu-16vcpu-200gb", "2.35"), ("8gpu-128vcpu-1600gb", "18.80"))
        ]
    )
