"""AWS on demand and spot: page objects and the normalizer on the fixture
captures (a full us-east-1 Linux table of 1,322 rows, the spot feed, the
Spot Instance Advisor data)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.aws.pages import (
    parse_locations,
    parse_metadata,
    parse_ondemand_page,
    parse_spot_advisor,
    parse_spot_feed,
    unwrap_callback,
)
from spiders.har import read_har
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import from_jsonl
from tracker.normalize import NormalizeError
from tracker.normalize.providers.aws import normalize, os_slug, unknown_gpu_notes
from tracker.normalize.specs import load_specs, spec_table

FIXTURES = Path(__file__).parents[1] / "fixtures" / "aws"
EARLY = DEMO_CAPTURES / "aws" / "2026-08-06-us-east-1.har.gz"
THREE = FIXTURES / "aws-3-regions-2026-08-06.har"
US = "US East (N. Virginia)"
GPU_TYPE = re.compile(r"^(p|g|gr)\d")


def entries(path: Path = EARLY) -> dict[str, dict]:
    return {e["request"]["url"]: e for e in read_har(path)["log"]["entries"]}


def body(entry: dict) -> bytes:
    return entry["response"]["content"]["text"].encode()


def find(path: Path, part: str) -> dict:
    return next(e for url, e in entries(path).items() if part in url)


def raw_items(path: Path = EARLY, region: str = "us-east-1") -> list[Any]:
    """What the spider yields, built with the same page objects."""
    items = []
    for url, entry in entries(path).items():
        base = {"observed_at": entry["startedDateTime"], "source_url": url}
        if "/ec2-ondemand-without-sec-sel/US%20East" in url:
            os_name = url.split("/")[-2]
            manifest, rows = parse_ondemand_page(body(entry), US)
            items += [
                {
                    **base,
                    "kind": "aws.ondemand",
                    "region": "us-east-1",
                    "os": os_name,
                    "currency": manifest["currencyCode"],
                    "data": r,
                }
                for r in rows
            ]
        elif url.endswith("spot.json"):
            items += [
                {**base, "kind": "aws.spot", "data": r} for r in parse_spot_feed(body(entry)) if r["region"] == region
            ]
        elif url.endswith("spot-advisor-data.json"):
            items += [
                {**base, "kind": "aws.spot_advisor", "data": r}
                for r in parse_spot_advisor(body(entry))
                if r["region"] == region
            ]
    return items


def linux_rows() -> dict:
    return json.loads(body(find(EARLY, "/Linux/index.json")))["regions"][US]


def test_the_full_capture_is_the_real_shape() -> None:
    rows = linux_rows()
    assert len(rows) == 1322
    assert {"rateCode", "price", "Instance Type", "vCPU", "Memory", "Network Performance"} <= set(
        next(iter(rows.values()))
    )


def test_every_gpu_row_becomes_a_quote_with_the_exact_price() -> None:
    gpu_rows = {r["Instance Type"]: r for r in linux_rows().values() if GPU_TYPE.match(r["Instance Type"])}
    assert len(gpu_rows) == 79
    quotes = {
        q.instance_type: q for q in normalize(raw_items()).quotes if q.price_model == "on_demand" and q.os == "linux"
    }
    assert set(quotes) == set(gpu_rows)
    table = spec_table("aws")
    for instance_type, row in gpu_rows.items():
        quote = quotes[instance_type]
        assert quote.price == Decimal(row["price"]) and str(quote.price) == row["price"]
        assert (quote.currency, quote.unit, quote.region) == ("USD", "hour", "us-east-1")
        spec = table[instance_type]
        assert (quote.gpu_model, quote.gpu_count) == (spec.gpu_model, spec.gpu_count)


@pytest.mark.parametrize(
    "instance_type, model, count, memory, vcpu, interconnect, network",
    [
        ("p4d.24xlarge", "A100 40GB", "8", "320", "96", "NVLink 3 via NVSwitch 2 (600 GB/s)", "400"),
        ("p4de.24xlarge", "A100 80GB", "8", "640", "96", "NVLink 3 via NVSwitch 2 (600 GB/s)", "400"),
        ("p5.48xlarge", "H100", "8", "640", "192", "NVLink 4 via NVSwitch 3 (900 GB/s)", "3200"),
        ("p5.4xlarge", "H100", "1", "80", "16", "PCIe", "100"),
        ("p5en.48xlarge", "H200", "8", "1128", "192", "NVLink 4 via NVSwitch 3 (900 GB/s)", "3200"),
        ("p6-b200.48xlarge", "B200", "8", "1432", "192", "NVLink 5 via NVSwitch 4 (1800 GB/s)", "3200"),
        ("p6-b300.48xlarge", "B300", "8", "2144", "192", "NVLink 5 via NVSwitch 4 (1800 GB/s)", "6400"),
        ("g7e.2xlarge", "RTX PRO 6000", "1", "96", "8", "PCIe", "50"),
        ("g7e.48xlarge", "RTX PRO 6000", "8", "768", "192", "PCIe", "1600"),
        ("g7.8xlarge", "RTX PRO 4500", "1", "32", "32", "PCIe", "100"),
        ("g7.48xlarge", "RTX PRO 4500", "8", "256", "192", "PCIe", "700"),
        ("p3dn.24xlarge", "V100 32GB", "8", "256", "96", "NVLink 2 (300 GB/s)", "100"),
        ("p3.2xlarge", "V100", "1", "16", "8", "PCIe", "10"),
        ("g4dn.xlarge", "T4", "1", "16", "4", "PCIe", "25"),
        ("g5.48xlarge", "A10G", "8", "192", "192", "PCIe", "100"),
        ("g6.xlarge", "L4", "1", "24", "4", "PCIe", "10"),
        ("g6e.48xlarge", "L40S", "8", "384", "192", "PCIe", "400"),
        ("gr6.4xlarge", "L4", "1", "24", "16", "PCIe", "25"),
        ("g6f.large", "L4", "0.125", "3", "2", "PCIe", "10"),
        ("g6f.4xlarge", "L4", "0.5", "12", "16", "PCIe", "25"),
    ],
)
def test_gpu_fields(instance_type, model, count, memory, vcpu, interconnect, network) -> None:
    quote = next(
        q
        for q in normalize(raw_items()).quotes
        if q.instance_type == instance_type and q.price_model == "on_demand" and q.os == "linux"
    )
    assert (
        quote.gpu_model,
        quote.gpu_count,
        quote.gpu_memory_gb,
        quote.vcpu,
        quote.gpu_interconnect,
        quote.network_gbps,
    ) == (model, Decimal(count), Decimal(memory), Decimal(vcpu), interconnect, Decimal(network))


# Cells AWS does not publish as a figure: (instance type, column) -> why.
UNPUBLISHED = {
    ("p2.xlarge", "network_gbps"): "AWS rates its network 'High', with no Gbps figure",
}


def test_spec_table_is_complete() -> None:
    """Every row has the issue's fields (model, count, GPU memory, vCPU,
    RAM, interconnect, network), but for the allow-listed cells, which
    must really be empty."""
    table = spec_table("aws")
    assert len(table) == 80
    gaps = {(spec.instance_type, column) for spec in table.values() for column in spec.missing()}
    assert gaps == set(UNPUBLISHED)
    assert all(table[t].fractional for t in ("g6f.large", "g6f.xlarge", "g6f.2xlarge", "g6f.4xlarge", "gr6f.4xlarge"))


def test_every_known_gpu_quote_has_a_per_gpu_hour_price() -> None:
    out = normalize(raw_items())
    assert not [n for n in out.notes if "without a GPU count" in n]
    on_demand = [q for q in out.quotes if q.price_model == "on_demand"]
    assert on_demand and all(q.per_gpu_hour() is not None for q in on_demand)
    g7e = next(q for q in on_demand if q.instance_type == "g7e.48xlarge" and q.os == "linux")
    assert g7e.per_gpu_hour() == Decimal("41.1200000000") / 8


def test_a_known_type_without_a_gpu_count_is_reported(tmp_path: Path) -> None:
    csv = tmp_path / "aws.csv"
    csv.write_text(
        "instance_type,gpu_model,gpu_count,gpu_memory_gb,vcpu,memory_gb,gpu_interconnect,network_gbps\n"
        "g7.4xlarge,RTX PRO 4500,,,16,,PCIe,\np5.48xlarge,H100,8,640,192,2048,PCIe,3200\n"
    )
    notes = unknown_gpu_notes(["g7.4xlarge", "p5.48xlarge", "g9x.xlarge", "g7.4xlarge"], load_specs(csv))
    assert notes == [
        "aws: g9x.xlarge looks like a GPU instance but is not in gpu_specs/aws.csv; stored without GPU fields",
        "aws: g7.4xlarge is in gpu_specs/aws.csv without a GPU count; stored without a per-GPU-hour price",
    ]


def test_fractional_gpu_per_gpu_hour() -> None:
    quote = next(
        q
        for q in normalize(raw_items()).quotes
        if q.instance_type == "g6f.large" and q.os == "linux" and q.price_model == "on_demand"
    )
    assert quote.per_gpu_hour() == quote.price * 8


def test_non_gpu_accelerators_and_cpu_types_are_left_out() -> None:
    kept = {q.instance_type.split(".")[0] for q in normalize(raw_items()).quotes}
    assert not kept & {"inf2", "trn1", "f1", "dl1", "vt1", "m5", "c7i", "u-3tb1"}


def test_windows_table_and_os_names() -> None:
    quotes = normalize(raw_items()).quotes
    windows = [q for q in quotes if q.os == "windows" and q.price_model == "on_demand"]
    assert windows and not [q for q in windows if q.instance_type.startswith("g5g")]
    assert os_slug("Windows with SQL Std") == "windows+sql-std"
    assert os_slug("Red Hat Enterprise Linux with HA") == "red-hat-enterprise-linux+ha"


def test_spot_quotes_dedupe_and_carry_interruption() -> None:
    feed = parse_spot_feed(body(find(EARLY, "spot.json")))
    listed = [r for r in feed if r["region"] == "us-east-1" and r["size"] == "g6.12xlarge" and r["os"] == "linux"]
    assert len(listed) == 2  # the real feed lists some sizes twice
    quotes = normalize(raw_items()).quotes
    assert len({q.key for q in quotes}) == len(quotes)
    spot = {(q.instance_type, q.os): q for q in quotes if q.price_model == "spot"}
    assert spot[("g6.12xlarge", "linux")].price == Decimal("2.8466")
    p5 = spot[("p5.48xlarge", "linux")]
    assert (p5.price, p5.attrs["interruption"], p5.gpu_model) == (Decimal("20.738"), "<5%", "H100")
    assert spot[("p4d.24xlarge", "linux")].attrs == {"interruption": ">20%", "spot_savings_percent": "14"}
    assert ("p4d.24xlarge", "windows") not in spot  # "N/A*": not offered


def test_conflicting_duplicates_keep_the_higher_price_and_say_so() -> None:
    base = {"kind": "aws.spot", "observed_at": "2026-08-06T06:00:00Z", "source_url": "https://x/spot.json"}
    items = [
        {**base, "data": {"region": "us-east-1", "group": "gpu", "size": "g5.xlarge", "os": "linux", "price": price}}
        for price in ("0.51", "0.55", "0.51")
    ]
    for order in (items, items[::-1]):
        out = normalize(from_jsonl(order))
        assert [q.price for q in out.quotes] == [Decimal("0.55")]
        assert out.notes == [
            "aws: spot feed lists g5.xlarge (linux) in us-east-1 twice with different prices; kept the higher, 0.55"
        ]


def test_unknown_gpu_family_is_reported_not_dropped() -> None:
    item = {
        "kind": "aws.ondemand",
        "observed_at": "2026-08-06T06:00:00Z",
        "source_url": "u",
        "region": "us-east-1",
        "os": "Linux",
        "currency": "USD",
        "data": {
            "Instance Type": "g9x.xlarge",
            "price": "1.2300000000",
            "vCPU": "4",
            "Memory": "16 GiB",
            "Network Performance": "Up to 25 Gigabit",
            "Location": US,
        },
    }
    out = normalize(from_jsonl([item]))
    (quote,) = out.quotes
    assert (quote.instance_type, quote.gpu_model, quote.vcpu, quote.memory_gb, quote.network_gbps) == (
        "g9x.xlarge",
        None,
        Decimal(4),
        Decimal(16),
        Decimal(25),
    )
    assert out.notes == [
        "aws: g9x.xlarge looks like a GPU instance but is not in gpu_specs/aws.csv; stored without GPU fields"
    ]


def test_spot_feed_in_a_callback() -> None:
    wrapped = body(find(THREE, "spot.json"))
    assert wrapped.startswith(b"callback(")
    assert unwrap_callback(wrapped).startswith(b"{")
    regions = {r["region"] for r in parse_spot_feed(wrapped)}
    assert regions == {"us-east-1", "eu-west-1", "ap-northeast-1"}


def test_locations_and_metadata() -> None:
    locations = parse_locations(body(find(EARLY, "locations.json")))
    by_code = {loc["code"]: loc for loc in locations}
    assert by_code["us-east-1"] == {"name": US, "code": "us-east-1", "type": "AWS Region"}
    priced, systems = parse_metadata(body(find(EARLY, "metadata.json")))
    assert US in priced and {"Linux", "Windows", "RHEL", "SUSE"} <= set(systems)


@pytest.mark.parametrize(
    "parse, text, reason",
    [
        (lambda b: parse_ondemand_page(b, US), b'{"regions": {', "not valid JSON"),
        (lambda b: parse_ondemand_page(b, US), b'{"manifest": {"currencyCode": "USD"}}', "no regions object"),
        (lambda b: parse_ondemand_page(b, US), b'{"regions": {}}', "no manifest currencyCode"),
        (
            lambda b: parse_ondemand_page(b, US),
            b'{"manifest": {"currencyCode": "USD"}, "regions": {"US East (N. Virginia)": {"k": {"Instance Type": "p5.48xlarge"}}}}',
            "missing in 1/1 rows",
        ),
        (parse_spot_feed, b'callback({"config": {}});', "no config.regions"),
        (
            parse_spot_feed,
            b'{"config": {"regions": [{"region": "us-east-1", "instanceTypes": [{"sizes": [{"size": "g5.xlarge"}]}]}]}}',
            "lacks 'valueColumns'",
        ),
        (parse_spot_advisor, b'{"ranges": []}', "no ranges or spot_advisor"),
        (
            parse_spot_advisor,
            b'{"ranges": [{"index": 0, "label": "<5%"}], "spot_advisor": {"us-east-1": {"Linux": {"g5.xlarge": {"r": 7}}}}}',
            "unknown interruption range 7",
        ),
        (parse_locations, b'{"US East (N. Virginia)": {"name": "x"}}', "code or type missing in 1/1"),
        (parse_metadata, b'{"valueAttributes": {"Location": []}}', "no Location or plc:OperatingSystem"),
    ],
)
def test_changed_shapes_fail_loudly(parse, text: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=re.escape(reason)):
        parse(text)


@pytest.mark.parametrize(
    "price, reason", [("", "is not a number"), ("0.0000000000", "not a positive amount"), ("abc", "is not a number")]
)
def test_bad_prices_are_errors(price: str, reason: str) -> None:
    item = {
        "kind": "aws.ondemand",
        "observed_at": "2026-08-06T06:00:00Z",
        "source_url": "u",
        "region": "us-east-1",
        "os": "Linux",
        "currency": "USD",
        "data": {"Instance Type": "p5.48xlarge", "price": price},
    }
    with pytest.raises(NormalizeError, match=reason):
        normalize(from_jsonl([item]))
