"""`gpu-tracker tco`: the arithmetic against cases worked out by hand from
tests/helpers/analytics_data.py. 1 USD = 8 CNY; bundled egress and storage rates:
aws 0.09 / 0.08 USD, azure 0.087 / 0.075 USD, gcp 0.12 / 0.10 USD,
alibaba 0.80 / 1.00 CNY (per GB, per GB-month)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.helpers.analytics_data import H100_ROWS, as_csv, as_json, load_rows, use_config

JOB = [
    "--gpu",
    "H100",
    "--count",
    "16",
    "--hours-per-month",
    "500",
    "--months",
    "24",
    "--egress-gb",
    "1000",
    "--storage-gb",
    "2000",
]


@pytest.fixture
def loaded(cli, home: Path, tmp_path: Path):
    use_config(home)
    load_rows(cli, tmp_path, H100_ROWS)
    return cli


def test_on_demand_ranking_with_breakdown(loaded) -> None:
    rows = as_json(loaded("tco", *JOB, "--credit", "1000", "--credit-provider", "aws", "--format", "json"))
    got = [
        (r["provider"], r["instances"], r["compute"], r["egress"], r["storage"], r["credits"], r["total"]) for r in rows
    ]
    assert got == [
        # 32 half-GPU instances x 500 h x 2 USD x 24; 1000 GB x 0.087 x 24; 2000 GB x 0.075 x 24
        ("azure", "32", "768000.00", "2088.00", "3600.00", "0.00", "773688.00"),
        # 2 x 500 x (284 / 8) x 24; 1000 x 0.80 / 8 x 24; 2000 x 1.00 / 8 x 24
        ("alibaba", "2", "852000.00", "2400.00", "6000.00", "0.00", "860400.00"),
        # 2 x 500 x 55.04 x 24; 1000 x 0.09 x 24; 2000 x 0.08 x 24; the credit is aws's
        ("aws", "2", "1320960.00", "2160.00", "3840.00", "1000.00", "1325960.00"),
        ("gcp", "2", "2112000.00", "2880.00", "4800.00", "0.00", "2119680.00"),
    ]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    aws = rows[2]
    assert aws["per_gpu_hour"] == "6.9060"  # 1325960 / (16 x 500 x 24)
    assert aws["break_even_1yr_hours"] == "530.5"  # 40 x 8760 / 12 / 55.04
    assert rows[1]["fx"] == "1 CNY = 0.125 USD (2026-12-01)"
    assert (aws["egress_per_gb"], aws["rates_date"]) == ("0.09", "2026-11-30")


def test_mix_of_on_demand_and_reserved(loaded) -> None:
    rows = as_json(loaded("tco", *JOB, "--mix", "on_demand=0.5,reserved_1yr=0.5", "--format", "json"))
    # Only aws has a 1-year term. Compute: 0.5 x 2 x 500 x 55.04 x 24 = 660480, plus
    # 0.5 x 2 x (40 x 8760) x 2 terms = 700800.
    assert [(r["provider"], r["compute"], r["total"]) for r in rows] == [("aws", "1361280.00", "1367280.00")]
    shares = as_json(loaded("tco", *JOB, "--mix", "on_demand=50%,reserved_1yr=50%", "--format", "json"))
    assert shares[0]["total"] == "1367280.00"


def test_spot_overhead_and_monthly(loaded) -> None:
    spot = as_json(loaded("tco", *JOB, "--mix", "spot=1", "--spot-overhead", "1.25", "--format", "json"))
    # 2 x 500 x 22.016 x 1.25 x 24
    assert [(r["provider"], r["compute"]) for r in spot] == [("aws", "660480.00")]
    monthly = as_json(loaded("tco", *JOB, "--mix", "monthly=1", "--format", "json"))
    # 2 x (163584 / 8) x 24, whatever the hours
    assert [(r["provider"], r["compute"]) for r in monthly] == [("alibaba", "981504.00")]


def test_credit_terms_window_and_minimum_spend(loaded) -> None:
    windowed = as_json(
        loaded("tco", *JOB, "--provider", "aws", "--credit", "100000", "--credit-months", "1", "--format", "json")
    )
    # Usable only against the first month's spend: (1320960 + 2160 + 3840) / 24 = 55290.
    assert (windowed[0]["credits"], windowed[0]["total"]) == ("55290.00", "1271670.00")
    too_small = as_json(
        loaded("tco", *JOB, "--provider", "aws", "--credit", "500", "--credit-min-spend", "2000000", "--format", "json")
    )
    assert too_small[0]["credits"] == "0.00"


def test_csv_and_table_agree(loaded) -> None:
    csv_rows = as_csv(loaded("tco", *JOB, "--format", "csv"))
    assert [(r["provider"], r["total"]) for r in csv_rows][:2] == [("azure", "773688.00"), ("alibaba", "860400.00")]
    table = loaded("tco", *JOB)
    assert table.code == 0 and "773688.00" in table.out and "860400.00" in table.out


def test_bad_input(loaded) -> None:
    for args in (["--mix", "on_demand=0.5"], ["--mix", "cheap=1"], ["--count", "x"], ["--hours-per-month", "800"]):
        result = loaded("tco", "--gpu", "H100", *args)
        assert result.code in (1, 2) and "Traceback" not in result.err and result.err.strip(), args
    both = loaded("tco", "--gpu", "H100", "--credit", "5", "--offer", "x")
    assert both.code == 2
    no_offer = loaded("tco", "--gpu", "H100", "--offer", "no-such-offer")
    assert no_offer.code == 1 and ("no offers" in no_offer.err or "no current offer" in no_offer.err)


def test_break_even_arithmetic() -> None:
    from tracker.analytics.tco import break_even_hours, parse_mix

    assert break_even_hours(Decimal("2"), Decimal("8760"), 12) == Decimal("365.0")
    assert break_even_hours(None, Decimal(1), 12) is None
    assert parse_mix("on_demand=0.25, reserved_3yr=0.75") == {
        "on_demand": Decimal("0.25"),
        "reserved_3yr": Decimal("0.75"),
    }
