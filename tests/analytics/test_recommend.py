"""`gpu-tracker recommend` on a small store built for the test: the hand-written
H100 rows of tests/helpers/analytics_data.py (1 USD = 8 CNY) and a few offers.

The job: 8 GPUs of at least 80 GB, 500 h/month for 12 months, in USD. The
azure half H100 is a slice (left out); the gcp A100 40GB is short of memory.
Compute, one 8-GPU instance (no egress or storage asked):
  aws spot            22.016 x 500 x 1.1 x 12 = 145305.60
  alibaba on demand   284 / 8 x 500 x 12      = 213000.00
  alibaba monthly     163584 / 8 x 12         = 245376.00
  aws on demand       55.04 x 500 x 12        = 330240.00
  aws 1-year term     (30 + 87600 / 8760) x 8760 = 350400.00
  gcp on demand       88 x 500 x 12           = 528000.00
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from tests.helpers.analytics_data import H100_ROWS, as_csv, as_json, load_rows, use_config

JOB = ["--gpus", "8", "--min-gpu-memory", "80", "--hours-per-month", "500", "--months", "12"]
OFFERS = [
    # provider, id, eligibility, data
    ("gcp", "trial", {"title": "New customers get $300 in free credits over the first 90 days"}),
    ("alibaba", "gpu-lab", {"title": "GPU lab", "text": "4 free H100 hours for every account"}),
    ("aws", "activate", {"title": "AWS Activate: $1,000 in AWS credits for startups"}),
    ("aws", "s3", {"title": "$500 credit for S3 storage", "products": ["storage"]}),
]


def add_offers(db_url: str) -> None:
    import sqlalchemy as sa

    from db.engine import make_engine, migrate
    from db.offers import OfferPoint, offer_to_row
    from tracker.normalize.offers import build_offer

    engine = make_engine(db_url)
    migrate(engine)
    now = datetime(2026, 12, 1, tzinfo=UTC)
    rows = []
    for provider, slug, data in OFFERS:
        offer = build_offer(
            provider=provider,
            offer_id=f"{provider}:{slug}",
            data={"id": slug, **data},
            observed_at=now,
            source_url="https://example.test/offers",
        )
        rows.append(offer_to_row(offer, source=f"{provider}-offers", run_id=None, valid_from=now))  # type: ignore[arg-type]
    with Session(engine) as session:
        session.connection().execute(sa.insert(OfferPoint.__table__), rows)
        session.commit()
    engine.dispose()


@pytest.fixture
def store(cli, home: Path, tmp_path: Path, db_url: str):
    use_config(home)
    load_rows(cli, tmp_path, H100_ROWS)
    add_offers(db_url)
    return cli


def ranked(result) -> list[tuple[str, str, str, str]]:
    return [(r["provider"], r["instance_type"], r["mix"], r["total"]) for r in as_json(result)]


def test_ranking_by_total_cost(store) -> None:
    rows = as_json(store("recommend", *JOB, "--format", "json"))
    assert [(r["provider"], r["mix"], r["compute"], r["credits"], r["total"]) for r in rows] == [
        ("aws", "spot", "145305.60", "0.00", "145305.60"),
        # 4 free H100 hours at alibaba's on-demand 284 CNY / 8 GPUs / 8 CNY per USD: 17.75
        ("alibaba", "on_demand", "213000.00", "17.75", "212982.25"),
        ("alibaba", "monthly", "245376.00", "17.75", "245358.25"),
        ("aws", "on_demand", "330240.00", "0.00", "330240.00"),
        ("aws", "reserved_1yr", "350400.00", "0.00", "350400.00"),
        ("gcp", "on_demand", "528000.00", "0.00", "528000.00"),  # its $300 is for new users only
    ]
    first, second = rows[0], rows[1]
    assert first["rank"] == 1 and first["why"].startswith("lowest total; spot, 60% below on demand, x1.1 hours")
    assert second["credit_offer"] == "alibaba:gpu-lab" and second["credit_conditions"] == "4 free H100 hours"
    assert "+46.6% vs #1" in second["why"]  # 212982.25 / 145305.60
    assert rows[4]["why"].endswith("1 x 1-year term, beats on demand above 530.5 h/month (you use 500)")
    assert (first["gpu_bf16_tflops"], first["per_tflop_hour"]) == ("989.5", "0.003059")  # 145305.6 / 48000 / 989.5


def test_offers_count_where_the_buyer_qualifies(store) -> None:
    rows = ranked(store("recommend", *JOB, "--qualify", "new_users", "--qualify", "startups", "--format", "json"))
    # aws: the $1,000 startup credit (the storage-only credit is not for compute); gcp: $300 in its 90 days.
    assert rows[0] == ("aws", "p5.48xlarge", "spot", "144305.60")
    assert ("gcp", "a3-highgpu-8g", "on_demand", "527700.00") in rows


def test_inference_leaves_spot_out_and_mixes_can_be_added(store) -> None:
    rows = ranked(store("recommend", *JOB, "--workload", "inference", "--format", "json"))
    assert [r[2] for r in rows] == ["on_demand", "monthly", "on_demand", "reserved_1yr", "on_demand"]
    mixed = ranked(store("recommend", *JOB, "--mix", "on_demand=0.5,reserved_1yr=0.5", "--format", "json"))
    # 0.5 x 330240 + 0.5 x 350400
    assert ("aws", "p5.48xlarge", "on_demand=0.5,reserved_1yr=0.5", "340320.00") in mixed


def test_throughput_ranks_by_cost_per_unit_of_work(store, tmp_path: Path) -> None:
    table = tmp_path / "throughput.csv"
    table.write_text("gpu_model,samples_per_second\nH100,1000\nA100,400\n", encoding="utf-8")  # A100: every A100
    result = store("recommend", *JOB[:2], *JOB[4:], "--throughput", str(table), "--format", "json")
    rows = as_json(result)
    # aws spot: 145305.6 / (1000 x 8 x 500 x 3600 x 12 / 1e6); the A100 needs 8 one-GPU instances:
    # 8 x 500 x 3.67 x 12 = 176160 over 400 samples/s.
    assert [(r["provider"], r["mix"], r["cost_per_million_samples"]) for r in rows][:2] == [
        ("aws", "spot", "0.840889"),
        ("alibaba", "on_demand", "1.232536"),  # 212982.25 / 172800
    ]
    a100 = next(r for r in rows if r["gpu_model"] == "A100 40GB")
    assert (a100["instances"], a100["total"], a100["cost_per_million_samples"]) == ("8", "176160.00", "2.548611")
    assert "8 instances: their GPUs meet over the network" in a100["why"]
    only_h100 = tmp_path / "h100.csv"
    only_h100.write_text("gpu_model,samples_per_second\nH100,1000\n", encoding="utf-8")
    partial = store("recommend", *JOB[:2], *JOB[4:], "--throughput", str(only_h100), "--format", "json")
    assert "no throughput given for: A100 40GB" in partial.err
    assert {r["gpu_model"] for r in as_json(partial)} == {"H100"}


def test_table_and_csv(store) -> None:
    table = store("recommend", *JOB)
    assert table.code == 0 and "145305.60" in table.out and "lowest total" in table.out
    rows = as_csv(store("recommend", *JOB, "--format", "csv", "--limit", "2"))
    assert [(r["rank"], r["total"]) for r in rows] == [("1", "145305.60"), ("2", "212982.25")]


def test_impossible_needs_are_one_sentence(store, tmp_path: Path) -> None:
    too_big = store("recommend", "--gpus", "8", "--min-gpu-memory", "100")
    assert too_big.code == 1 and "Traceback" not in too_big.err
    assert "no GPU in the store has 100 GB of memory per GPU (the most: 80 GB, H100)" in too_big.err
    assert len(too_big.err.strip().splitlines()) == 1
    nowhere = store("recommend", "--gpu", "B200")
    assert nowhere.code == 1 and "no current prices match" in nowhere.err
    bad_table = tmp_path / "bad.csv"
    bad_table.write_text("gpu,speed\nH100,1\n", encoding="utf-8")
    for args in (
        ["--throughput", str(bad_table)],
        ["--throughput", str(tmp_path / "missing.csv")],
        ["--gpus", "0"],
        ["--mix", "cheap=1"],
        ["--workload", "gaming"],
        ["--hours-per-month", "800"],
    ):
        result = store("recommend", *args)
        assert result.code in (1, 2) and result.err.strip() and "Traceback" not in result.err, args


def test_python_api(engine: sa.Engine) -> None:
    """The report calls `recommend` on frames; an empty store is one sentence."""
    from tracker.analytics.history import offers_frame, prices_frame
    from tracker.analytics.recommend import Needs, recommend
    from tracker.analytics.reference import load_references
    from tracker.errors import UserError

    with pytest.raises(UserError, match="no current prices match"):
        recommend(prices_frame(engine), offers_frame(engine), load_references(), Needs())


def test_report_has_a_recommendation_section(store, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert store("report", "--out", str(out)).code == 0
    html = out.read_text(encoding="utf-8")
    assert "Recommendation: 1 GPU(s), training, 720 h/month for 36 months" in html
    assert "lowest total" in html and "p5.48xlarge" in html
