"""Spot interruption risk priced into tco and recommend (docs/spot-risk.md):
the model's arithmetic on the bands, "unknown" never zero, and the demo's
answers (its aws-spot-advisor captures) with --max-interruption."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tracker.analytics.bill.spot_risk import Band, SpotRisk, parse_percent
from tracker.analytics.facts.reference import load_references
from tracker.analytics.tco import TcoInputs, tco_ranked
from tracker.errors import UserError

AT = datetime(2026, 11, 30, 6, tzinfo=UTC)
POOL = ("aws", "p5en.48xlarge", "us-east-1", "linux")


def risk(label: str = "<5%", **kw) -> SpotRisk:
    return SpotRisk({POOL: Band(label, "aws-spot-advisor", AT, AT)}, **kw)


def row(provider: str = "aws", instance_type: str = "p5en.48xlarge", price: str = "20", model: str = "spot") -> dict:
    return {
        "provider": provider,
        "region": "us-east-1",
        "instance_type": instance_type,
        "os": "linux",
        "gpu_model": "H200",
        "gpu_count": Decimal(8),
        "price": Decimal(price),
        "unit": "hour",
        "term": "",
        "upfront_fee": None,
        "currency": "USD",
        "price_model": model,
    }


def test_the_band_midpoint_times_the_work_lost() -> None:
    # 1 instance, <5%: p = 2.5% a month (720 h), 30 min lost a reclaim.
    assert risk().factor(row(), 1) == 1 + Decimal("0.025") * Decimal("0.5") / 720
    # A job over 4 instances: 4x the reclaims, each losing 4 instances' work.
    assert risk(">20%", checkpoint_minutes=Decimal(60)).factor(row(), 4) == 1 + 4 * Decimal("0.25") * 1 / Decimal(720)
    # No band stated: the fixed allowance, never zero.
    assert risk().factor(row("gcp", "a3-highgpu-8g"), 1) == Decimal("1.1")
    assert risk().label(row("gcp", "a3-highgpu-8g")) == "unknown"
    assert risk().label(row()) == "<5% a month (AWS Spot Instance Advisor, 2026-11-30)"


def test_max_interruption_keeps_bands_within_it_and_no_unknown() -> None:
    limit = Decimal(10)
    assert risk("5-10%", max_interruption=limit).allowed(row())
    assert not risk("10-15%", max_interruption=limit).allowed(row())
    assert not risk("<5%", max_interruption=limit).allowed(row("azure", "Standard_ND96isr_H200_v5"))
    notes = risk("10-15%", max_interruption=limit).left_out([row(), row("gcp", "a3-ultragpu-8g")])
    assert notes == [
        "left out by --max-interruption 10%, spot interruptions 10-15% (AWS Spot Instance Advisor): "
        "p5en.48xlarge in us-east-1",
        "left out by --max-interruption 10%, spot with no stated interruption rate: gcp",
    ]


def test_tco_adds_the_expected_cost_of_interruptions() -> None:
    refs = load_references()
    inputs = TcoInputs(count=Decimal(8), hours_per_month=Decimal(720), months=1, mix={"spot": Decimal(1)})
    prices = [row(), row("gcp", "a3-ultragpu-8g", "30")]
    unknown, _ = tco_ranked(prices, refs, inputs)
    assert [(r["provider"], r["interruption"], r["compute"]) for r in unknown] == [
        ("aws", "unknown", Decimal("15840.00")),  # 720 h x 20 x 1.1
        ("gcp", "unknown", Decimal("23760.00")),
    ]
    assert unknown[0]["interruption_cost"] == Decimal("1440.00")
    known, _ = tco_ranked(prices, refs, TcoInputs(**{**inputs.__dict__, "risk": risk()}))
    aws = next(r for r in known if r["provider"] == "aws")
    # 720 h x 20 = 14400, and 0.025 reclaims x 0.5 h x 20 = 0.25 of lost work.
    assert (aws["compute"], aws["interruption_cost"]) == (Decimal("14400.25"), Decimal("0.25"))
    assert aws["interruption"].startswith("<5% a month")
    limited, skipped = tco_ranked(
        prices, refs, TcoInputs(**{**inputs.__dict__, "risk": risk("15-20%", max_interruption=Decimal(10))})
    )
    assert limited == [] and skipped == 2
    on_demand, _ = tco_ranked([row(model="on_demand")], refs, TcoInputs(count=Decimal(8), months=1))
    assert on_demand[0]["interruption"] is None and on_demand[0]["interruption_cost"] is None


@pytest.mark.parametrize("text", ["ten", "-1", "101", "nan"])
def test_a_bad_percentage_is_one_sentence(text: str) -> None:
    with pytest.raises(UserError, match="--max-interruption takes a percentage"):
        parse_percent(text)


def test_recommend_leaves_out_the_riskier_types_and_says_why(demo_cli) -> None:
    args = ["recommend", "--gpus", "8", "--price-model", "spot", "--max-interruption", "10", "--limit", "0"]
    done = demo_cli(*args, "--format", "json")
    assert done.code == 0, done.err
    rows = json.loads(done.out)
    assert rows and {r["mix"] for r in rows} == {"spot"}
    # Only AWS and Alibaba (alibaba-spot-advice, 3-5% and 5-10%) state bands; p5.48xlarge (>20%) and
    # p4d (10-15%) are out, p5en (5-10% since Nov 30) is in.
    assert {r["provider"] for r in rows} == {"aws", "alibaba"}
    types = {r["instance_type"] for r in rows}
    assert "p5en.48xlarge" in types and not {"p5.48xlarge", "p4d.24xlarge"} & types
    p5en = next(r for r in rows if r["instance_type"] == "p5en.48xlarge")
    assert "interruptions 5-10% a month (AWS Spot Instance Advisor, 2026-11-30)" in p5en["why"]
    assert "of work expected lost at 30 min a reclaim" in p5en["why"]
    said = " ".join(done.err.split())
    assert "left out by --max-interruption 10%, spot interruptions >20% (AWS Spot Instance Advisor):" in said
    assert "p5.48xlarge in us-east-1" in said
    assert "spot with no stated interruption rate:" in said and "gcp" in said


def test_without_a_limit_unknown_rates_keep_the_fixed_allowance(demo_cli) -> None:
    done = demo_cli("recommend", "--gpus", "8", "--gpu", "H100", "--price-model", "spot", "--all", "--format", "json")
    assert done.code == 0, done.err
    rows = json.loads(done.out)
    azure = [r for r in rows if r["provider"] == "azure"]
    assert azure and all("interruption rate unknown: x1.1 hours for interruptions" in r["why"] for r in azure)
    aws = [r for r in rows if r["provider"] == "aws"]
    assert aws and all("AWS Spot Instance Advisor" in r["why"] for r in aws if "unknown" not in r["why"])


def test_the_first_pass_keeps_the_exact_ranking(demo_cli) -> None:
    """The store's first pass (bounds of the spot factor) picks what the exact ranking of every price ranks first."""
    base = ["recommend", "--gpus", "8", "--checkpoint-minutes", "600", "--format", "json"]
    every = json.loads(demo_cli(*base, "--limit", "0").out)
    first = json.loads(demo_cli(*base, "--limit", "8").out)
    keys = ("provider", "region", "instance_type", "mix", "total")
    assert [[r[k] for k in keys] for r in first] == [[r[k] for k in keys] for r in every[:8]]


def test_max_interruption_through_the_first_pass(demo_cli) -> None:
    """--max-interruption region by region in the store's first pass: the same first rows and notes as every price."""
    base = ["recommend", "--gpus", "8", "--max-interruption", "10", "--format", "json"]
    every = demo_cli(*base, "--limit", "0")
    first = demo_cli(*base, "--limit", "6")
    keys = ("provider", "region", "instance_type", "mix", "total")
    assert [[r[k] for k in keys] for r in json.loads(first.out)] == [
        [r[k] for k in keys] for r in json.loads(every.out)[:6]
    ]
    said = " ".join(first.err.split()).split("left out by")[1:]
    assert said and said == " ".join(every.err.split()).split("left out by")[1:]
