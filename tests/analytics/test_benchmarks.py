"""MLPerf results as reference data (tracker/analytics/facts/benchmarks.py), read
from a trimmed real copy of MLCommons' Inference v5.1 summary
(tests/fixtures/mlperf/README.md) and from the shipped tables; and the
speeds `recommend --benchmark` takes from them (recommend/work.py)."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import pytest

from tracker.analytics.facts import benchmarks
from tracker.analytics.facts.gpu_models import lookup
from tracker.analytics.recommend.work import Work
from tracker.errors import UserError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mlperf" / "summary_results_v5.1.json"


def test_every_accelerator_maps_to_a_datasheet_gpu() -> None:
    assert sorted(m for m in benchmarks.datasheet_models() if lookup(m) is None) == []


@pytest.mark.parametrize(
    ("published", "model"),
    [
        ("NVIDIA H100-SXM-80GB", "H100"),
        ("NVIDIA H100-NVL-94GB", "H100 NVL"),
        ("NVIDIA H100-PCIe-80GB", "H100 PCIe"),
        ("Virtualized NVIDIA H200-SXM-141GB", "H200"),
        ("NVIDIA H200-NVL-141GB", ""),
        ("NVIDIA GH200 Grace Hopper Superchip 144GB", "GH200"),
        ("AMD Instinct MI300X-NPS1-SPX-192GB-750W", "MI300X"),
        ("NVIDIA L4-PCIe-24GB", "L4"),
        ("NVIDIA L40S", "L40S"),
        ("NVIDIA GB300", ""),
        ("AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e (x16)", ""),
        ("TPU v6", ""),
    ],
)
def test_accelerator_names_as_published(published: str, model: str) -> None:
    assert benchmarks.gpu_model_of(published) == model


def test_a_summary_becomes_rows_per_gpu() -> None:
    version, rows, skipped = benchmarks.read_summary(FIXTURE)
    assert version == "v5.1"
    assert len(rows) == 22 and skipped == 3  # two edge records without an accelerator, one latency in ms
    two_nodes = next(
        r
        for r in rows
        if r["submitter"] == "Cisco"
        and r["nodes"] == "2"
        and r["benchmark"] == "llama2-70b-99"
        and r["scenario"] == "Offline"
        and r["gpu_model"] == "H200"
    )
    # `a#` is per node: 8 H200 a node, 2 nodes.
    assert two_nodes["accelerators"] == "16"
    assert two_nodes["per_gpu"] == "4305.925"  # 68894.8 / 16
    assert (two_nodes["round"], two_nodes["division"], two_nodes["availability"]) == (
        "Inference v5.1",
        "closed",
        "available",
    )
    gb300 = next(r for r in rows if r["accelerator"] == "NVIDIA GB300")
    assert gb300["gpu_model"] == "" and gb300["accelerators"] == "72"
    assert {r["scenario"] for r in rows} == {"Offline", "Server", "Interactive"}
    assert {r["unit"] for r in rows} == {"tokens", "samples", "queries"}


def test_not_a_summary_is_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "summary.json"
    bad.write_text('{"rows": []}', encoding="utf-8")
    with pytest.raises(UserError, match="not an MLPerf summary"):
        benchmarks.read_summary(bad)
    bad.write_text("<html>", encoding="utf-8")
    with pytest.raises(UserError, match="is not JSON"):
        benchmarks.read_summary(bad)
    records = json.loads(FIXTURE.read_text(encoding="utf-8"))
    bad.write_text(json.dumps([{**records[0], "version": "v4.1"}, records[1]]), encoding="utf-8")
    with pytest.raises(UserError, match="one round"):
        benchmarks.read_summary(bad)


def test_the_shipped_tables() -> None:
    files = benchmarks.table_files()
    assert [f.name for f in files] == ["mlperf_inference_v4.1.csv", "mlperf_inference_v5.1.csv"]
    for path in files:
        with path.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            assert reader.fieldnames == benchmarks.BENCHMARK_COLUMNS
            rows = list(reader)
        assert rows
        for row in rows:
            assert row["round"] == f"Inference {path.stem.removeprefix('mlperf_inference_')}"
            assert not row["gpu_model"] or lookup(row["gpu_model"]) is not None
            per_gpu = Decimal(row["result"]) / Decimal(row["accelerators"])
            assert abs(Decimal(row["per_gpu"]) - per_gpu) <= Decimal("0.0005")
            # The summary's `Details` link: the round's repository (a few v4.1 ones, a submitter's fork).
            assert row["source_url"].startswith("https://github.com/") and "inference_results_v" in row["source_url"]


def test_a_benchmark_is_named_or_refused() -> None:
    assert benchmarks.check_benchmark("LLAMA2-70b-99") == ("llama2-70b-99", "offline")
    assert benchmarks.check_benchmark("llama2-70b-99/Server") == ("llama2-70b-99", "server")
    with pytest.raises(UserError, match=r"no MLPerf result for 'llama-9000'.*llama2-70b-99"):
        benchmarks.check_benchmark("llama-9000")


def test_the_measured_system_nearest_the_option() -> None:
    work = Work.of("llama2-70b-99")
    assert work.unit == "tokens" and work.scenario == "Offline"
    eight = work.closest("H200", Decimal(8))
    assert eight is not None and eight.accelerators == 8 and eight.division == "closed"
    one = work.closest("H200", Decimal(1))
    assert one is not None and one.accelerators == 1 and one.division == "closed"
    row = {"gpu_model": "H200", "gpu_count": Decimal(8)}
    assert work.speed(row) == eight.per_gpu
    why = work.basis(row)
    assert why is not None and "measured" in why and eight.system in why and eight.submitter in why


def test_a_gpu_without_a_result_is_an_estimate_from_its_datasheet() -> None:
    work = Work.of("llama2-70b-99")
    assert work.closest("A100 80GB", Decimal(8)) is None
    row = {"gpu_model": "A100 80GB", "gpu_count": Decimal(8)}
    why = work.basis(row)
    assert why is not None and why.startswith("estimate, not measured")
    speed = work.speed(row)
    assert speed is not None and speed > 0
    # The H800 (Hopper, 989.5 TFLOPS, 3.35 TB/s) is scaled from the H100, not the GH200 of the same TFLOPS.
    h800 = work.basis({"gpu_model": "H800", "gpu_count": Decimal(8)})
    assert h800 is not None and "H100's" in h800
    assert work.speed({"gpu_model": "Alveo U250 FPGA", "gpu_count": Decimal(1)}) is None


@pytest.fixture
def demo_store(demo_db_url):
    from tracker.analytics.history import open_store

    engine = open_store(demo_db_url)
    yield engine
    engine.dispose()


def test_the_store_ranks_by_a_benchmark_and_over_nodes_as_the_full_computation(demo_store) -> None:
    """With a limit, the store prices only the candidates its aggregates
    pick (recommend/store.py); a benchmark's speed (by GPU model and count)
    and the nodes' network are seen there too: the first rows are those of
    every price ranked."""
    from tracker.analytics.facts.reference import load_references
    from tracker.analytics.recommend import Needs
    from tracker.analytics.recommend.store import recommend_rows
    from tracker.analytics.recommend.work import by_benchmark

    refs = load_references()
    cases = [
        by_benchmark(Needs(gpus=Decimal(8), min_gpu_memory_gb=Decimal(70), workload="inference"), "llama2-70b-99"),
        by_benchmark(Needs(gpus=Decimal(2)), "resnet/Server"),
        by_benchmark(Needs(gpus=Decimal(32), min_gpu_memory_gb=Decimal(70)), None, nodes=4),
        by_benchmark(Needs(gpus=Decimal(16), region_group="us", all_options=True), "llama2-70b-99", nodes=2),
    ]
    for needs in cases:
        full, _ = recommend_rows(demo_store, refs, needs)
        assert full, needs
        for limit in (1, 5):
            few, _ = recommend_rows(demo_store, refs, needs, limit=limit)
            assert few == full[:limit], (needs, limit)
