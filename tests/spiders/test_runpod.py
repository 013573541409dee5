"""RunPod: the GraphQL page objects, the secure cloud's list prices with
stock per data centre, and the community cloud as a marketplace; a replay of
both captures of each source (worked out by hand from
tests/fixtures/runpod/make_fixtures.py)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.har import read_har
from spiders.pages import PageShapeError
from spiders.runpod.pages import parse_catalog, parse_stock
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tracker.normalize.providers.runpod import normalize, normalize_community
from tracker.normalize.specs import spec_table

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

SECURE = sorted((DEMO_CAPTURES / "runpod").glob("*.har.gz"))
COMMUNITY = sorted((DEMO_CAPTURES / "runpod-community").glob("*.har.gz"))
CENTRES = ["EU-RO-1", "US-TX-3"]
COUNTRIES = ["US", "CA", "SE"]


def raw_items(path: Path, regions: list[str]) -> list[Any]:
    entries = read_har(path)["log"]["entries"]
    items = []
    for entry in entries:
        body = entry["response"]["content"]["text"].encode()
        when, url = entry["startedDateTime"], entry["request"]["url"]
        request = json.loads(entry["request"]["postData"]["text"])
        envelope = {"observed_at": when, "source_url": url, "regions": regions}
        if "lowestPriceInput" not in request["variables"]:
            types, _, _ = parse_catalog(body)
            items += [{**envelope, "kind": "runpod.gpu_type", "data": t} for t in types]
            continue
        wanted = request["variables"]["lowestPriceInput"]
        place = wanted.get("dataCenterId") or wanted.get("countryCode")
        for stock in parse_stock(body, place, wanted["gpuCount"]):
            items.append({**envelope, "kind": "runpod.stock", "data": stock})
    return items


def test_the_catalog_lists_listed_centres_and_countries() -> None:
    body = read_har(SECURE[0])["log"]["entries"][0]["response"]["content"]["text"].encode()
    types, centres, countries = parse_catalog(body)
    assert centres == ["EU-RO-1", "US-TX-3", "CA-MTL-1", "EU-SE-1"]  # US-OR-9 is not listed
    assert countries == ["US", "CA", "SE", "CZ"]  # a null country code is dropped
    assert len(types) == 6


def test_a_graphql_error_is_a_shape_error_with_its_message() -> None:
    with pytest.raises(PageShapeError, match="Something went wrong"):
        parse_catalog(b'{"errors": [{"message": "Something went wrong"}]}')


def test_secure_prices_are_list_prices_times_the_count_with_stock() -> None:
    result = normalize(raw_items(SECURE[0], CENTRES))
    h100 = only(result.quotes, region="US-TX-3", instance_type="8x H100 SXM", price_model="on_demand")
    assert (h100.price, h100.availability, h100.gpu_model) == (Decimal("21.52"), "High", "H100")
    assert h100.offer_count is None and h100.gpu_memory_gb == Decimal(640)
    spot = only(result.quotes, region="EU-RO-1", instance_type="2x RTX 4090", price_model="spot")
    assert spot.price == Decimal("0.70")
    a4000 = only(result.quotes, region="US-TX-3", instance_type="1x RTX A4000", price_model="on_demand")
    assert (a4000.gpu_model, a4000.gpu_memory_gb) == ("RTX A4000", Decimal(16))
    assert not any("no gpu_specs" in n for n in result.notes)


def test_a_gpu_type_the_table_lacks_is_kept_without_a_model_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(spec_table("runpod"), "nvidia rtx a4000")
    result = normalize(raw_items(SECURE[0], CENTRES))
    a4000 = only(result.quotes, region="US-TX-3", instance_type="1x RTX A4000", price_model="on_demand")
    assert a4000.gpu_model is None
    assert any("NVIDIA RTX A4000" in n for n in result.notes)
    # A type with no stock in a data centre is not listed there.
    assert not [q for q in result.quotes if q.region == "EU-RO-1" and "A100" in q.instance_type]


def test_community_countries_are_the_offers_of_their_macro_region() -> None:
    result = normalize_community(raw_items(COMMUNITY[0], COUNTRIES))
    q = only(result.quotes, region="north-america", instance_type="1x RTX 4090 community", price_model="on_demand")
    # US 0.34 and CA 0.35: two countries, two offers
    assert (q.price, q.median_price, q.offer_count) == (Decimal("0.34"), Decimal("0.345"), 2)
    assert q.attrs == {"tier": "community", "countries": "CA,US"}
    h100 = only(result.quotes, region="north-america", instance_type="8x H100 SXM community", price_model="on_demand")
    assert h100.price == Decimal("16.72")  # 8 x 2.09
    # No bid stated for 8x H100 in Canada: the catalog's community spot price stands in.
    spot = only(result.quotes, region="north-america", instance_type="8x H100 SXM community", price_model="spot")
    assert spot.price == Decimal("10.00")
    assert sorted(result.scope or []) == ["europe", "north-america"]


def replay(cli, source: str, har: Path, regions: list[str]):
    return cli("crawl", source, "--replay", str(har), *[a for r in regions for a in ("--region", r)])


def test_secure_cloud_a_month_later(cli) -> None:
    for har in SECURE:
        assert replay(cli, "runpod", har, CENTRES).code == 0
    changes = json.loads(cli("changes", "--format", "json").out)
    moves = sorted((c["kind"], c["region"], c["instance_type"], c["price_model"]) for c in changes)
    assert moves.count(("price_drop", "US-TX-3", "1x H100 SXM", "on_demand")) == 1
    assert len([m for m in moves if m[0] == "price_drop"]) == 8  # every H100 row with stock, on demand
    stock = [c for c in changes if c["kind"] == "availability_changed"]
    assert sorted((c["instance_type"], c["price_model"], c["detail"]) for c in stock) == [
        ("4x H100 SXM", "on_demand", "availability: High -> Medium"),
        ("4x H100 SXM", "spot", "availability: High -> Medium"),
        ("8x H100 SXM", "on_demand", "availability: High -> Low"),
        ("8x H100 SXM", "spot", "availability: High -> Low"),
    ]


def test_community_cloud_a_month_later(cli) -> None:
    for har in COMMUNITY:
        assert replay(cli, "runpod-community", har, COUNTRIES).code == 0
    changes = json.loads(cli("changes", "--format", "json").out)
    assert sorted((c["kind"], c["region"], c["instance_type"], c["price_model"]) for c in changes) == [
        ("new_sku", "europe", "8x H100 SXM community", "on_demand"),
        ("new_sku", "europe", "8x H100 SXM community", "spot"),
        ("price_drop", "north-america", "1x RTX 4090 community", "on_demand"),
    ]
