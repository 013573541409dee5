"""矩池云 (MatPool): the machine market's page object (pages, the payload at
the top or under `data`, an error code, an odd machine) and the normalizer
on the demo captures (by hand from tests/fixtures/matpool/make_fixtures.py),
and a replay of both."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from spiders.har import read_har
from spiders.matpool.pages import parse_machines
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tracker.normalize.providers.matpool import normalize

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

EARLY = DEMO_CAPTURES / "matpool" / "2026-11-02-china.har.gz"
LATER = DEMO_CAPTURES / "matpool" / "2026-12-01-china.har.gz"


def raw_items(path=EARLY) -> tuple[list[dict], int]:
    items, odd = [], 0
    for entry in read_har(path)["log"]["entries"]:
        machines, skipped, pages = parse_machines(entry["response"]["content"]["text"].encode())
        assert pages == 2
        odd += skipped
        envelope = {"observed_at": entry["startedDateTime"], "source_url": entry["request"]["url"], "regions": []}
        items += [{**envelope, "kind": "matpool.machine", "data": m} for m in machines]
    return items, odd


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
    assert (a100.price, a100.gpu_model, a100.region) == (Decimal("10.64"), "A100 40GB", "china")


def test_a_month_later(cli) -> None:
    for har in (EARLY, LATER):
        assert cli("crawl", "matpool", "--replay", str(har)).code == 0
    changes = json.loads(cli("changes", "--format", "json").out)
    assert sorted((c["kind"], c["instance_type"]) for c in changes) == [
        ("new_sku", "1x A100-SXM4-80GB"),
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
