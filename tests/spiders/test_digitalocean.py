"""DigitalOcean: the sizes pages, the normalizer, a replay of the demo
captures (constructed in the shape of DigitalOcean's OpenAPI description;
see tests/fixtures/digitalocean/make_fixtures.py) and the missing token."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.digitalocean.pages import parse_sizes_page
from spiders.har import read_har
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tracker.normalize.providers.digitalocean import normalize

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

FOLDER = DEMO_CAPTURES / "digitalocean"
EARLY, LATE = sorted(FOLDER.glob("*.har.gz"))
HOST = "api.digitalocean.com"


def raw_items(path: Path = EARLY) -> list[Any]:
    items = []
    for entry in read_har(path)["log"]["entries"]:
        sizes, _ = parse_sizes_page(entry["response"]["content"]["text"].encode(), HOST)
        items += [
            {
                "kind": "digitalocean.size",
                "observed_at": entry["startedDateTime"],
                "source_url": entry["request"]["url"],
                "data": s,
            }
            for s in sizes
        ]
    return items


def test_pages_follow_next_and_keep_gpu_sizes() -> None:
    entries = read_har(EARLY)["log"]["entries"]
    sizes, following = parse_sizes_page(entries[0]["response"]["content"]["text"].encode(), HOST)
    assert following == entries[1]["request"]["url"] == "https://api.digitalocean.com/v2/sizes?page=2&per_page=200"
    assert [s["slug"] for s in sizes] == ["gpu-4000adax1-20gb", "gpu-6000adax1-48gb", "gpu-h100x1-80gb"]
    assert parse_sizes_page(entries[1]["response"]["content"]["text"].encode(), HOST)[1] is None


def test_a_next_page_on_another_host_is_refused() -> None:
    page = {"sizes": [], "links": {"pages": {"next": "https://evil.example/v2/sizes?page=2"}}}
    with pytest.raises(PageShapeError, match=r"not on api\.digitalocean\.com"):
        parse_sizes_page(json.dumps(page).encode(), HOST)


QUOTES = [
    # instance type, region, price, GPU model, count, GPU memory, vCPUs, RAM GB
    ("gpu-h100x1-80gb", "nyc2", "3.39", "H100", "1", "80", "20", "240"),
    ("gpu-h100x8-640gb", "nyc2", "23.92", "H100", "8", "640", "160", "1920"),
    ("gpu-mi300x8-1536gb", "atl1", "15.92", "MI300X", "8", "1536", "160", "1920"),
    ("gpu-4000adax1-20gb", "tor1", "0.76", "RTX 4000 Ada", "1", "20", "8", "32"),
    ("gpu-6000adax1-48gb", "atl1", "1.57", "RTX 6000 Ada", "1", "48", "8", "64"),
]


@pytest.mark.parametrize("slug, region, price, model, count, memory, vcpu, ram", QUOTES)
def test_quotes(slug, region, price, model, count, memory, vcpu, ram) -> None:
    quote = only(normalize(raw_items()).quotes, instance_type=slug, region=region)
    assert (quote.price, quote.gpu_model, quote.gpu_count, quote.gpu_memory_gb) == (
        Decimal(price),
        model,
        Decimal(count),
        Decimal(memory),
    )
    assert (quote.vcpu, quote.memory_gb) == (Decimal(vcpu), Decimal(ram))
    assert (quote.currency, quote.unit, str(quote.price_model), quote.availability) == (
        "USD",
        "hour",
        "on_demand",
        "available",
    )


def test_spec_row_adds_the_interconnect_and_the_monthly_cap_is_kept() -> None:
    quote = only(normalize(raw_items()).quotes, instance_type="gpu-h100x8-640gb", region="nyc2")
    assert quote.gpu_interconnect == "NVLink 4 via NVSwitch 3 (900 GB/s)"
    assert quote.attrs["monthly_cap"] == "17796.48"  # 23.92 x 744 h


def test_an_odd_size_is_skipped_with_a_note_and_an_unavailable_one_noted() -> None:
    items = raw_items()
    odd = copy.deepcopy(items[0])
    odd["data"].update(slug="gpu-b300x8-2304gb", gpu_info={"count": 8, "model": "nvidia_b300"})
    off = copy.deepcopy(items[1])
    off["data"].update(slug="gpu-h200x1-141gb", available=False, regions=[])
    out = normalize([*items, odd, off])
    assert len(out.quotes) == len(normalize(items).quotes)
    assert any("gpu-b300x8-2304gb skipped" in n and "nvidia_b300" in n for n in out.notes)
    assert any("gpu-h200x1-141gb is listed as not available" in n for n in out.notes)


def crawl(cli, har: Path, *extra: str):
    return cli("crawl", "digitalocean", "--replay", str(har), "--format", "json", *extra)


def test_replay_two_captures_yields_the_month_s_changes(sqlite_cli) -> None:
    assert crawl(sqlite_cli, EARLY).code == 0
    changes = json.loads(crawl(sqlite_cli, LATE).out)
    found = sorted((c["kind"], c["instance_type"], c["region"], c["new_price"]) for c in changes)
    assert found == [
        ("new_sku", "gpu-l40sx1-48gb", "tor1", "1.57"),
        ("price_drop", "gpu-h100x1-80gb", "nyc2", "2.99"),
        ("price_drop", "gpu-h100x1-80gb", "tor1", "2.99"),
    ]
    row = only_row(sqlite_cli, "gpu-h100x8-640gb")
    assert (row["price_per_gpu_hour"], row["source_url"]) == (
        "2.990000",  # 23.92 / 8
        "https://api.digitalocean.com/v2/sizes?page=2&per_page=200",
    )


def only_row(cli, slug: str) -> dict:
    rows = json.loads(cli("prices", "--provider", "digitalocean", "--format", "json").out)
    found = [r for r in rows if r["instance_type"] == slug]
    assert len(found) == 1, found
    return found[0]


def test_a_live_crawl_without_a_token_is_skipped_in_one_sentence(sqlite_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_DIGITALOCEAN_API_KEY", raising=False)
    result = sqlite_cli("crawl", "digitalocean")
    errors = [line for line in result.err.splitlines() if line.startswith("error:")]
    assert result.code == 1 and "Traceback" not in result.err and len(errors) == 1
    assert "digitalocean: skipped: no API key" in errors[0]
    assert "[providers.digitalocean]" in errors[0] and "GPU_TRACKER_DIGITALOCEAN_API_KEY" in errors[0]
