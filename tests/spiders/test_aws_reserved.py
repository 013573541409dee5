"""aws-reserved: the bulk offer files (global USD and China CNY), streamed
and cut to GPU products; reserved terms with the upfront fee kept apart."""

from __future__ import annotations

import gzip
import io
import json
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from spiders.aws.bulk_pages import GpuProducts, offer_subset, parse_offer_file, parse_region_index, subset_body
from spiders.aws.reserved import OfferStreamMiddleware
from spiders.har import read_har
from spiders.pages import PageShapeError
from tests.conftest import FIXTURES
from tests.helpers.harutil import from_jsonl
from tests.helpers.localserver import Reply, serve
from tracker.normalize import NormalizeError
from tracker.normalize.providers.aws_bulk import normalize

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

CAPTURE = FIXTURES / "aws" / "aws-reserved-2026-08-06.har"
KEEP = GpuProducts.for_systems(["Linux", "Windows"])


def offer_body(region: str) -> bytes:
    entry = next(e for e in read_har(CAPTURE)["log"]["entries"] if f"/{region}/index.json" in e["request"]["url"])
    return entry["response"]["content"]["text"].encode()


def raw_items(region: str) -> list[Any]:
    _, records = parse_offer_file(offer_body(region), KEEP)
    return [
        {
            "kind": "aws.offer_product",
            "observed_at": "2026-08-06T06:00:00Z",
            "source_url": "u",
            "region": region,
            "data": r,
        }
        for r in records
    ]


def test_only_shared_used_gpu_products_of_the_wanted_systems_are_kept() -> None:
    full = json.loads(offer_body("us-east-1"))
    _, records = parse_offer_file(offer_body("us-east-1"), KEEP)
    kept = {(r["attributes"]["instanceType"], r["attributes"]["operatingSystem"]) for r in records}
    assert kept == {
        (t, o)
        for t in ("p4d.24xlarge", "p5.48xlarge", "g5.xlarge", "g6e.xlarge", "g6f.large")
        for o in ("Linux", "Windows")
    }
    assert len(full["products"]) == 7 * 16 and len(records) == 10
    assert all(r["attributes"]["tenancy"] == "Shared" and r["attributes"]["preInstalledSw"] == "NA" for r in records)
    assert all(len(r["terms"]["Reserved"]) == 12 and len(r["terms"]["OnDemand"]) == 1 for r in records)


def test_the_kept_subset_is_itself_an_offer_file() -> None:
    subset = subset_body(io.BytesIO(offer_body("us-east-1")), KEEP)
    assert len(subset) < len(offer_body("us-east-1")) / 5
    assert parse_offer_file(subset, KEEP) == parse_offer_file(offer_body("us-east-1"), KEEP)
    assert json.loads(subset)["version"] == "20260801000000"


def test_sql_variants_are_an_option() -> None:
    keep = GpuProducts.for_systems(["Windows with SQL Std"])
    _, records = parse_offer_file(offer_body("us-east-1"), keep)
    assert {r["attributes"]["preInstalledSw"] for r in records} == {"SQL Std"}
    quotes = normalize(
        from_jsonl(
            [
                {
                    "kind": "aws.offer_product",
                    "observed_at": "2026-08-06T06:00:00Z",
                    "source_url": "u",
                    "region": "us-east-1",
                    "data": r,
                }
                for r in records
            ]
        )
    ).quotes
    assert {q.os for q in quotes} == {"windows+sql-std"}


def test_reserved_terms_keep_the_rate_and_the_fee_apart() -> None:
    full = json.loads(offer_body("us-east-1"))
    quotes = normalize(raw_items("us-east-1")).quotes
    assert {q.price_model for q in quotes} == {"reserved"}  # on demand comes from the aws source
    assert len(quotes) == 10 * 12
    p4d = {(q.term, q.payment_option): q for q in quotes if q.instance_type == "p4d.24xlarge" and q.os == "linux"}
    sku = p4d[("3yr", "partial_upfront")].attrs["sku"]
    term = full["terms"]["Reserved"][sku][f"{sku}.38NPMPTW36"]
    dims = {d["unit"]: d["pricePerUnit"]["USD"] for d in term["priceDimensions"].values()}
    partial = p4d[("3yr", "partial_upfront")]
    assert (str(partial.price), str(partial.upfront_fee), partial.currency) == (dims["Hrs"], dims["Quantity"], "USD")
    assert partial.hourly_rate() == Decimal(dims["Hrs"]) + Decimal(dims["Quantity"]) / 26280
    assert partial.gpu_model == "A100 40GB" and partial.gpu_count == 8
    everything = p4d[("1yr", "all_upfront")]
    assert everything.price == 0 and everything.upfront_fee is not None and everything.upfront_fee > 0
    assert p4d[("1yr", "no_upfront")].upfront_fee is None
    assert ("3yr", "convertible_no_upfront") in p4d


def test_china_is_in_cny_with_on_demand() -> None:
    quotes = normalize(raw_items("cn-north-1")).quotes
    assert {q.currency for q in quotes} == {"CNY"} and {q.region for q in quotes} == {"cn-north-1"}
    od = next(
        q for q in quotes if q.instance_type == "p4d.24xlarge" and q.price_model == "on_demand" and q.os == "linux"
    )
    assert str(od.price) == "262.8116000000"
    assert {q.instance_type for q in quotes} == {"p4d.24xlarge", "g5.xlarge", "g4dn.xlarge"}


def test_ningxia_is_in_cny_with_on_demand() -> None:
    quotes = normalize(raw_items("cn-northwest-1")).quotes
    assert {q.currency for q in quotes} == {"CNY"} and {q.region for q in quotes} == {"cn-northwest-1"}
    od = next(
        q for q in quotes if q.instance_type == "p4d.24xlarge" and q.price_model == "on_demand" and q.os == "linux"
    )
    assert str(od.price) == "236.5304000000" and od.gpu_count == 8
    assert {q.instance_type for q in quotes} == {"p4d.24xlarge", "g5.xlarge", "g4dn.xlarge"}
    # Linux and Windows only (the filter asked for them), each with on demand and 12 reservations.
    assert len(quotes) == 3 * 2 * 13


def test_both_china_regions_replay_through_the_cli(cli, home: Path) -> None:
    # The China savings plan index is not checked against the live site (see
    # the README), so this crawl leaves plans out, as the README advises.
    (home / "config.toml").write_text("[providers.aws]\nsavings_plans = false\n")
    result = cli("crawl", "aws-reserved", "-r", "cn-north-1", "-r", "cn-northwest-1", "--replay", str(CAPTURE))
    assert result.code == 0, result.err
    rows = json.loads(
        cli("prices", "--instance-type", "p4d.24xlarge", "--price-model", "on_demand", "--format", "json").out
    )
    assert sorted((r["region"], r["os"], r["currency"], r["price"]) for r in rows) == [
        ("cn-north-1", "linux", "CNY", "262.8116000000"),
        ("cn-north-1", "windows", "CNY", "310.1177000000"),
        ("cn-northwest-1", "linux", "CNY", "236.5304000000"),
        ("cn-northwest-1", "windows", "CNY", "279.1059000000"),
    ]


def test_region_index() -> None:
    entry = read_har(CAPTURE)["log"]["entries"][1]
    offers = parse_region_index(entry["response"]["content"]["text"].encode(), entry["request"]["url"])
    assert offers["cn-north-1"] == (
        "https://pricing.cn-north-1.amazonaws.com.cn/offers/v1.0/cn/AmazonEC2/20260801000000/cn-north-1/index.json"
    )


@pytest.mark.parametrize(
    "text, reason",
    [
        (b'{"products": {"A": {"sku": "A"', "not valid JSON"),
        (b'{"formatVersion": "v1.0", "terms": {}}', "no products object"),
        (b'{"products": {}}', "no terms object"),
        (b'{"terms": {}, "products": {}}', "terms before products"),
    ],
)
def test_changed_offer_files_fail_loudly(text: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        offer_subset(io.BytesIO(text), KEEP)


def _edited(edit) -> list[Any]:
    items = raw_items("us-east-1")[:1]
    edit(items[0]["data"]["terms"]["Reserved"][0])
    return items


@pytest.mark.parametrize(
    "edit, reason",
    [
        (lambda t: t["termAttributes"].update(PurchaseOption="Heavy Utilization"), "unknown reservation"),
        (lambda t: next(iter(t["priceDimensions"].values()))["pricePerUnit"].update(EUR="1"), "one currency"),
        (lambda t: next(iter(t["priceDimensions"].values())).update(unit="Months"), "unknown price unit 'Months'"),
    ],
)
def test_unreadable_terms_are_errors(edit, reason: str) -> None:
    with pytest.raises(NormalizeError, match=reason):
        normalize(_edited(edit))


def test_live_download_streams_and_cuts_the_file() -> None:
    packed = gzip.compress(offer_body("us-east-1"))

    def handler(request):
        if request.path.endswith("/missing.json"):
            return Reply(404, b"NoSuchKey")
        return Reply(200, packed, {"Content-Type": "application/json", "Content-Encoding": "gzip"})

    middleware = OfferStreamMiddleware(timeout=10, user_agent="gpu-tracker-test")
    cut = partial(subset_body, keep=KEEP)
    with serve(handler) as (base, received):
        status, _, body = middleware.fetch(f"{base}/offers/v1.0/aws/AmazonEC2/x/us-east-1/index.json", cut)
        assert status == 200 and received[0].headers["Accept-Encoding"] == "gzip"
        assert parse_offer_file(body, KEEP) == parse_offer_file(offer_body("us-east-1"), KEEP)
        assert middleware.fetch(f"{base}/missing.json", cut)[:1] == (404,)


def test_replay_through_the_cli(cli) -> None:
    result = cli(
        "crawl", "aws-reserved", "-r", "us-east-1", "-r", "cn-north-1", "--replay", str(CAPTURE), "--format", "json"
    )
    assert result.code == 0, result.err
    rows = json.loads(cli("prices", "--gpu", "A100", "--format", "json").out)
    assert {(r["region"], r["currency"]) for r in rows} == {("us-east-1", "USD"), ("cn-north-1", "CNY")}
    row = next(
        r
        for r in rows
        if r["region"] == "us-east-1"
        and r["term"] == "3yr"
        and r["os"] == "linux"
        and r["payment_option"] == "all_upfront"
    )
    assert row["price"] == "0.0000000000"
    assert Decimal(row["hourly_price"]) == (Decimal(row["upfront_fee"]) / 26280).quantize(Decimal("0.000001"))
    bad = cli("crawl", "aws-reserved", "-r", "xx-nowhere-1", "--replay", str(CAPTURE))
    assert bad.code == 1 and "unknown AWS region 'xx-nowhere-1'" in bad.err and "us-west-2" in bad.err


def test_live_crawl_streams_records_and_replays(tmp_path: Path) -> None:
    """A real Scrapy crawl against 127.0.0.1: the offer file arrives gzipped,
    is cut while it streams, and the recorded capture holds only the cut."""
    from spiders.aws.reserved import GLOBAL_INDEX
    from tracker.run.crawl import CrawlRequest, run_crawl
    from tracker.sources import SOURCES

    entries = read_har(CAPTURE)["log"]["entries"]
    index = entries[0]["response"]["content"]["text"].encode()
    offer = gzip.compress(offer_body("us-east-1"))

    def handler(request):
        if request.path.endswith("region_index.json"):
            return Reply(200, index)
        if request.path.endswith("/us-east-1/index.json"):
            return Reply(200, offer, {"Content-Type": "application/json", "Content-Encoding": "gzip"})
        return Reply(404, b"NoSuchKey")

    with serve(handler) as (base, received):
        record = tmp_path / "recorded.har"
        result = run_crawl(
            CrawlRequest(
                source=SOURCES["aws-reserved"],
                out_dir=tmp_path / "live",
                regions=["us-east-1"],
                record=record,
                # The plan files have a live test of their own (test_aws_savings.py).
                spider_args={
                    "offer_index_url": f"{base}/offers/v1.0/aws/AmazonEC2/current/region_index.json",
                    "savings_plans": "false",
                },
                timeout=120,
            )
        )
    assert result.error is None, result.error
    assert len(result.items) == 10 and GLOBAL_INDEX not in {r.path for r in received}
    recorded = read_har(record)["log"]["entries"]
    cut = next(e for e in recorded if e["request"]["url"].endswith("/us-east-1/index.json"))
    assert len(cut["response"]["content"]["text"]) < len(offer_body("us-east-1")) / 5

    replayed = run_crawl(
        CrawlRequest(
            source=SOURCES["aws-reserved"],
            out_dir=tmp_path / "replay",
            regions=["us-east-1"],
            replay=record,
            spider_args={
                "offer_index_url": f"{base}/offers/v1.0/aws/AmazonEC2/current/region_index.json",
                "savings_plans": "false",
            },
        )
    )
    assert replayed.error is None and [i["data"] for i in replayed.items] == [i["data"] for i in result.items]
