"""aws-reserved, savings plans: the plan files (global USD and China CNY),
streamed and cut to the GPU rates; one hourly quote per plan type, term,
purchase option, instance type, OS and region."""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import replace
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from benchmarks.providers.aws_savings_file import fixture_spec, write_plan_file
from spiders.aws.reserved import AwsReservedSpider, OfferStreamMiddleware
from spiders.aws.savings_pages import GpuRates, parse_plan_file, parse_plan_index, plan_subset, plan_subset_body
from spiders.har import read_har
from spiders.pages import PageShapeError
from tests.conftest import FIXTURES
from tracker.normalize import NormalizeError
from tracker.normalize.providers.aws_bulk import normalize
from tracker.run.captures import demo_captures

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

CAPTURE = FIXTURES / "aws" / "aws-reserved-2026-08-06.har"
KEEP = GpuRates.for_systems(["Linux", "Windows"])
US_GPU = {"p4d.24xlarge", "p5.48xlarge", "g5.xlarge", "g6e.xlarge", "g6f.large"}
PLAN_TYPES = {"ComputeSavingsPlans", "EC2InstanceSavingsPlans"}
OPTIONS = {"No Upfront", "Partial Upfront", "All Upfront"}


def entry(part: str, capture: Path = CAPTURE) -> dict[str, Any]:
    return next(e for e in read_har(capture)["log"]["entries"] if part in e["request"]["url"])


def plan_body(region: str, capture: Path = CAPTURE) -> bytes:
    return entry(f"/AWSComputeSavingsPlan/20260801000000/{region}/index.json", capture)["response"]["content"][
        "text"
    ].encode()


def items(body: bytes, region: str, partition: str = "aws", keep: GpuRates = KEEP) -> list[Any]:
    _, records = parse_plan_file(body, keep)
    return [
        {
            "kind": "aws.savings_plan",
            "observed_at": "2026-08-06T06:00:00Z",
            "source_url": "u",
            "region": region,
            "partition": partition,
            "data": r,
        }
        for r in records
    ]


def every_rate(body: bytes) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(plan product, rate) for every rate of the file, read whole with json."""
    page = json.loads(body)
    products = {p["sku"]: p for p in page["products"]}
    return [(products[t["sku"]], r) for t in page["terms"]["savingsPlan"] for r in t["rates"]]


def test_only_shared_gpu_ec2_rates_of_the_wanted_systems_are_kept() -> None:
    body = plan_body("us-east-1")
    _, records = parse_plan_file(body, KEEP)
    kept = {
        (
            r["productFamily"],
            r["attributes"]["purchaseTerm"],
            r["attributes"]["purchaseOption"],
            rate["discountedInstanceType"],
            rate["discountedOperation"],
        )
        for r in records
        for rate in r["rates"]
    }
    assert kept == {
        (plan, term, option, t, op)
        for plan in PLAN_TYPES
        for term in ("1yr", "3yr")
        for option in OPTIONS
        for t in US_GPU
        for op in ("RunInstances", "RunInstances:0002")
    }
    assert sum(len(r["rates"]) for r in records) == len(kept)
    # What the filter had to drop is really in the file.
    everything = every_rate(body)
    usages = {r["discountedUsageType"].split(":")[0] for _, r in everything}
    assert {"BoxUsage", "DedicatedUsage", "HostUsage", "UnusedBox", "Fargate-vCPU-Hours", "Lambda-GB-Second"} <= usages
    assert {r["discountedServiceCode"] for _, r in everything} == {"AmazonEC2", "AmazonECS", "AWSLambda"}
    assert {"m5.large", "c6i.xlarge"} <= {r.get("discountedInstanceType") for _, r in everything}
    assert len({r["discountedOperation"] for _, r in everything}) == 8  # six EC2 systems, Fargate, Lambda
    assert len(everything) > 10 * len(kept)


def test_prices_are_the_source_strings_exactly() -> None:
    body = plan_body("us-east-1")
    source = {r["rateCode"]: r["discountedRate"]["price"] for _, r in every_rate(body)}
    quotes = normalize(items(body, "us-east-1")).quotes
    assert len(quotes) == 2 * 2 * 3 * 5 * 2
    assert all(
        q.price == Decimal(source[q.attrs["rate_code"]]) and str(q.price) == source[q.attrs["rate_code"]]
        for q in quotes
    )
    p5 = {(q.payment_option, q.term): q for q in quotes if q.instance_type == "p5.48xlarge" and q.os == "linux"}
    assert set(p5) == {
        (f"{plan}_{option}", term)
        for plan in ("compute", "ec2_instance")
        for term in ("1yr", "3yr")
        for option in ("no_upfront", "partial_upfront", "all_upfront")
    }
    compute = p5[("compute_no_upfront", "1yr")]
    assert (compute.price_model, compute.unit, compute.currency, compute.upfront_fee) == (
        "savings_plan",
        "hour",
        "USD",
        None,
    )
    assert str(compute.price) == "39.6288" and compute.hourly_rate() == compute.price
    assert compute.gpu_model == "H100" and compute.gpu_count == 8 and compute.region == "us-east-1"
    assert compute.attrs["rate_code"].startswith(compute.attrs["sku"] + ".")
    assert {q.os for q in quotes} == {"linux", "windows"}


def test_dropping_a_rate_at_its_first_field_drops_what_the_whole_filter_drops() -> None:
    body = plan_body("us-east-1")
    assert plan_subset(io.BytesIO(body), KEEP) == plan_subset(io.BytesIO(body), lambda rate: KEEP(rate))


def test_the_kept_subset_is_itself_a_plan_file() -> None:
    body = plan_body("us-east-1")
    subset = plan_subset_body(io.BytesIO(body), KEEP)
    page = json.loads(subset)
    assert len(subset) < len(body) / 10
    assert (page["version"], page["regionCode"]) == ("20260801000000", "us-east-1")
    assert list(page) == ["version", "publicationDate", "regionCode", "products", "terms"]
    assert {p["sku"] for p in page["products"]} == {t["sku"] for t in page["terms"]["savingsPlan"]}
    assert parse_plan_file(subset, KEEP) == parse_plan_file(body, KEEP)


def test_china_is_in_cny() -> None:
    quotes = normalize(items(plan_body("cn-north-1"), "cn-north-1", "aws-cn")).quotes
    assert {q.currency for q in quotes} == {"CNY"} and {q.region for q in quotes} == {"cn-north-1"}
    assert {q.instance_type for q in quotes} == {"p4d.24xlarge", "g5.xlarge", "g4dn.xlarge"}
    assert all(q.price_model == "savings_plan" for q in quotes)


def test_other_systems_are_an_option() -> None:
    keep = GpuRates.for_systems(["Windows with SQL Std", "RHEL"])
    quotes = normalize(items(plan_body("us-east-1"), "us-east-1", keep=keep)).quotes
    assert {q.os for q in quotes} == {"windows+sql-std", "rhel"}
    spider = AwsReservedSpider(operating_systems="Linux,Plan 9")
    assert spider.plan_keep == GpuRates(frozenset({"RunInstances"}))
    assert any("Plan 9" in n for n in spider.notes)


@pytest.mark.parametrize("region, partition, currency", [("us-east-1", "aws", "USD"), ("cn-north-1", "aws-cn", "CNY")])
def test_older_files_without_type_unit_or_currency(region: str, partition: str, currency: str) -> None:
    """An older file names no discountedInstanceType, unit or currency: the
    type comes from the usage type and the currency from the partition."""
    text = io.StringIO()
    write_plan_file(text, replace(fixture_spec(region), legacy=True))
    body = text.getvalue().encode()
    assert '"currency"' not in text.getvalue() and '"discountedInstanceType"' not in text.getvalue()
    quotes = normalize(items(body, region, partition)).quotes
    current = normalize(items(plan_body(region), region, partition)).quotes
    assert {q.currency for q in quotes} == {currency}
    assert sorted((q.key, q.price) for q in quotes) == sorted((q.key, q.price) for q in current)
    nowhere = items(body, region, partition)[:1]
    nowhere[0].pop("partition")
    with pytest.raises(NormalizeError, match=r"savings plan \w+ \(" + region + r"\), \S+: the rate names no currency"):
        normalize(nowhere)


def test_plan_index() -> None:
    found = entry("/savingsPlan/v1.0/cn/AWSComputeSavingsPlan/current/region_index.json")
    files = parse_plan_index(found["response"]["content"]["text"].encode(), found["request"]["url"])
    assert files == {
        r: f"https://pricing.cn-north-1.amazonaws.com.cn/savingsPlan/v1.0/cn/AWSComputeSavingsPlan/"
        f"20260801000000/{r}/index.json"
        for r in ("cn-north-1", "cn-northwest-1")
    }


@pytest.mark.parametrize(
    "text, reason",
    [
        (b'{"regions": [', "not valid JSON"),
        (b'{"regions": {"us-east-1": {"regionCode": "us-east-1", "currentVersionUrl": "/x"}}}', "no regions list"),
        (b'{"regions": [{"regionCode": "us-east-1"}]}', "versionUrl missing in 1/1"),
    ],
)
def test_changed_plan_indexes_fail_loudly(text: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_plan_index(text, "https://pricing.us-east-1.amazonaws.com/x/region_index.json")


PRODUCT = '{"sku": "A", "productFamily": "ComputeSavingsPlans", "attributes": {}}'
RATE = (
    '{"discountedUsageType": "BoxUsage:p5.48xlarge", "discountedOperation": "RunInstances", '
    '"discountedServiceCode": "AmazonEC2", "discountedRate": {"price": "1", "currency": "USD"}}'
)


@pytest.mark.parametrize(
    "text, reason",
    [
        ('{"products": [' + PRODUCT, "not valid JSON"),
        ('{"version": "1", "terms": {"savingsPlan": []}}', "no products list"),
        ('{"products": []}', r"no terms.savingsPlan list"),
        ('{"products": [], "terms": {"OnDemand": {}}}', r"no terms.savingsPlan list"),
        ('{"terms": {"savingsPlan": []}, "products": []}', "terms before products"),
        ('{"products": {"A": {}}, "terms": {"savingsPlan": []}}', "products in the savings plan file is not a list"),
        (
            '{"products": [' + PRODUCT + '], "terms": {"savingsPlan": [{"sku": "B", "rates": []}]}}',
            "the savings plan term of B names no product",
        ),
        (
            '{"products": [' + PRODUCT + '], "terms": {"savingsPlan": [{"rates": []}]}}',
            "a savings plan term has no sku",
        ),
        ('{"products": [' + PRODUCT + '], "terms": {"savingsPlan": [{"sku": "A", "rates": {}}]}}', "rates in the"),
        (
            '{"products": [' + PRODUCT + '], "terms": {"savingsPlan": [{"sku": "A", "rates": [' + RATE + "]}, "
            '{"sku": "A", "rates": []}]}}',
            "lists the term of A twice",
        ),
        (
            '{"products": [' + PRODUCT + '], "terms": {"savingsPlan": [{"sku": "A", "rates": ["x"]}]}}',
            "a savings plan rate is not an object",
        ),
        ("[]", "not a JSON object"),
    ],
)
def test_changed_plan_files_fail_loudly(text: str, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        plan_subset(io.BytesIO(text.encode()), KEEP)


def test_a_rate_without_its_price_fails_loudly() -> None:
    body = (
        '{"products": ['
        + PRODUCT
        + '], "terms": {"savingsPlan": [{"sku": "A", "rates": ['
        + RATE.replace('"discountedRate": {"price": "1", "currency": "USD"}', '"discountedRate": "1"')
        + "]}]}}"
    )
    with pytest.raises(PageShapeError, match="a rate of savings plan A has no discountedRate"):
        parse_plan_file(body.encode(), KEEP)


def _edited(edit) -> list[Any]:
    found = items(plan_body("us-east-1"), "us-east-1")
    plan = next(i for i in found if i["data"]["productFamily"] == "ComputeSavingsPlans")
    edit(plan["data"])
    return [plan]


def _rate(edit):
    return lambda record: edit(next(r for r in record["rates"] if r["discountedInstanceType"] == "p5.48xlarge"))


@pytest.mark.parametrize(
    "edit, reason",
    [
        (
            lambda p: p["attributes"].update(purchaseOption="Heavy Utilization"),
            "unknown savings plan 'ComputeSavingsPlans'",
        ),
        (lambda p: p.update(productFamily="DatabaseSavingsPlans"), "unknown savings plan 'DatabaseSavingsPlans'"),
        (
            lambda p: p["attributes"].update(purchaseTerm="3yr"),
            "purchaseTerm '3yr' and leaseContractLength '1yr' differ",
        ),
        (
            lambda p: p.update(
                leaseContractLength={"duration": 5, "unit": "year"},
                attributes={**p["attributes"], "purchaseTerm": None},
            ),
            "unknown savings plan term '5yr'",
        ),
        (_rate(lambda r: r.update(unit="Quantity")), r"p5.48xlarge: unknown rate unit 'Quantity'"),
        (
            _rate(lambda r: r["discountedRate"].update(price="-1")),
            r"p5.48xlarge: savings plan rate '-1' is not a positive",
        ),
        (
            _rate(lambda r: r["discountedRate"].update(price="n/a")),
            r"p5.48xlarge: savings plan rate 'n/a' is not a number",
        ),
        (
            _rate(lambda r: r.update(discountedInstanceType="p5.4xlarge")),
            "names instance type 'p5.4xlarge' for usage type",
        ),
        (_rate(lambda r: r.update(discountedOperation="RunInstances:9999")), "unknown operation 'RunInstances:9999'"),
    ],
)
def test_unreadable_plans_are_errors_naming_the_sku(edit, reason: str) -> None:
    broken = _edited(edit)
    with pytest.raises(NormalizeError, match=rf"savings plan {broken[0]['data']['sku']} \(us-east-1\).*{reason}"):
        normalize(broken)


def test_a_rate_listed_twice_must_agree() -> None:
    plan = _edited(lambda p: None)[0]
    twice = json.loads(json.dumps(plan))
    twice["data"]["sku"] = "OTHERSKU"
    assert len(normalize([plan, twice]).quotes) == len(normalize([plan]).quotes)
    twice["data"]["rates"][0]["discountedRate"]["price"] = "99"
    with pytest.raises(NormalizeError, match=r"has two compute_.* rates"):
        normalize([plan, twice])


def test_an_unknown_gpu_type_is_stored_and_noted() -> None:
    plan = _edited(
        _rate(lambda r: r.update(discountedUsageType="BoxUsage:p9.96xlarge", discountedInstanceType="p9.96xlarge"))
    )
    out = normalize(plan)
    assert any(q.instance_type == "p9.96xlarge" and q.gpu_model is None for q in out.quotes)
    assert any("p9.96xlarge" in n and "gpu_specs/aws.csv" in n for n in out.notes)


def test_live_download_streams_and_cuts_the_plan_file() -> None:
    from tests.helpers.localserver import Reply, serve

    packed = gzip.compress(plan_body("us-east-1"))
    middleware = OfferStreamMiddleware(timeout=10, user_agent="gpu-tracker-test")
    cut = partial(plan_subset_body, keep=KEEP)
    with serve(
        lambda request: Reply(200, packed, {"Content-Type": "application/json", "Content-Encoding": "gzip"})
    ) as (base, received):
        status, _, body = middleware.fetch(f"{base}/savingsPlan/v1.0/aws/x/us-east-1/index.json", cut)
    assert status == 200 and received[0].headers["Accept-Encoding"] == "gzip"
    assert parse_plan_file(body, KEEP) == parse_plan_file(plan_body("us-east-1"), KEEP)


def _serve_bulk_files(request: Any) -> Any:
    from tests.helpers.localserver import Reply

    gzipped = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    if request.path.endswith("AmazonEC2/current/region_index.json"):
        return Reply(200, entry("/offers/v1.0/aws/AmazonEC2/current/")["response"]["content"]["text"].encode())
    if request.path.endswith("AWSComputeSavingsPlan/current/region_index.json"):
        return Reply(
            200, entry("/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/")["response"]["content"]["text"].encode()
        )
    if request.path.endswith("/AmazonEC2/20260801000000/us-east-1/index.json"):
        return Reply(
            200,
            gzip.compress(entry("/AmazonEC2/20260801000000/us-east-1/")["response"]["content"]["text"].encode()),
            gzipped,
        )
    if request.path.endswith("/AWSComputeSavingsPlan/20260801000000/us-east-1/index.json"):
        return Reply(200, gzip.compress(plan_body("us-east-1")), gzipped)
    return Reply(404, b"NoSuchKey")


def test_live_crawl_streams_plan_files_records_the_cut_and_replays(tmp_path: Path) -> None:
    """A real Scrapy crawl against 127.0.0.1: offer and plan files arrive
    gzipped and are cut while they stream; the capture holds only the cut."""
    from spiders.aws.reserved import PLAN_INDEX
    from tests.helpers.localserver import serve
    from tracker.run.crawl import CrawlRequest, run_crawl
    from tracker.sources import SOURCES

    with serve(_serve_bulk_files) as (base, received):
        args = {
            "offer_index_url": f"{base}/offers/v1.0/aws/AmazonEC2/current/region_index.json",
            "savings_plan_index_url": f"{base}/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json",
        }
        record = tmp_path / "recorded.har"
        result = run_crawl(
            CrawlRequest(
                source=SOURCES["aws-reserved"],
                out_dir=tmp_path / "live",
                regions=["us-east-1"],
                record=record,
                spider_args=args,
                timeout=120,
            )
        )
    assert result.error is None, result.error
    plans = [i for i in result.items if i["kind"] == "aws.savings_plan"]
    assert len(plans) == 6 + 5 * 6 and {i["partition"] for i in plans} == {"aws"}
    assert len([i for i in result.items if i["kind"] == "aws.offer_product"]) == 10
    assert PLAN_INDEX not in {r.path for r in received}
    cut = next(
        e
        for e in read_har(record)["log"]["entries"]
        if e["request"]["url"].endswith("/AWSComputeSavingsPlan/20260801000000/us-east-1/index.json")
    )
    assert len(cut["response"]["content"]["text"]) < len(plan_body("us-east-1")) / 10
    assert parse_plan_file(cut["response"]["content"]["text"].encode(), KEEP) == parse_plan_file(
        plan_body("us-east-1"), KEEP
    )

    replayed = run_crawl(
        CrawlRequest(
            source=SOURCES["aws-reserved"],
            out_dir=tmp_path / "replay",
            regions=["us-east-1"],
            replay=record,
            spider_args=args,
        )
    )
    assert replayed.error is None, replayed.error
    assert sorted(json.dumps(i["data"], sort_keys=True) for i in replayed.items) == sorted(
        json.dumps(i["data"], sort_keys=True) for i in result.items
    )


def test_replay_through_the_cli_lists_savings_plans(cli) -> None:
    result = cli("crawl", "aws-reserved", "-r", "us-east-1", "-r", "cn-north-1", "--replay", str(CAPTURE))
    assert result.code == 0, result.err
    rows = json.loads(cli("prices", "--gpu", "H100", "--format", "json").out)
    plans = [r for r in rows if r["price_model"] == "savings_plan"]
    assert {r["payment_option"] for r in plans} == {
        f"{plan}_{option}"
        for plan in ("compute", "ec2_instance")
        for option in ("no_upfront", "partial_upfront", "all_upfront")
    }
    assert len(plans) == 6 * 2 * 2 and {r["instance_type"] for r in plans} == {"p5.48xlarge"}
    row = next(r for r in plans if (r["payment_option"], r["term"], r["os"]) == ("compute_no_upfront", "1yr", "linux"))
    assert (row["price"], row["unit"], row["upfront_fee"], row["currency"]) == ("39.6288", "hour", None, "USD")
    assert Decimal(row["hourly_price"]) == Decimal("39.6288")
    assert Decimal(row["price_per_gpu_hour"]) == Decimal("4.9536")
    china = json.loads(cli("prices", "--gpu", "A100", "--price-model", "savings_plan", "--format", "json").out)
    assert {(r["region"], r["currency"]) for r in china} == {("us-east-1", "USD"), ("cn-north-1", "CNY")}


def test_compare_and_tco_count_savings_plans_as_commitments(cli) -> None:
    assert cli("crawl", "aws-reserved", "-r", "us-east-1", "--replay", str(CAPTURE)).code == 0
    ranked = json.loads(cli("compare", "--gpu", "H100", "--count", "8", "--format", "json").out)
    cheapest = ranked[0]
    assert (cheapest["price_model"], cheapest["term"], cheapest["payment_option"]) == (
        "savings_plan",
        "3yr",
        "ec2_instance_all_upfront",
    )
    assert Decimal(cheapest["three_year_total"]) == (Decimal(cheapest["price"]) * 26280).quantize(Decimal("0.01"))
    assert {"savings_plan", "reserved"} == {r["price_model"] for r in ranked}
    tco = cli("tco", "--gpu", "H100", "--count", "8", "--mix", "reserved_3yr=1", "--months", "36", "--format", "json")
    assert tco.code == 0, tco.err
    (only,) = json.loads(tco.out)
    # The 3-year commitment is the cheaper of the reservations and the plans.
    assert Decimal(only["compute"]) == (Decimal(cheapest["price"]) * 26280).quantize(Decimal("0.01"))


def test_the_demo_captures_show_one_savings_plan_change(cli) -> None:
    captures = [c for s, c in demo_captures() if s == "aws-reserved"]
    assert [c.name[:10] for c in captures] == ["2026-08-06", "2026-09-06"]
    for capture in captures:
        result = cli("crawl", "aws-reserved", "-r", "us-east-1", "-r", "cn-north-1", "--replay", str(capture))
        assert result.code == 0, result.err
    changes = json.loads(cli("changes", "--format", "json").out)
    plans = [
        (c["kind"], c["instance_type"], c["os"], c["term"], c["payment_option"], c["old_price"], c["new_price"])
        for c in changes
        if c["price_model"] == "savings_plan"
    ]
    assert plans == [("price_drop", "p5.48xlarge", "linux", "1yr", "compute_no_upfront", "39.6288", "36.4585")]


def test_savings_plans_can_be_turned_off(cli, home: Path) -> None:
    (home / "config.toml").write_text("[providers.aws]\nsavings_plans = false\n")
    result = cli("crawl", "aws-reserved", "-r", "us-east-1", "--replay", str(CAPTURE), "--format", "json")
    assert result.code == 0, result.err
    models = {r["price_model"] for r in json.loads(cli("prices", "--provider", "aws", "--format", "json").out)}
    assert models == {"reserved"}


def test_a_region_missing_from_the_plan_index_fails_clearly(cli) -> None:
    from spiders.har import write_har

    # A capture whose plan index lists only us-west-2 and eu-west-1.
    data = read_har(CAPTURE)
    for e in data["log"]["entries"]:
        if e["request"]["url"].endswith("/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json"):
            page = json.loads(e["response"]["content"]["text"])
            page["regions"] = [r for r in page["regions"] if r["regionCode"] != "us-east-1"]
            e["response"]["content"]["text"] = json.dumps(page)
    narrowed = Path(cli.home) / "narrowed.har"
    write_har(narrowed, data["log"]["entries"])
    bad = cli("crawl", "aws-reserved", "-r", "us-east-1", "--replay", str(narrowed))
    assert bad.code == 1 and "Traceback" not in bad.err
    assert "unknown AWS region 'us-east-1' in the savings plan index" in bad.err
    assert "it lists: eu-west-1, us-west-2" in bad.err
