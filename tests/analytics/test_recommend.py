"""`gpu-tracker recommend` on a small store built for the test: the hand-written
H100 rows of tests/helpers/analytics_data.py (1 USD = 8 CNY) and a few offers.

The job: 8 GPUs of at least 70 GB usable memory (an H100's 80 GB x 0.9 = 72),
500 h/month for 12 months, in USD. The azure half H100 is a slice (left out
of a need of whole GPUs); the gcp A100 40GB is short of memory.
Compute, one 8-GPU instance (no egress or storage asked), and the offer counted:
  aws spot            22.016 x 500 x 1.1 x 12 = 145305.60
  alibaba monthly     163584 / 8 x 12         = 245376.00, 40% off the 11 renewals: 89971.20
  alibaba on demand   284 / 8 x 500 x 12      = 213000.00, 4 free H100 hours: 17.75
  aws on demand       55.04 x 500 x 12        = 330240.00
  aws 1-year term     (30 + 87600 / 8760) x 8760 = 350400.00
  gcp on demand       88 x 500 x 12           = 528000.00, 30% off its first 3 months: 39600.00
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from tests.helpers.analytics_data import H100_ROWS, as_csv, as_json, load_rows, use_config

JOB = ["--gpus", "8", "--min-gpu-memory", "70", "--hours-per-month", "500", "--months", "12"]
OFFERS: list[tuple[str, str, dict[str, Any]]] = [
    # provider, id, eligibility, data
    ("gcp", "trial", {"title": "New customers get $300 in free credits over the first 90 days"}),
    ("alibaba", "gpu-lab", {"title": "GPU lab", "text": "4 free H100 hours for every account"}),
    ("aws", "activate", {"title": "AWS Activate: $1,000 in AWS credits for startups"}),
    ("aws", "s3", {"title": "$500 credit for S3 storage", "products": ["storage"]}),
    # Percent discounts, each on the purchases its text names.
    ("alibaba", "renewal", {"title": "GPU 云服务器续费优惠", "text": "GPU 云服务器 6折续费"}),
    ("aws", "first-term", {"title": "20% off your first purchase of a 1-year reserved GPU instance for new customers"}),
    ("gcp", "od-promo", {"title": "30% off on-demand GPU VMs for 3 months"}),
    # A 满减 voucher for subscriptions only: never on an hourly price.
    ("alibaba", "sub-voucher", {"title": "GPU 代金券 满1000减300", "text": "满1000减300 仅限包年包月"}),
]


def add_offers(db_url: str) -> None:
    import sqlalchemy as sa

    from db.store.engine import make_engine, migrate
    from db.store.writes.offers import OfferPoint, offer_to_row
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
        rows.append(offer_to_row(offer, source=f"{provider}-offers", run_id=None, valid_from=now))
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
        # "6折续费": 40% off the 11 monthly renewals of 163584 CNY / 8 CNY per USD (20448 USD)
        ("alibaba", "monthly", "245376.00", "89971.20", "155404.80"),
        # 4 free H100 hours at alibaba's on-demand 284 CNY / 8 GPUs / 8 CNY per USD: 17.75; the
        # 满1000减300 voucher (37.50 USD) is for 包年包月 only, so it does not count on demand
        ("alibaba", "on_demand", "213000.00", "17.75", "212982.25"),
        ("aws", "on_demand", "330240.00", "0.00", "330240.00"),
        ("aws", "reserved_1yr", "350400.00", "0.00", "350400.00"),  # its 20% off is for new customers
        # 30% off on demand for 3 months: 0.3 x 3 x 88 x 500; the $300 is for new users only
        ("gcp", "on_demand", "528000.00", "39600.00", "488400.00"),
    ]
    first, second, third = rows[0], rows[1], rows[2]
    assert first["rank"] == 1 and first["why"].startswith("lowest total; 72.0 GB usable (0.9 of 80 GB) >= 70 GB; spot")
    assert (second["credit_offer"], second["credit_conditions"]) == (
        "alibaba:renewal",
        "40% off renewals of monthly, 1-year terms, 3-year terms",
    )
    assert third["credit_offer"] == "alibaba:gpu-lab" and third["credit_conditions"] == "4 free H100 hours"
    assert "+46.6% vs #1" in third["why"]  # 212982.25 / 145305.60
    assert "offer gcp:od-promo saves 39600.00 USD (30% off on demand)" in rows[5]["why"]
    assert rows[4]["why"].endswith("1 x 1-year term, beats on demand above 530.5 h/month (you use 500)")
    assert (first["gpu_bf16_tflops"], first["per_tflop_hour"]) == ("989.5", "0.003059")  # 145305.6 / 48000 / 989.5


def test_offers_count_where_the_buyer_qualifies(store) -> None:
    rows = ranked(store("recommend", *JOB, "--qualify", "new_users", "--qualify", "startups", "--format", "json"))
    # aws: the $1,000 startup credit (the storage-only credit is not for compute), and for new customers
    # 20% off the first 1-year term (0.2 x 350400); gcp: 30% off saves more than its $300.
    assert rows[0] == ("aws", "p5.48xlarge", "spot", "144305.60")
    assert ("aws", "p5.48xlarge", "reserved_1yr", "280320.00") in rows
    assert ("gcp", "a3-highgpu-8g", "on_demand", "488400.00") in rows


def test_inference_leaves_spot_out_and_mixes_can_be_added(store) -> None:
    rows = ranked(store("recommend", *JOB, "--workload", "inference", "--format", "json"))
    assert [r[2] for r in rows] == ["monthly", "on_demand", "on_demand", "reserved_1yr", "on_demand"]
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
        ("alibaba", "monthly", "0.899333"),  # 155404.80 / 172800
    ]
    a100 = next(r for r in rows if r["gpu_model"] == "A100 40GB")
    # less gcp's 30% off on demand for 3 months (13212), over 400 x 8 x 500 x 3600 x 12 / 1e6 samples
    assert (a100["instances"], a100["total"], a100["cost_per_million_samples"]) == ("8", "162948.00", "2.357465")
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
    assert [(r["rank"], r["total"]) for r in rows] == [("1", "145305.60"), ("2", "155404.80")]


def test_impossible_needs_are_one_sentence(store, tmp_path: Path) -> None:
    too_big = store("recommend", "--gpus", "8", "--min-gpu-memory", "100")
    assert too_big.code == 1 and "Traceback" not in too_big.err
    assert (
        "no GPU in the store has 100 GB of usable memory per GPU (the most: 72.0 GB usable of 80 GB, H100)"
        in too_big.err
    )
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
    from tracker.analytics.facts.reference import load_references
    from tracker.analytics.history import offers_frame, prices_frame
    from tracker.analytics.recommend import Needs, recommend
    from tracker.errors import UserError

    with pytest.raises(UserError, match="no current prices match"):
        recommend(prices_frame(engine), offers_frame(engine), load_references(), Needs())


def test_report_has_a_recommendation_section(store, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert store("report", "--out", str(out)).code == 0
    html = out.read_text(encoding="utf-8")
    assert "Recommendation: 1 GPU(s), training, 720 h/month for 36 months" in html
    assert "lowest total" in html and "p5.48xlarge" in html


def test_memory_need_is_usable_memory(store) -> None:
    """An 80 GB H100 has 72 GB usable at the default share of 0.9 (vLLM's default)."""
    fits = as_json(store("recommend", "--gpus", "8", "--min-gpu-memory", "72", "--format", "json"))
    assert {r["usable_memory_gb_per_gpu"] for r in fits} == {"72.0"}
    short = store("recommend", "--gpus", "8", "--min-gpu-memory", "72.1")
    assert short.code == 1 and "(the most: 72.0 GB usable of 80 GB, H100)" in short.err
    whole = as_json(
        store("recommend", *JOB[:2], "--min-gpu-memory", "80", "--usable-memory-share", "1", "--format", "json")
    )
    assert "80.0 GB usable (1 of 80 GB) >= 80 GB" in whole[0]["why"]
    bad = store("recommend", "--usable-memory-share", "1.5")
    assert bad.code == 2 and "Traceback" not in bad.err and "--usable-memory-share" in bad.err


def test_slices_of_a_gpu(store) -> None:
    """Standard_NC_H100_half is half an H100 at 2 USD an hour."""
    whole = store("recommend", *JOB, "--format", "json")
    assert "slices of a shared GPU cannot make 8 whole GPU(s)" in whole.err and "Standard_NC_H100_half" in whole.err
    assert "Standard_NC_H100_half" not in {r["instance_type"] for r in as_json(whole)}
    half = as_json(store("recommend", "--gpus", "0.5", *JOB[4:], "--workload", "inference", "--format", "json"))
    first = half[0]
    # 2 x 500 x 12 = 12000, per whole-GPU equivalent: 12000 / (0.5 x 500 x 12) = 4
    assert (first["instance_type"], first["instances"], first["total"], first["per_gpu_hour"]) == (
        "Standard_NC_H100_half",
        "1",
        "12000.00",
        "4.0000",
    )
    assert "a slice: 1/2 of one GPU, priced per whole-GPU equivalent" in first["why"]
    quarter = as_json(store("recommend", "--gpus", "0.25", "--format", "json"))
    assert "Standard_NC_H100_half" in {r["instance_type"] for r in quarter}  # a half slice holds a quarter
    for gpus in ("1.5", "0", "-1"):
        result = store("recommend", "--gpus", gpus)
        assert result.code == 2 and "--gpus" in result.err and "Traceback" not in result.err, gpus
