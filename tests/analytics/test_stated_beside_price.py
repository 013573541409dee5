"""What a price row states beside its price counts in the totals: the
Local SSD a GCP machine comes with, and a Tencent hourly price tiered by
hours of use. `price` itself stays comparable with every other row.

Expected figures are worked out by hand from the capture's rates:
- GCP a3-megagpu-8g, us-central1, on demand: 208 x 0.026924 + 1872 x
  0.002344 + 8 x 10.344276 = 92.742368 an hour, and 6000 GiB of Local SSD at
  0.08 / 730 a GiB-hour (0.000109589041) = 0.657534246 an hour.
- Tencent GN7.2XLARGE32 on demand, 8.68 CNY an hour in the capture, here
  given steps of 7 (from 96 h) and 6 (from 360 h): 500 h a month for one
  month costs 96 x 8.68 + 264 x 7 + 140 x 6 = 3521.28 CNY.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.helpers.analytics_data import as_json, use_config
from tests.helpers.harutil import page_json, set_page_json, shifted

DEMO = Path(__file__).resolve().parents[2] / "tracker" / "demo_captures"
GCP = DEMO / "gcp" / "2026-08-03-us-central1+us-east4+europe-west4.har.gz"
TENCENT = DEMO / "tencent-api" / "2026-11-02-ap-guangzhou.har.gz"


def test_prices_state_the_bundled_local_ssd(sqlite_cli) -> None:
    assert sqlite_cli("crawl", "gcp", "--replay", str(GCP)).code == 0
    rows = json.loads(sqlite_cli("prices", "--instance-type", "a3-megagpu-8g", "--format", "json").out)
    mega = next(r for r in rows if r["region"] == "us-central1" and r["price_model"] == "on_demand")
    assert (mega["price"], mega["local_ssd_gib"], mega["local_ssd_hourly"]) == ("92.742368", "6000", "0.657534246")
    assert "local_ssd_hourly: 0.657534246" in mega["attrs"] and "local_ssd_gib: 6000" in mega["attrs"]
    wide = sqlite_cli("prices", "--instance-type", "a3-megagpu-8g", "--region", "us-central1", "--wide").out
    assert "6000" in wide and "0.657" in wide  # beside the price, in the table too
    assert "6000" not in sqlite_cli("prices", "--instance-type", "a3-megagpu-8g", "--region", "us-central1").out
    plain = json.loads(sqlite_cli("prices", "--instance-type", "a2-highgpu-1g", "--format", "json").out)
    assert {(r["local_ssd_gib"], r["local_ssd_hourly"]) for r in plain} == {(None, None)}


def test_tco_and_recommend_count_the_bundled_local_ssd(sqlite_cli) -> None:
    assert sqlite_cli("crawl", "gcp", "--replay", str(GCP)).code == 0
    job = ["--gpu", "H100", "--provider", "gcp", "--count", "8", "--hours-per-month", "100", "--months", "1"]
    rows = as_json(sqlite_cli("tco", *job, "--format", "json"))
    mega = next(r for r in rows if r["instance_type"] == "a3-megagpu-8g" and r["region"] == "us-central1")
    # 100 h x (92.742368 + 0.657534246); the price alone would make 9274.24.
    assert mega["compute"] == "9339.99"
    assert mega["on_demand_hourly"] == "93.399902"
    need = ["--gpu", "H100", "--provider", "gcp", "--gpus", "8", "--hours-per-month", "100", "--months", "1"]
    picks = as_json(sqlite_cli("recommend", *need, "--workload", "inference", "--all", "--format", "json"))
    # Each instance type keeps its cheapest region: us-central1's.
    on_demand = next(r for r in picks if r["instance_type"] == "a3-megagpu-8g" and r["mix"] == "on_demand")
    assert (on_demand["region"], on_demand["total"]) == ("us-central1", "9339.99")


def stepped(i: int, entry: dict[str, Any]) -> None:
    """GN7.2XLARGE32's on-demand price, stepped as the SDK model's ItemPrice allows."""
    page = page_json(entry)
    for item in page["Response"]["InstanceTypeQuotaSet"]:
        if item["InstanceType"] == "GN7.2XLARGE32" and item["InstanceChargeType"] == "POSTPAID_BY_HOUR":
            item["Price"].update(UnitPriceSecondStep=7.0, UnitPriceThirdStep=6.0)
    set_page_json(entry, page)


def test_tco_follows_a_step_schedule_for_the_hours_asked(sqlite_cli, home: Path, tmp_path: Path) -> None:
    use_config(home)
    from datetime import UTC, datetime

    capture = shifted(TENCENT, tmp_path / "stepped.har", datetime(2026, 11, 2, 6, tzinfo=UTC), stepped)
    result = sqlite_cli("crawl", "tencent-api", "-r", "ap-guangzhou", "--replay", str(capture))
    assert result.code == 0 and "hourly prices are tiered by hours of use" in " ".join(result.err.split())
    rows = json.loads(sqlite_cli("prices", "--instance-type", "GN7.2XLARGE32", "--format", "json").out)
    on_demand = [r for r in rows if r["price_model"] == "on_demand"]
    assert on_demand and all(r["price"] == "8.68" for r in on_demand)
    assert all("hourly_steps: from 0 h: 8.68; from 96 h: 7; from 360 h: 6" in r["attrs"] for r in on_demand)
    job = ["--gpu", "T4", "--provider", "tencent", "--currency", "CNY", "--hours-per-month", "500", "--months", "1"]
    tco = next(r for r in as_json(sqlite_cli("tco", *job, "--format", "json")) if r["instance_type"] == "GN7.2XLARGE32")
    assert tco["compute"] == "3521.28"  # not 500 x 8.68 = 4340.00
    # Over two months the 1000 hours: 96 x 8.68 + 264 x 7 + 640 x 6
    two = ["--months", "2"] + job[:-2]
    tco = next(r for r in as_json(sqlite_cli("tco", *two, "--format", "json")) if r["instance_type"] == "GN7.2XLARGE32")
    assert Decimal(tco["compute"]) == Decimal("96") * Decimal("8.68") + 264 * 7 + 640 * 6
