"""OCI: the public price list's page object and normalizer on the demo
captures, the parts left out and the odd ones skipped, and the source end
to end through the CLI (no key needed)."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest

from spiders.har import read_har
from spiders.oci.pages import parse_products
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tests.helpers.localserver import Reply, serve
from tracker.normalize import NormalizeError
from tracker.normalize.providers.oci import normalize

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

EARLY = DEMO_CAPTURES / "oci" / "2026-11-02-us-ashburn-1+eu-frankfurt-1.har.gz"
LATE = DEMO_CAPTURES / "oci" / "2026-12-01-us-ashburn-1+eu-frankfurt-1.har.gz"
REGIONS = ["us-ashburn-1", "eu-frankfurt-1"]


def body(path: Path = EARLY) -> bytes:
    return read_har(path)["log"]["entries"][0]["response"]["content"]["text"].encode()


def raw_items(path: Path = EARLY, regions: list[str] = REGIONS) -> list[dict]:
    entry = read_har(path)["log"]["entries"][0]
    products, updated, _ = parse_products(body(path))
    envelope = {"kind": "oci.product", "observed_at": entry["startedDateTime"], "source_url": entry["request"]["url"]}
    return [{**envelope, "regions": regions, "currency": "USD", "last_updated": updated, "data": p} for p in products]


def test_the_page_keeps_the_gpu_parts() -> None:
    products, updated, following = parse_products(body())
    assert updated == "2026-10-28T09:09:55.872Z" and following is None
    assert {p["metricName"] for p in products} == {"GPU Per Hour"}
    names = {p["displayName"] for p in products}
    assert "Compute - Standard - E4 - OCPU" not in names  # per OCPU-hour
    assert not [n for n in names if "VMware" in n]  # per node-hour
    assert "OCI - NVIDIA AI Enterprise - H100" in names  # same metric: the normalizer sets it apart


def test_a_shape_is_its_gpu_count_times_the_part_rate() -> None:
    quotes = normalize(raw_items()).quotes
    h100 = only(quotes, instance_type="BM.GPU.H100.8", region="us-ashburn-1")
    assert (h100.price, h100.currency, str(h100.unit), str(h100.price_model)) == (
        Decimal(80),
        "USD",
        "hour",
        "on_demand",
    )
    assert h100.per_gpu_hour() == 10 and h100.attrs == {"part_number": "B98415", "per_gpu_rate": "10"}
    assert (h100.gpu_model, h100.gpu_count, h100.gpu_memory_gb, h100.vcpu, h100.memory_gb) == (
        "H100",
        8,
        640,
        224,
        2048,
    )
    a10 = {q.instance_type: q.price for q in quotes if q.region == "eu-frankfurt-1" and "A10." in q.instance_type}
    assert a10 == {"VM.GPU.A10.1": 2, "VM.GPU.A10.2": 4, "BM.GPU.A10.4": 8}
    assert only(quotes, instance_type="BM.GPU.L40S.4", region="us-ashburn-1").price == Decimal("14.0")
    assert only(quotes, instance_type="VM.GPU3.4", region="us-ashburn-1").price == Decimal("11.80")
    assert {q.availability for q in quotes} == {None}
    assert len(quotes) == 15 * 2


def test_licences_appliances_and_unknown_parts_are_named_not_stored() -> None:
    out = normalize(raw_items())
    assert "oci: left out 2 NVIDIA AI Enterprise licence parts and 2 Cloud@Customer parts (not cloud GPU rentals)" in (
        out.notes
    )
    unknown = next(n for n in out.notes if n.startswith("oci: GPU parts that price no shape we know"))
    for part in ("B109480 H100T at 10.75", "B112140 GB300 at 18", "B111758 MI355X at 8.6"):
        assert part in unknown
    assert not [q for q in out.quotes if q.attrs["part_number"] in {"B111824", "B110965", "B111455"}]


def _edit(part: str, change) -> list[dict]:
    items = copy.deepcopy(raw_items())
    change(next(i["data"] for i in items if i["data"]["partNumber"] == part))
    return items


def _price(product: dict) -> dict:
    return product["currencyCodeLocalizations"][0]["prices"][0]


@pytest.mark.parametrize(
    "change, reason",
    [
        (lambda p: p.pop("currencyCodeLocalizations"), "no currencyCodeLocalizations"),
        (lambda p: p["currencyCodeLocalizations"][0].update(currencyCode="EUR"), "0 localizations in USD"),
        (lambda p: p["currencyCodeLocalizations"][0]["prices"].append(_price(p)), "2 PAY_AS_YOU_GO prices"),
        (lambda p: _price(p).update(model="ANNUAL_FLEX"), "0 PAY_AS_YOU_GO prices"),
        (lambda p: _price(p).update(value="ten"), "'ten' is not a number"),
        (lambda p: _price(p).update(value=0), "the price is 0"),
        (lambda p: p.update(displayName="OCI - Compute - GPU - H100T"), "no longer names H100"),
        (lambda p: p.update(serviceCategory="Oracle SuperCluster"), "not a public GPU category"),
    ],
)
def test_one_odd_part_is_skipped_with_a_note(change, reason: str) -> None:
    out = normalize(_edit("B98415", change))
    assert not [q for q in out.quotes if q.instance_type == "BM.GPU.H100.8"]
    assert len(out.quotes) == 14 * 2
    assert any("part B98415" in n and reason in n for n in out.notes), out.notes


def test_no_part_priced_is_a_changed_shape() -> None:
    items = _edit("B98415", lambda p: _price(p).update(value=0))
    keep = {"B98415", "B111824"}  # the H100 part, odd, and a licence, left out
    with pytest.raises(NormalizeError, match="none of the 1 GPU parts could be priced"):
        normalize([i for i in items if i["data"]["partNumber"] in keep])


@pytest.mark.parametrize(
    "page, reason",
    [
        (b"[", "not valid JSON"),
        (b'{"lastUpdated": "x", "items": {}}', r"no items list \(items is an object\)"),
        (b'{"items": []}', "no lastUpdated date"),
        (b'{"lastUpdated": "x", "items": [], "links": [{"rel": "next", "href": 5}]}', "the next link is not a link"),
    ],
)
def test_page_shapes_fail_loudly(page: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_products(page)


def test_a_next_link_is_followed() -> None:
    page = {
        "lastUpdated": "x",
        "items": [],
        "links": [{"rel": "next", "href": "/pls/apex/cetools/api/v1/products/?offset=500"}],
    }
    assert parse_products(json.dumps(page).encode())[2] == "/pls/apex/cetools/api/v1/products/?offset=500"


# End to end through the CLI.


def test_two_captures_yield_a_price_drop_and_a_new_shape(cli) -> None:
    assert cli("crawl", "oci", "--replay", str(EARLY)).code == 0
    second = cli("crawl", "oci", "--replay", str(LATE), "--format", "json")
    assert second.code == 0, second.err
    got = sorted((c["kind"], c["instance_type"], c["region"], c["new_price"]) for c in json.loads(second.out))
    assert got == sorted(
        [("new_sku", "BM.GPU.B300.8", r, "120") for r in REGIONS]
        + [("price_drop", "BM.GPU.B200.8", r, "100.0") for r in REGIONS]
    )


def test_a_live_crawl_asks_for_the_currency_set(sqlite_cli, home: Path) -> None:
    asked = []

    def answer(req) -> Reply:
        asked.append(req.path)
        text = body().decode().replace('"currencyCode": "USD"', '"currencyCode": "EUR"')
        return Reply(body=text.encode())

    with serve(answer) as (base, _received):
        (home / "config.toml").write_text(
            f'[providers.oci]\napi_url = "{base}/products/"\ncurrency = "EUR"\nregions = ["eu-frankfurt-1"]\n'
        )
        result = sqlite_cli("crawl", "oci", "--format", "json")
    assert result.code == 0, result.err
    assert asked == ["/products/?currencyCode=EUR"]
    rows = json.loads(sqlite_cli("prices", "--provider", "oci", "--format", "json").out)
    assert {r["currency"] for r in rows} == {"EUR"} and {r["region"] for r in rows} == {"eu-frankfurt-1"}
