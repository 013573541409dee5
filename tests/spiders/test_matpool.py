"""矩池云 (MatPool): the machine market's page object (pages, the payload at
the top or under `data`, an error code, an odd machine), the normalizer on
the public clients' shape (tests/fixtures/matpool/machines-in-units.json: a
unit's price, units of several GPUs, the region) and on the demo captures
(by hand from tests/fixtures/matpool/make_fixtures.py), and a replay of both."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.har import read_har
from spiders.matpool.pages import parse_machines
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tracker.normalize.providers.matpool import normalize

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

UNITS = Path(__file__).parents[1] / "fixtures" / "matpool" / "machines-in-units.json"
EARLY = DEMO_CAPTURES / "matpool" / "2026-11-02-china.har.gz"
LATER = DEMO_CAPTURES / "matpool" / "2026-12-01-china.har.gz"


def raw_items(path=EARLY) -> tuple[list[Any], int]:
    items, odd = [], 0
    for entry in read_har(path)["log"]["entries"]:
        machines, skipped, pages = parse_machines(entry["response"]["content"]["text"].encode())
        assert pages == 2
        odd += skipped
        envelope = {"observed_at": entry["startedDateTime"], "source_url": entry["request"]["url"], "regions": []}
        items += [{**envelope, "kind": "matpool.machine", "data": m} for m in machines]
    return items, odd


def fixture_items() -> list[Any]:
    machines, odd, pages = parse_machines(UNITS.read_bytes())
    assert (odd, pages) == (0, 1)
    envelope = {"observed_at": "2026-09-07T00:00:00Z", "source_url": "https://matpool.com/api/machines", "regions": []}
    return [{**envelope, "kind": "matpool.machine", "data": m} for m in machines]


def groups(quotes) -> dict[tuple[str, str], tuple[Decimal, int]]:
    return {(q.region, q.instance_type): (q.price, q.offer_count) for q in quotes}


def test_the_price_is_of_a_unit_and_groups_are_whole_units() -> None:
    second = fixture_items()[1]["data"]
    assert (second["unit_free"], second["unit_total"], second["gpu_max"], second["domain"]) == (4, 4, 4, 0)
    result = normalize(fixture_items())
    found = groups(result.quotes)
    # 8 A100 sold in units of 2 at ¥4 a unit: 2 GPUs for ¥4, 4 for ¥8, 8 for ¥16, never 1.
    assert {k: v for k, v in found.items() if "A100" in k[1]} == {
        ("region-2", "2x A100-SXM4-80GB"): (Decimal("4"), 1),
        ("region-2", "4x A100-SXM4-80GB"): (Decimal("8"), 1),
        ("region-2", "8x A100-SXM4-80GB"): (Decimal("16"), 1),
    }
    # The clients' machine (a GPU a unit, ¥1) and its rent test's (2 GPUs a unit, 4 an instance at most).
    assert {k: v for k, v in found.items() if "Test GPU" in k[1]} == {
        ("region-1", "1x Test GPU"): (Decimal("1"), 1),
        ("region-1", "2x Test GPU"): (Decimal("1"), 2),
        ("region-1", "4x Test GPU"): (Decimal("2"), 2),
    }
    assert any("machine 4: skipped: 2 units do not divide its 3 GPUs" in n for n in result.notes)


def test_the_region_is_the_machines_domain() -> None:
    quotes = normalize(fixture_items()).quotes
    two = [q for q in quotes if q.region == "region-2"]
    assert two and all(q.attrs["region_name"] == "2区" for q in two)


def test_machines_read_and_an_odd_one_counted() -> None:
    items, odd = raw_items()
    assert odd == 1 and len(items) == 5
    first = items[0]["data"]
    assert (first["gpu_name"], first["gpu_free"], first["price_millicent"], first["discount_millicent"]) == (
        "RTX 4090",
        4,
        220000,
        198000,
    )


def test_the_payload_may_sit_under_data_and_errors_carry_their_code() -> None:
    body = {"code": 0, "data": {"machines": [], "pagination": {"numPages": 1}}}
    assert parse_machines(json.dumps(body).encode()) == ([], 0, 1)
    with pytest.raises(PageShapeError, match="code 401"):
        parse_machines(b'{"code": 401, "msg": "token expired"}')


def test_discounted_prices_are_what_a_renter_pays() -> None:
    quotes = normalize(raw_items()[0]).quotes
    q = only(quotes, instance_type="1x RTX 4090")
    # 1.98 (discounted from 2.20) and 2.20
    assert (q.price, q.median_price, q.offer_count, q.currency) == (Decimal("1.98"), Decimal("2.09"), 2, "CNY")
    a100 = only(quotes, instance_type="4x A100-PCIE-40GB")
    assert (a100.price, a100.gpu_model, a100.region) == (Decimal("10.64"), "A100 40GB", "region-1")
    # Machine 105 rents 2 GPUs a unit at ¥5.60: in the 2x group, never in 1x.
    two = only(quotes, instance_type="2x A100-PCIE-40GB")
    assert (two.price, two.median_price, two.offer_count) == (Decimal("5.32"), Decimal("5.46"), 2)
    assert only(quotes, instance_type="1x A100-PCIE-40GB").offer_count == 1


def test_a_month_later(cli) -> None:
    for har in (EARLY, LATER):
        assert cli("crawl", "matpool", "--replay", str(har)).code == 0
    changes = json.loads(cli("changes", "--format", "json").out)
    assert sorted((c["kind"], c["instance_type"]) for c in changes) == [
        ("new_sku", "2x A100-SXM4-80GB"),
        ("new_sku", "4x A100-SXM4-80GB"),
        ("new_sku", "8x A100-SXM4-80GB"),
        ("price_drop", "1x RTX 4090"),
        ("price_drop", "2x RTX 4090"),
        ("price_drop", "4x RTX 4090"),
    ]


def test_missing_token_skips_matpool(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_MATPOOL_API_KEY", raising=False)
    result = cli("crawl", "matpool")
    assert result.code == 1 and "matpool: skipped: no API key" in result.err
