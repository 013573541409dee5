"""OCI: the public price list's page object and normalizer on the demo
captures (the first is a real answer of 2026-08-22, tests/fixtures/oci/),
the shapes of issue 38 (Oracle's names, every priced part stored), the parts
left out and the odd ones skipped, and the source end to end through the CLI
(no key needed)."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.har import read_har
from spiders.oci.pages import parse_products
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers.harutil import only
from tests.helpers.localserver import Reply, serve
from tracker.normalize import NormalizeError
from tracker.normalize.providers.oci import normalize

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

EARLY = DEMO_CAPTURES / "oci" / "2026-08-22-us-ashburn-1+eu-frankfurt-1.har.gz"
LATE = DEMO_CAPTURES / "oci" / "2026-09-22-us-ashburn-1+eu-frankfurt-1.har.gz"
REAL = FIXTURES / "oci" / "products_usd.json"
REGIONS = ["us-ashburn-1", "eu-frankfurt-1"]
# The shapes the real answer prices: 16 of its parts price 19 shapes.
STORED = 19


def body(path: Path = EARLY) -> bytes:
    return read_har(path)["log"]["entries"][0]["response"]["content"]["text"].encode()


def raw_items(path: Path = EARLY, regions: list[str] = REGIONS) -> list[Any]:
    entry = read_har(path)["log"]["entries"][0]
    products, updated, _ = parse_products(body(path))
    envelope = {"kind": "oci.product", "observed_at": entry["startedDateTime"], "source_url": entry["request"]["url"]}
    return [{**envelope, "regions": regions, "currency": "USD", "last_updated": updated, "data": p} for p in products]


def test_the_first_demo_capture_is_the_real_answer() -> None:
    assert body() == REAL.read_bytes()  # byte for byte: tests/fixtures/oci/README.md says where it is from


def test_the_page_keeps_the_gpu_parts() -> None:
    products, updated, following = parse_products(body())
    assert updated == "2026-08-14T09:09:55.872Z" and following is None
    assert len(products) == 29 and {p["metricName"] for p in products} == {"GPU Per Hour"}
    names = {p["displayName"] for p in products}
    assert "WebCenter Imaging For OCI" not in names  # per OCPU-hour
    assert not [n for n in names if "VMware" in n or "Roving Edge" in n]  # per node-hour, per day
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
    assert only(quotes, instance_type="VM.GPU3.4", region="us-ashburn-1").price == Decimal("11.80")
    assert only(quotes, instance_type="BM.GPU4.8", region="us-ashburn-1").price == Decimal("24.40")
    assert {q.availability for q in quotes} == {None}
    assert len(quotes) == STORED * 2


@pytest.mark.parametrize(
    "shape, part, price, gpus",
    [
        # Oracle's shape lists, Terraform and OKE's instance-type label: "-NC", not BM.GPU.L40S.4
        ("BM.GPU.L40S-NC.4", "B109479", "14.0", ("L40S", 4)),
        # priced parts of the answer that were not stored before: 8 x V100, 2 x P100
        ("BM.GPU3.8", "B89734", "23.60", ("V100", 8)),
        ("BM.GPU2.2", "B88517", "2.550", ("P100", 2)),
        ("VM.GPU2.1", "B88518", "1.275", ("P100", 1)),
        # the names Oracle's quickstarts and cost estimator give these parts' shapes
        ("BM.GPU.B300.8", "B112237", "120", ("B300", 8)),
        ("BM.GPU.RTXPRO.8", "B112613", "36.0", ("RTX PRO 6000", 8)),
    ],
)
def test_the_real_answer_prices_oracles_shape_names(shape: str, part: str, price: str, gpus: tuple) -> None:
    quotes = normalize(raw_items()).quotes
    quote = only(quotes, instance_type=shape, region="eu-frankfurt-1")
    assert (quote.price, quote.attrs["part_number"], (quote.gpu_model, quote.gpu_count)) == (Decimal(price), part, gpus)
    assert not [q for q in quotes if q.instance_type == "BM.GPU.L40S.4"]


def test_licences_appliances_and_unknown_parts_are_named_not_stored() -> None:
    out = normalize(raw_items())
    assert "oci: left out 8 NVIDIA AI Enterprise licence parts and 3 Cloud@Customer parts (not cloud GPU rentals)" in (
        out.notes
    )
    unknown = next(n for n in out.notes if n.startswith("oci: GPU parts that price no shape we know"))
    assert "B109480 H100T at 10.75" in unknown and "B93544 E4 at 3.05" in unknown
    # Shapes named by the cost estimator whose GPU model the datasheet lacks: noted, not guessed.
    for shape, part in (("BM.GPU.GB300.4", "B112140"), ("BM.GPU.MI355X.8", "B111758")):
        assert f"oci: {shape} (part {part}) has no GPU count in gpu_specs/oci.csv; not stored" in out.notes
    left_out = {"B111824", "B111831", "B110965", "B111454", "B111455", "B109480", "B93544"}
    assert not [q for q in out.quotes if q.attrs["part_number"] in left_out]


def _edit(part: str, change) -> list[Any]:
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
    assert len(out.quotes) == (STORED - 1) * 2
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


def test_two_captures_yield_a_price_drop(cli) -> None:
    assert cli("crawl", "oci", "--replay", str(EARLY)).code == 0
    second = cli("crawl", "oci", "--replay", str(LATE), "--format", "json")
    assert second.code == 0, second.err
    got = sorted((c["kind"], c["instance_type"], c["region"], c["new_price"]) for c in json.loads(second.out))
    assert got == sorted(("price_drop", "BM.GPU.B200.8", r, "100.0") for r in REGIONS)


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
