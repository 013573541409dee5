"""TensorDock: the hostnodes page object and the normalizer on the demo
captures (aggregates worked out by hand from
tests/fixtures/tensordock/make_fixtures.py), and a replay of both."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.har import read_har
from spiders.pages import PageShapeError
from spiders.tensordock.pages import parse_hostnodes
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tracker.normalize.providers.tensordock import normalize

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

EARLY = DEMO_CAPTURES / "tensordock" / "2026-11-02-europe+north-america.har.gz"
LATER = DEMO_CAPTURES / "tensordock" / "2026-12-01-europe+north-america.har.gz"


def raw_items(path: Path = EARLY) -> tuple[list[Any], int]:
    entry = read_har(path)["log"]["entries"][0]
    nodes, odd = parse_hostnodes(entry["response"]["content"]["text"].encode())
    items = [
        {
            "kind": "tensordock.hostnode",
            "observed_at": entry["startedDateTime"],
            "source_url": entry["request"]["url"],
            "regions": [],
            "data": n,
        }
        for n in nodes
    ]
    return items, odd


def test_odd_entries_are_dropped_and_counted() -> None:
    items, odd = raw_items()
    assert odd == 2  # a GPU entry without a price, a hostnode without an id
    assert len(items) == 7
    node = next(i["data"] for i in items if i["data"]["id"] == "hn-f1")
    assert node["country"] == "Germany" and node["tier"] == 3
    assert [g["v0Name"] for g in node["gpus"]] == ["geforcertx4090-pcie-24gb", "rtxa6000-pcie-48gb"]


def test_an_answer_without_hostnodes_is_a_shape_error() -> None:
    with pytest.raises(PageShapeError, match=r"data\.hostnodes"):
        parse_hostnodes(b'{"data": {}}')


# region, instance_type: lowest, median, offers (a hostnode with N free is an offer of each count up to N)
AGGREGATES = [
    # austin 0.37 (4 free), montreal 0.40 (2 free)
    ("north-america", "1x geforcertx4090-pcie-24gb tier-3", "0.37", "0.385", 2),
    ("north-america", "4x geforcertx4090-pcie-24gb tier-3", "1.48", "1.48", 1),
    # frankfurt 0.35 x2 free, amsterdam 0.42 x1 free
    ("europe", "1x geforcertx4090-pcie-24gb tier-3", "0.35", "0.385", 2),
    ("europe", "2x geforcertx4090-pcie-24gb tier-3", "0.70", "0.70", 1),
    ("north-america", "8x h100-sxm5-80gb tier-3", "18.00", "18.00", 1),
    ("north-america", "4x h100-sxm5-80gb tier-4", "9.80", "9.80", 1),
]


@pytest.mark.parametrize(("region", "instance_type", "low", "mid", "offers"), AGGREGATES)
def test_hostnodes_aggregate_per_count_they_can_fill(region, instance_type, low, mid, offers) -> None:
    q = only(normalize(raw_items()[0]).quotes, region=region, instance_type=instance_type)
    assert (q.price, q.median_price, q.offer_count) == (Decimal(low), Decimal(mid), offers)
    assert q.price_model == "on_demand" and q.currency == "USD"


def test_gpu_models_come_from_the_spec_table() -> None:
    q = only(normalize(raw_items()[0]).quotes, instance_type="2x a100-pcie-80gb tier-3")
    assert (q.gpu_model, q.gpu_count, q.gpu_memory_gb) == ("A100 80GB", Decimal(2), Decimal(160))
    assert q.attrs == {"tier": "tier-3", "countries": "SE"}


def test_a_month_later_only_the_wanted_changes(cli) -> None:
    for har in (EARLY, LATER):
        assert cli("crawl", "tensordock", "--replay", str(har)).code == 0
    changes = json.loads(cli("changes", "--format", "json").out)
    assert sorted((c["kind"], c["instance_type"]) for c in changes) == [
        ("new_sku", "1x a100-sxm4-80gb tier-3"),
        ("new_sku", "2x a100-sxm4-80gb tier-3"),
        ("new_sku", "4x a100-sxm4-80gb tier-3"),
        ("new_sku", "8x a100-sxm4-80gb tier-3"),
        ("price_drop", "1x geforcertx4090-pcie-24gb tier-3"),
        ("price_drop", "2x geforcertx4090-pcie-24gb tier-3"),
    ]
    drop = next(c for c in changes if c["instance_type"] == "2x geforcertx4090-pcie-24gb tier-3")
    assert (drop["region"], drop["old_price"], drop["new_price"]) == ("europe", "0.70", "0.56")


def test_missing_token_on_a_live_crawl_skips_tensordock(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_TENSORDOCK_API_KEY", raising=False)
    result = cli("crawl", "tensordock")
    assert result.code == 1 and "tensordock: skipped: no API key" in result.err
