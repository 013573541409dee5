"""Azure end to end through the CLI: replay captures into a store on each
back end, and check what the store and the change log say. The replays a
test starts from run once per worker (`replayed`, tests/helpers/replayed.py);
its own crawls run in the test."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import shifted

# Its tests share the stores `replayed` makes once per worker.
pytestmark = pytest.mark.xdist_group("spiders-replay")

EARLY = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"
LATE = DEMO_CAPTURES / "azure" / "2026-09-03-westeurope.har.gz"


def crawl(har: Path) -> tuple[str, ...]:
    return ("crawl", "azure", "--region", "westeurope", "--replay", str(har), "--format", "json")


def replay(cli, har: Path):
    return cli(*crawl(har))


def test_replays_build_history_and_report_exact_changes(cli, replayed) -> None:
    (first,) = replayed(crawl(EARLY))
    assert first.code == 0, first.err
    assert json.loads(first.out) == []  # a baseline announces nothing
    prices = json.loads(cli("prices", "--format", "json").out)
    assert len(prices) == 614
    assert {p["provider"] for p in prices} == {"azure"}

    second = replay(cli, LATE)
    assert second.code == 0, second.err
    changes = json.loads(second.out)
    got = sorted(
        (c["kind"], c["instance_type"], c["os"], c["price_model"], c["old_price"], c["new_price"]) for c in changes
    )
    assert got == [
        ("new_sku", "Standard_ND96isr_H200_v5", "linux", "on_demand", None, "110.24"),
        ("price_drop", "Standard_ND96amsr_A100_v4", "linux", "on_demand", "40.962", "36.8658"),
        ("price_increase", "Standard_NC24ads_A100_v4", "linux", "spot", "1.097295", "1.26189"),
    ]
    drop = next(c for c in changes if c["kind"] == "price_drop")
    assert drop["percent"] == "-10.00" and drop["currency"] == "USD"
    assert drop["observed_at"] == "2026-09-03T06:00:00Z"
    assert set(drop) >= {
        "kind",
        "provider",
        "region",
        "instance_type",
        "os",
        "price_model",
        "term",
        "old_price",
        "new_price",
        "percent",
        "currency",
        "observed_at",
    }

    history = json.loads(
        cli("history", "Standard_ND96amsr_A100_v4", "--price-model", "on_demand", "--format", "json").out
    )
    linux = [h for h in history if h["os"] == "linux"]
    assert [(h["price"], h["valid_from"], h["valid_to"]) for h in linux] == [
        ("40.962", "2026-08-03T06:00:00Z", "2026-09-03T06:00:00Z"),
        ("36.8658", "2026-09-03T06:00:00Z", None),
    ]


def test_same_capture_twice_writes_nothing(cli, replayed) -> None:
    assert [r.code for r in replayed(crawl(EARLY), crawl(LATE))] == [0, 0]
    again = replay(cli, LATE)
    assert again.code == 0 and json.loads(again.out) == []
    runs = json.loads(cli("runs", "--format", "json").out)
    assert runs[0]["rows_written"] == 0 and runs[0]["changes"] == 0 and runs[0]["status"] == "ok"


def test_removal_needs_two_complete_runs(cli, replayed, tmp_path: Path) -> None:
    early, late_run = replayed(crawl(EARLY), crawl(LATE))
    assert early.code == 0 and late_run.code == 0
    late = json.loads(late_run.out)
    assert not [c for c in late if c["kind"] == "sku_removed"]
    later = shifted(LATE, tmp_path / "later.har", datetime(2026, 10, 3, 6, tzinfo=UTC))
    removed = json.loads(replay(cli, later).out)
    assert sorted((c["kind"], c["instance_type"], c["price_model"], c["os"]) for c in removed) == [
        ("sku_removed", "Standard_NV6", "on_demand", "linux"),
        ("sku_removed", "Standard_NV6", "on_demand", "windows"),
    ]
    assert not json.loads(cli("prices", "--instance-type", "Standard_NV6", "--format", "json").out)


def test_older_capture_after_newer_is_refused(cli) -> None:
    assert replay(cli, LATE).code == 0
    old = replay(cli, EARLY)
    assert old.code == 1
    assert "older than the last run" in old.err and "Traceback" not in old.err
    assert json.loads(cli("changes", "--format", "json").out) == []


def test_prices_json_contract(cli, replayed) -> None:
    assert replayed(crawl(EARLY))[0].code == 0
    rows = json.loads(cli("prices", "--gpu", "a100", "--price-model", "reserved", "--format", "json").out)
    assert rows and all(r["gpu_model"].startswith("A100") for r in rows)
    row = next(r for r in rows if r["instance_type"] == "Standard_ND96amsr_A100_v4" and r["term"] == "1yr")
    assert row["unit"] == "term"
    assert Decimal(row["hourly_price"]) == (Decimal(row["price"]) / 8760).quantize(Decimal("0.000001"))
    assert Decimal(row["price_per_gpu_hour"]) == (Decimal(row["price"]) / 8760 / 8).quantize(Decimal("0.000001"))
    for key in (
        "provider",
        "region",
        "zone",
        "instance_type",
        "gpu_model",
        "gpu_count",
        "gpu_memory_gb",
        "vcpu",
        "memory_gb",
        "os",
        "price_model",
        "term",
        "payment_option",
        "price",
        "currency",
        "unit",
        "list_price",
        "source_url",
        "observed_at",
    ):
        assert key in row
    assert all(isinstance(v, (str, type(None))) for k, v in row.items())
