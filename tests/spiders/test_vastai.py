"""Vast.ai: the offer search's page object and the aggregating normalizer on
the demo captures, and a replay of both through the CLI: only the changes a
person would want. Expected aggregates are worked out by hand from the
offers in tests/fixtures/vastai/make_fixtures.py."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from spiders.har import read_har
from spiders.pages import PageShapeError
from spiders.vastai.pages import parse_offers
from spiders.vastai.spider import COUNTS, search_query
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tracker.normalize import NormalizeError
from tracker.normalize.providers.vastai import normalize
from tracker.normalize.specs import spec_table

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

EARLY = DEMO_CAPTURES / "vastai" / "2026-11-02-europe+north-america+asia.har.gz"
LATER = DEMO_CAPTURES / "vastai" / "2026-12-01-europe+north-america+asia.har.gz"
REGIONS = ["europe", "north-america", "asia"]


def raw_items(path: Path = EARLY, regions: list[str] | None = None) -> tuple[list[Any], int]:
    items, odd = [], 0
    for entry in read_har(path)["log"]["entries"]:
        offers, skipped = parse_offers(entry["response"]["content"]["text"].encode())
        odd += skipped
        items += [
            {
                "kind": "vastai.offer",
                "observed_at": entry["startedDateTime"],
                "source_url": entry["request"]["url"],
                "regions": regions if regions is not None else REGIONS,
                "data": o,
            }
            for o in offers
        ]
    return items, odd


def test_one_search_per_gpu_count_with_the_documented_query() -> None:
    entries = read_har(EARLY)["log"]["entries"]
    queries = [json.loads(parse_qs(urlsplit(e["request"]["url"]).query)["q"][0]) for e in entries]
    assert [q["num_gpus"] for q in queries] == [*({"eq": n} for n in COUNTS), {"notin": list(COUNTS)}]
    assert all(q["rentable"] == {"eq": True} and q["type"] == "on-demand" for q in queries)
    assert queries[0] == search_query(1)
    # The key never reaches a capture: the recorder writes the placeholder.
    headers = {h["name"]: h["value"] for e in entries for h in e["request"]["headers"]}
    assert headers["Authorization"] == "REDACTED"


def test_an_offer_without_a_price_is_skipped_and_counted() -> None:
    items, odd = raw_items()
    assert odd == 1
    assert 1999 not in {i["data"]["id"] for i in items}
    assert set(items[0]["data"]) <= {
        "id",
        "gpu_name",
        "num_gpus",
        "dph_total",
        "gpu_ram",
        "min_bid",
        "geolocation",
        "verification",
        "reliability",
    }


def test_a_page_without_offers_is_a_shape_error() -> None:
    with pytest.raises(PageShapeError, match="no offers list"):
        parse_offers(b'{"error": "invalid_request"}')


# (region, instance_type, price model): lowest, median, offers; by hand from the fixture
AGGREGATES = [
    # 0.402, 0.42, 0.45, 0.50 (US) and 0.38 (CA)
    ("north-america", "1x RTX 4090 verified", "on_demand", "0.38", "0.42", 5),
    # bids 0.25, 0.27, 0.30, 0.22; 1103 states none
    ("north-america", "1x RTX 4090 verified", "spot", "0.22", "0.26", 4),
    ("europe", "1x RTX 4090 verified", "on_demand", "0.35", "0.41", 3),
    ("europe", "1x RTX 4090 unverified", "on_demand", "0.29", "0.30", 2),
    ("europe", "4x A100 SXM4 80GB verified", "on_demand", "4.00", "4.40", 3),
    ("north-america", "8x H100 SXM verified", "on_demand", "17.60", "18.00", 2),
    ("asia", "1x RTX 3090 verified", "on_demand", "0.24", "0.24", 1),
]


@pytest.mark.parametrize(("region", "instance_type", "model", "low", "mid", "offers"), AGGREGATES)
def test_offers_aggregate_per_region_gpu_count_and_tier(region, instance_type, model, low, mid, offers) -> None:
    quotes = normalize(raw_items()[0]).quotes
    q = only(quotes, region=region, instance_type=instance_type, price_model=model)
    assert (q.price, q.median_price, q.offer_count) == (Decimal(low), Decimal(mid), offers)
    assert q.currency == "USD" and q.unit == "hour" and q.is_market
    assert q.source_url == "https://cloud.vast.ai/create/"


def test_gpu_model_memory_and_tier_come_from_the_spec_table() -> None:
    quotes = normalize(raw_items()[0]).quotes
    a100 = only(quotes, region="europe", instance_type="4x A100 SXM4 80GB verified", price_model="on_demand")
    assert (a100.gpu_model, a100.gpu_count, a100.gpu_memory_gb) == ("A100 80GB", Decimal(4), Decimal(320))
    assert a100.attrs == {"tier": "verified", "countries": "DE,NL"}
    assert a100.per_gpu_hour() == Decimal("1.00")


def test_a_gpu_name_the_table_lacks_is_kept_without_a_model_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    gtx = only(normalize(raw_items()[0]).quotes, instance_type="1x GTX 1080 unverified", price_model="on_demand")
    assert (gtx.gpu_model, gtx.gpu_memory_gb) == ("GTX 1080", Decimal(8))
    monkeypatch.delitem(spec_table("vastai"), "gtx 1080")
    result = normalize(raw_items()[0])
    gtx = only(result.quotes, instance_type="1x GTX 1080 unverified", price_model="on_demand")
    assert gtx.gpu_model is None
    assert any("GTX 1080" in n for n in result.notes)


def test_regions_not_asked_for_are_left_out() -> None:
    quotes = normalize(raw_items(regions=["europe"])[0]).quotes
    assert {q.region for q in quotes} == {"europe"}


def test_no_offer_at_all_is_an_error_not_an_empty_market() -> None:
    with pytest.raises(NormalizeError):
        normalize([])


def replay(cli, har: Path):
    return cli("crawl", "vastai", "--replay", str(har), "--format", "json")


def test_two_captures_give_only_the_changes_a_person_wants(cli) -> None:
    assert replay(cli, EARLY).code == 0
    before = {
        (r["region"], r["instance_type"], r["price_model"]): r
        for r in json.loads(cli("prices", "--provider", "vastai", "--format", "json").out)
    }
    result = replay(cli, LATER)
    assert result.code == 0, result.err
    changes = json.loads(cli("changes", "--format", "json").out)
    assert sorted((c["kind"], c["region"], c["instance_type"], c["price_model"]) for c in changes) == [
        ("new_sku", "europe", "8x H100 SXM verified", "on_demand"),
        ("new_sku", "europe", "8x H100 SXM verified", "spot"),
        ("price_drop", "north-america", "1x H100 SXM verified", "spot"),
        ("price_drop", "north-america", "1x RTX 4090 verified", "on_demand"),
        ("price_increase", "asia", "1x RTX 3090 verified", "on_demand"),
    ]
    after = {
        (r["region"], r["instance_type"], r["price_model"]): r
        for r in json.loads(cli("prices", "--provider", "vastai", "--format", "json").out)
    }
    # Wobbles inside the tolerance write nothing: the row is the month-old one.
    for key in [("europe", "1x RTX 4090 verified", "on_demand"), ("asia", "2x RTX A6000 verified", "on_demand")]:
        assert after[key] == before[key]
    # A median or count past its tolerance is rewritten, quietly.
    a100 = after[("europe", "4x A100 SXM4 80GB verified", "on_demand")]
    assert (Decimal(a100["price"]), Decimal(a100["median_price"]), a100["offer_count"]) == (4, 5, 3)
    assert a100["observed_at"] != before[("europe", "4x A100 SXM4 80GB verified", "on_demand")]["observed_at"]
    assert after[("north-america", "1x RTX 5090 verified", "on_demand")]["offer_count"] == 5
    # The 8x H200 group missed once: still listed (sold out takes two misses).
    assert ("north-america", "8x H200 verified", "on_demand") in after


def test_the_new_group_says_it_is_available_with_its_offers(cli) -> None:
    replay(cli, EARLY)
    replay(cli, LATER)
    change = next(
        c
        for c in json.loads(cli("changes", "--format", "json").out)
        if c["instance_type"] == "8x H100 SXM verified" and c["price_model"] == "on_demand"
    )
    assert change["kind"] == "new_sku"
    assert change["detail"] == "availability: not_listed -> available; median_price: 17.0; offers: 2; tier: verified"


def test_missing_key_on_a_live_crawl_skips_vastai(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_VASTAI_API_KEY", raising=False)
    result = cli("crawl", "vastai")
    assert result.code == 1 and "Traceback" not in result.err
    line = next(line for line in result.err.splitlines() if line.startswith("error:"))
    assert "vastai: skipped: no API key" in line and "GPU_TRACKER_VASTAI_API_KEY" in line
