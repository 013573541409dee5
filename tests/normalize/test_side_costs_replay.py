"""aws-side-costs replayed through the CLI (tracker/demo_captures/aws-side-costs/,
see its README): a side cost that moves is one change, once, worded as an
alert words it; `tco` then prices egress, inter-region transfer and storage
through the tracked tiers of the instance's region, each with its source."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from tests.conftest import DEMO_CAPTURES

SIDE = DEMO_CAPTURES / "aws-side-costs"
EARLY, LATE = SIDE / "2026-10-28-us-east-1.har.gz", SIDE / "2026-11-28-us-east-1.har.gz"
GPUS = DEMO_CAPTURES / "aws" / "2026-08-06-us-east-1.har.gz"
# The crawls run once per worker and back end (`replayed`, tests/helpers/replayed.py):
# both tests read copies of the store after them.
pytestmark = pytest.mark.xdist_group("normalize-side-costs-replay")


def crawl(source: str, capture) -> tuple[str, ...]:
    return ("crawl", source, "--region", "us-east-1", "--replay", str(capture), "--format", "json")


# The side costs read twice a month apart, the later answer again, then AWS's GPU prices.
CRAWLS = (
    crawl("aws-side-costs", EARLY),
    crawl("aws-side-costs", LATE),
    crawl("aws-side-costs", LATE),
    crawl("aws", GPUS),
)


def said(result) -> list[dict]:
    assert result.code == 0, result.err
    return json.loads(result.out)


@pytest.mark.backends("sqlite", "postgres")
def test_a_moved_tier_alerts_once_and_tco_bills_the_tiers(cli, replayed) -> None:
    first, later, again = replayed(*CRAWLS[:3])
    assert said(first) == []  # the first reading: no change
    changes = said(later)
    assert [(c["kind"], c["instance_type"], c["old_price"], c["new_price"], c["unit"]) for c in changes] == [
        ("price_drop", "internet egress, first 10 TB", "0.0900000000", "0.0800000000", "gb")
    ]
    assert said(again) == []  # the same answer again
    assert "0.09 → 0.08 USD/GB" in cli("changes").out

    # GPU answers leave side costs out; --side-costs lists them.
    assert json.loads(cli("prices", "--format", "json").out) == []
    listed = json.loads(cli("prices", "--side-costs", "--format", "json").out)
    assert len(listed) == 9 and {r["unit"] for r in listed} == {"gb", "gb_month", "hour"}

    said(replayed(*CRAWLS)[3])  # and the GPU prices
    args = ["--gpu", "H100", "--count", "8", "--provider", "aws", "--format", "json"]
    sides = ["--egress-gb", "20000", "--inter-region-gb", "5000", "--storage-gb", "10000"]
    result = cli("tco", *args, *sides)
    assert result.code == 0, result.err
    row = next(r for r in json.loads(result.out) if r["instance_type"] == "p5.48xlarge")
    months = 36
    # 10,240 GB at the first tier (0.08 now), 9,760 GB at the next 40 TB's 0.085.
    assert Decimal(row["egress"]) == (10240 * Decimal("0.08") + 9760 * Decimal("0.085")) * months
    assert Decimal(row["inter_region"]) == 5000 * Decimal("0.02") * months  # to us-west-2 and eu-west-1 alike
    assert Decimal(row["storage"]) == 10000 * Decimal("0.08") * months  # gp3
    assert row["egress_source"] == "tracked: aws-side-costs 2026-11-28 (internet egress, tiered)"
    assert row["inter_region_source"].startswith("tracked: aws-side-costs 2026-11-28 (inter-region transfer to ")
    assert row["storage_source"] == "tracked: aws-side-costs 2026-11-28 (disk gp3)"
    assert Decimal(row["egress_per_gb"]) == Decimal("0.08244")  # the month's cost over the GB
    # The table names them under the answer.
    table = cli("tco", *args[:-2], *sides)
    assert "aws us-east-1 egress: tracked: aws-side-costs 2026-11-28 (internet egress, tiered)" in table.err


def test_recommend_prices_the_same_tiers(cli, replayed) -> None:
    assert [r.code for r in replayed(*CRAWLS)] == [0, 0, 0, 0]
    result = cli(
        "recommend", "--gpus", "8", "--provider", "aws", "--limit", "1", "--format", "json",
        "--egress-gb", "20000", "--inter-region-gb", "5000", "--storage-gb", "10000",
    )  # fmt: skip
    assert result.code == 0, result.err
    (row,) = json.loads(result.out)
    assert Decimal(row["egress"]) == (10240 * Decimal("0.08") + 9760 * Decimal("0.085")) * 36
    assert Decimal(row["inter_region"]) == 5000 * Decimal("0.02") * 36
    assert Decimal(row["storage"]) == 10000 * Decimal("0.08") * 36
    assert row["storage_source"] == "tracked: aws-side-costs 2026-11-28 (disk gp3)"
