"""AWS end to end through the CLI, on SQLite and PostgreSQL: replayed
captures, the exact changes between two dates, and broken sources."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from benchmarks.providers.aws_pricing_pages import all_regions_entries, factor, priced_regions, template
from spiders.har import write_har
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers.harutil import page_json, set_page_json, shifted
from tests.reliability.test_source_faults import one_error_line

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
# The crawls a test starts from run once per worker (`replayed`,
# tests/helpers/replayed.py), shared by the module's tests on one worker.
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.xdist_group("spiders-aws-replay")]

EARLY = DEMO_CAPTURES / "aws" / "2026-08-06-us-east-1.har.gz"
LATE = DEMO_CAPTURES / "aws" / "2026-09-06-us-east-1.har.gz"
THREE = FIXTURES / "aws" / "aws-3-regions-2026-08-06.har"
OS_TABLES = FIXTURES / "aws" / "aws-us-east-1-os-tables-2026-08-06.har"
LINUX_ONLY = '[providers.aws]\noperating_systems = ["Linux"]\n'


def crawl(har: Path, *regions: str) -> tuple[str, ...]:
    flags = [a for r in regions or ("us-east-1",) for a in ("--region", r)]
    return ("crawl", "aws", *flags, "--replay", str(har), "--format", "json")


def replay(cli, har: Path, *regions: str):
    return cli(*crawl(har, *regions))


def test_two_dates_give_exactly_the_expected_changes(cli, replayed) -> None:
    (first,) = replayed(crawl(EARLY))
    assert first.code == 0, first.err
    assert json.loads(first.out) == []
    prices = json.loads(cli("prices", "--provider", "aws", "--format", "json").out)
    on_demand = [p for p in prices if p["price_model"] == "on_demand"]
    assert len([p for p in on_demand if p["os"] == "linux"]) == 79
    assert {p["region"] for p in prices} == {"us-east-1"}

    second = replay(cli, LATE)
    assert second.code == 0, second.err
    got = sorted(
        (c["kind"], c["instance_type"], c["os"], c["price_model"], c["old_price"], c["new_price"])
        for c in json.loads(second.out)
    )
    assert got == [
        ("new_sku", "p5e.48xlarge", "linux", "on_demand", None, "70.5280000000"),
        ("price_drop", "g5.xlarge", "linux", "spot", "0.5179", "0.4822"),
        ("price_drop", "p5.48xlarge", "linux", "on_demand", "55.0400000000", "49.5360000000"),
        ("price_increase", "g6e.xlarge", "linux", "on_demand", "1.8610000000", "1.9541000000"),
    ]
    # The advisor moved p4d's band: a new interval, but no price change.
    # History shows price intervals, so the band move alone is one interval there.
    current = json.loads(
        cli("prices", "--instance-type", "p4d.24xlarge", "--price-model", "spot", "--format", "json").out
    )
    assert [(p["price"], p["attrs"]) for p in current] == [
        ("18.8352", "interruption: 15-20%; spot_savings_percent: 16")
    ]
    history = json.loads(cli("history", "p4d.24xlarge", "--price-model", "spot", "--format", "json").out)
    assert [(h["price"], h["valid_to"] is None) for h in history] == [("18.8352", True)]
    again = replay(cli, LATE)
    assert again.code == 0 and json.loads(again.out) == []


def test_h100_prices_with_per_gpu_hour(cli, replayed) -> None:
    assert replayed(crawl(EARLY))[0].code == 0
    rows = json.loads(cli("prices", "--gpu", "H100", "--format", "json").out)
    p5 = {(r["instance_type"], r["os"], r["price_model"]): r for r in rows}
    row = p5[("p5.48xlarge", "linux", "on_demand")]
    assert (row["price"], row["gpu_count"], row["price_per_gpu_hour"]) == ("55.0400000000", "8", "6.880000")
    assert row["network_gbps"] == "3200" and row["gpu_interconnect"] == "NVLink 4 via NVSwitch 3 (900 GB/s)"
    spot = p5[("p5.48xlarge", "linux", "spot")]
    assert spot["price"] == "20.738" and spot["attrs"] == "interruption: <5%; spot_savings_percent: 62"
    assert p5[("p5.4xlarge", "linux", "on_demand")]["price_per_gpu_hour"] == "6.880000"


def test_spot_prices_per_region(cli, home: Path) -> None:
    (home / "config.toml").write_text(LINUX_ONLY)
    result = replay(cli, THREE, "us-east-1", "eu-west-1", "ap-northeast-1")
    assert result.code == 0, result.err
    rows = json.loads(cli("prices", "--instance-type", "p4d.24xlarge", "--price-model", "spot", "--format", "json").out)
    assert sorted((r["region"], r["os"], r["price"]) for r in rows) == [
        ("ap-northeast-1", "linux", "10.8949"),
        ("eu-west-1", "linux", "17.2818"),
        ("us-east-1", "linux", "18.8352"),
    ]
    g5 = json.loads(cli("prices", "--instance-type", "g5.xlarge", "--format", "json").out)
    assert {(r["region"], r["price_model"]) for r in g5} >= {
        (region, model) for region in ("us-east-1", "eu-west-1", "ap-northeast-1") for model in ("on_demand", "spot")
    }


def make_500(entry: dict) -> None:
    entry["response"]["status"] = 500
    entry["response"]["content"]["text"] = "upstream failure"


def make_truncated(entry: dict) -> None:
    entry["response"]["content"]["text"] = entry["response"]["content"]["text"][:4000]


def make_reshaped(entry: dict) -> None:
    page = page_json(entry)
    page["prices"] = page.pop("regions")
    set_page_json(entry, page)


def make_zero(entry: dict) -> None:
    page = page_json(entry)
    page["regions"]["US East (N. Virginia)"]["p5 48xlarge US East N. Virginia Linux"]["price"] = "0.0000000000"
    set_page_json(entry, page)


def edit_url(part: str, change):
    def edit(i: int, entry: dict) -> None:
        if part in entry["request"]["url"]:
            change(entry)

    return edit


@pytest.mark.parametrize(
    "part, change, message, status",
    [
        ("/Linux/index.json", make_500, "HTTP 500 from https://b0.p.awsstatic.com/", "failed"),
        ("/Windows/index.json", make_truncated, "not valid JSON", "failed"),
        ("/Linux/index.json", make_reshaped, "has no regions object", "failed"),
        ("spot.json", make_truncated, "spot feed is not valid JSON", "failed"),
        ("locations.json", make_500, "HTTP 500", "failed"),
        ("/Linux/index.json", make_zero, "p5.48xlarge in us-east-1 is not a positive amount", "failed"),
    ],
)
def test_broken_source_keeps_the_last_good_data(cli, replayed, tmp_path: Path, part, change, message, status) -> None:
    assert replayed(crawl(EARLY))[0].code == 0
    before = json.loads(cli("prices", "--format", "json").out)
    broken = shifted(EARLY, tmp_path / "broken.har", datetime(2026, 8, 20, tzinfo=UTC), edit_url(part, change))
    assert message in one_error_line(replay(cli, broken))
    assert json.loads(cli("prices", "--format", "json").out) == before
    assert [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)] == ["source_broken"]
    run = json.loads(cli("runs", "--format", "json").out)[0]
    assert run["status"] == status and message in run["error"]


def test_unknown_region_and_os_are_named(cli, home: Path) -> None:
    line = one_error_line(replay(cli, EARLY, "us-middle-9"))
    assert "unknown AWS region 'us-middle-9'" in line and "us-east-1" in line
    (home / "config.toml").write_text('[providers.aws]\noperating_systems = ["Linux", "BeOS"]\n')
    line = one_error_line(replay(cli, EARLY))
    assert "no on-demand prices for operating system 'BeOS'" in line and "Windows" in line


def test_a_new_gpu_family_is_stored_and_reported(cli, tmp_path: Path) -> None:
    def add_family(entry: dict) -> None:
        page = page_json(entry)
        rows = page["regions"]["US East (N. Virginia)"]
        row = dict(
            rows["g6 xlarge US East N. Virginia Linux"], **{"Instance Type": "g9x.xlarge", "price": "1.2300000000"}
        )
        rows["g9x xlarge US East N. Virginia Linux"] = row
        set_page_json(entry, page)

    har = shifted(EARLY, tmp_path / "new.har", datetime(2026, 8, 7, tzinfo=UTC), edit_url("/Linux/", add_family))
    result = replay(cli, har)
    assert result.code == 0, result.err
    assert "g9x.xlarge looks like a GPU instance but is not in gpu_specs/aws.csv" in result.err
    (row,) = json.loads(cli("prices", "--instance-type", "g9x.xlarge", "--format", "json").out)
    assert (row["price"], row["gpu_model"], row["vcpu"]) == ("1.2300000000", None, "4")
    assert Decimal(row["memory_gb"]) == 16


def test_an_all_regions_crawl_stores_every_region(sqlite_cli, tmp_path: Path) -> None:
    """No --region: every AWS Region the metadata prices (36), Linux and
    Windows, through the real URLs. Small tables keep it quick; the full-size
    run is `python -m benchmarks aws`."""
    har = tmp_path / "all-regions.har"
    write_har(har, list(all_regions_entries(datetime(2026, 8, 6, 6, tzinfo=UTC), gpu_rows=5, other_rows=3)))
    regions = priced_regions(template())
    assert len(regions) == 36
    result = sqlite_cli("crawl", "aws", "--replay", str(har), "--format", "json")
    assert result.code == 0, result.err
    rows = json.loads(sqlite_cli("prices", "--provider", "aws", "--format", "json").out)
    on_demand = Counter((r["region"], r["os"]) for r in rows if r["price_model"] == "on_demand")
    assert on_demand == {(code, os): 5 for _, code in regions for os in ("linux", "windows")}
    assert {r["region"] for r in rows if r["price_model"] == "spot"} == {code for _, code in regions}
    # Each region's table is us-east-1's times the factor of its place in the list.
    tokyo = [code for _, code in regions].index("ap-northeast-1")
    g3 = {
        r["region"]: r["price"]
        for r in rows
        if r["instance_type"] == "g3.16xlarge" and r["os"] == "linux" and r["price_model"] == "on_demand"
    }
    assert Decimal(g3["ap-northeast-1"]) == Decimal(g3["us-east-1"]) * factor(tokyo, "ap-northeast-1")
    assert g3["us-east-1"] == "4.5600000000"  # as captured
    (run,) = json.loads(sqlite_cli("runs", "--format", "json").out)
    assert run["status"] == "ok"


def test_other_operating_system_tables_are_an_option(cli, home: Path) -> None:
    """As the README says: `operating_systems` takes the pricing page's names,
    spaces and all."""
    (home / "config.toml").write_text(
        '[providers.aws]\noperating_systems = ["RHEL", "Windows with SQL Std"]\nspot = false\n'
    )
    result = cli("crawl", "aws", "--region", "us-east-1", "--replay", str(OS_TABLES), "--format", "json")
    assert result.code == 0, result.err
    rows = json.loads(cli("prices", "--provider", "aws", "--format", "json").out)
    assert Counter(r["os"] for r in rows) == {"rhel": 79, "windows+sql-std": 79}
    assert {r["price_model"] for r in rows} == {"on_demand"}
    p5 = {r["os"]: r for r in rows if r["instance_type"] == "p5.48xlarge"}
    # Linux 55.04 plus the fixture's fee per vCPU-hour, 192 vCPUs.
    assert p5["rhel"]["price"] == "57.8048000000"
    assert p5["windows+sql-std"]["price"] == "77.0432000000"
    assert p5["rhel"]["price_per_gpu_hour"] == "7.225600"
