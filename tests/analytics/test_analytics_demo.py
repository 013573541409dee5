"""After the demo: 1,000 imported rows rank with the crawled ones, and every
analytics command answers in table, JSON and CSV. The expected figures are
computed here from `prices --format json`, independently of tracker/."""

from __future__ import annotations

import csv
import math
from decimal import Decimal
from pathlib import Path

import pytest

from tests.helpers.analytics_data import as_csv, as_json, write_jsonl

FX_TABLE = Path(__file__).parents[2] / "tracker" / "data" / "fx_rates.csv"


def usd_rate(currency: str) -> Decimal:
    """USD per unit of `currency`, from the bundled table."""
    with FX_TABLE.open(encoding="utf-8", newline="") as fh:
        per_usd = {r["currency"]: Decimal(r["per_usd"]) for r in csv.DictReader(fh)}
    return per_usd["USD"] / per_usd[currency]


def term_hours(term: str) -> Decimal:
    return Decimal(int(term[:-2])) * (8760 if term.endswith("yr") else 720)


def hourly(row: dict) -> Decimal:
    price = Decimal(row["price"])
    if row["unit"] == "hour":
        rate = price
    elif row["unit"] == "month":
        rate = price / 720
    elif row["unit"] == "year":
        rate = price / 8760
    else:
        rate = price / term_hours(row["term"])
    if row["upfront_fee"]:
        rate += Decimal(row["upfront_fee"]) / term_hours(row["term"])
    return rate


@pytest.fixture
def demo(demo_cli):
    """The CLI after `gpu-tracker demo`, on each back end (a copy of the session's demo)."""
    return demo_cli


def thousand_rows() -> list[dict]:
    return [
        {
            "provider": "negotiated",
            "region": f"r{i % 10}",
            "instance_type": f"h100-deal-{i:04d}",
            "gpu_model": "H100",
            "gpu_count": "8",
            "price_model": "on_demand",
            "price": str(Decimal(10) + Decimal(i) / 10),
            "currency": "USD",
            "unit": "hour",
        }
        for i in range(1000)
    ]


@pytest.mark.slow
def test_import_of_1000_rows_ranks_with_the_crawled_ones(demo, tmp_path: Path) -> None:
    result = demo("import", str(write_jsonl(tmp_path / "deals.jsonl", thousand_rows())), "--source", "deals")
    assert result.code == 0, result.err
    current = [
        p for p in as_json(demo("prices", "--gpu", "H100", "--format", "json")) if p["os"] == "linux" and p["gpu_count"]
    ]
    expected = sorted(
        (
            hourly(p) / Decimal(p["gpu_count"]) * usd_rate(p["currency"]),
            p["provider"],
            p["region"],
            p["instance_type"],
            p["price_model"],
            p["term"],
        )
        for p in current
    )
    ranked = as_json(demo("compare", "--gpu", "H100", "--format", "json"))
    assert len(ranked) == len(expected) and sum(r["provider"] == "negotiated" for r in ranked) == 1000
    assert [r["rank"] for r in ranked] == list(range(1, len(ranked) + 1))
    assert [Decimal(r["per_gpu_hour_converted"]) for r in ranked] == [
        e[0].quantize(Decimal("0.000001")) for e in expected
    ]
    assert sorted((r["provider"], r["instance_type"], r["price_model"], r["term"]) for r in ranked) == sorted(
        (e[1], e[3], e[4], e[5]) for e in expected
    )
    providers = [r["provider"] for r in ranked]
    first_azure, last_azure = providers.index("azure"), len(providers) - providers[::-1].index("azure") - 1
    assert "negotiated" in providers[:first_azure] and "negotiated" in providers[first_azure:last_azure]

    as_table = demo("compare", "--gpu", "H100", "--limit", "5")
    assert as_table.code == 0 and ranked[0]["instance_type"] in as_table.out
    as_rows = as_csv(demo("compare", "--gpu", "H100", "--format", "csv"))
    assert [(r["rank"], r["per_gpu_hour_converted"]) for r in as_rows] == [
        (str(r["rank"]), r["per_gpu_hour_converted"]) for r in ranked
    ]


def test_history_tco_and_export_after_the_demo(demo, tmp_path: Path) -> None:
    summary = as_json(
        demo("history", "Standard_ND96amsr_A100_v4", "--price-model", "on_demand", "--summary", "--format", "json")
    )
    linux = next(r for r in summary if r["os"] == "linux")
    old, new = Decimal("40.962"), Decimal("36.8658")
    assert (linux["last_change_from"], linux["last_change_to"]) == ("40.962", "36.8658")
    assert Decimal(linux["last_change_percent"]) == ((new - old) / old * 100).quantize(Decimal("0.01"))
    assert demo("history", "Standard_ND96amsr_A100_v4", "--summary").code == 0
    assert as_csv(demo("history", "Standard_ND96amsr_A100_v4", "--format", "csv"))

    on_demand = [
        p
        for p in as_json(demo("prices", "--gpu", "A100", "--price-model", "on_demand", "--format", "json"))
        if p["os"] == "linux" and p["unit"] == "hour" and p["gpu_count"]
    ]
    # (GCP's GPU part SKUs name their model but count no GPUs: they are parts, not instances.)
    # 8 GPUs always on for 36 months: instances x 720 h x the hourly price in USD x 36,
    # once per machine and place (a price quoted per zone counts once, at its cheapest);
    # a GCP machine's bundled Local SSD is billed with it, every hour.
    totals: dict[tuple[str, str, str], Decimal] = {}
    for p in on_demand:
        hourly = Decimal(p["price"]) + Decimal(p["local_ssd_hourly"] or 0)
        total = (
            Decimal(math.ceil(Decimal(8) / Decimal(p["gpu_count"]))) * 720 * (hourly * usd_rate(p["currency"])) * 36
        ).quantize(Decimal("0.01"))
        key = (p["provider"], p["region"], p["instance_type"])
        totals[key] = min(total, totals.get(key, total))
    expected = sorted(totals.values())
    tco = as_json(demo("tco", "--gpu", "A100", "--count", "8", "--format", "json"))
    assert [Decimal(r["total"]) for r in tco] == expected
    assert as_csv(demo("tco", "--gpu", "A100", "--count", "8", "--format", "csv"))[0]["total"] == str(expected[0])
    assert str(expected[0]) in demo("tco", "--gpu", "A100", "--count", "8").out

    exported = as_json(demo("export", "changes", "--format", "json"))
    listed = as_json(demo("changes", "--format", "json"))
    assert sorted((c["kind"], c["instance_type"], c["new_price"]) for c in exported) == sorted(
        (c["kind"], c["instance_type"], c["new_price"]) for c in listed
    )
