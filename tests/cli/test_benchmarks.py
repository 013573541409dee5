"""`gpu-tracker benchmarks` (the shipped MLPerf results; `update --replay`
of a trimmed real summary, tests/fixtures/mlperf/README.md), `recommend
--benchmark` and `recommend --nodes` on the demo store, and the network in
`prices`."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

from tracker.analytics.facts.network import rdma_of

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mlperf" / "summary_results_v5.1.json"


def test_benchmarks_lists_results_per_gpu(sqlite_cli) -> None:
    result = sqlite_cli("benchmarks", "--benchmark", "llama2-70b-99/Server", "--gpu", "MI300X", "--format", "json")
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    assert rows and {r["gpu_model"] for r in rows} == {"MI300X"}
    assert {r["scenario"] for r in rows} == {"Server"} and {r["unit"] for r in rows} == {"tokens/s"}
    assert {r["division"] for r in rows} <= {"closed", "open"}
    first = rows[0]
    assert first["round"].startswith("Inference v") and first["submitter"] and first["system"]
    assert Decimal(first["per_gpu"]) >= Decimal(rows[-1]["per_gpu"])  # best per GPU first


def test_an_unknown_benchmark_is_one_sentence(sqlite_cli) -> None:
    result = sqlite_cli("benchmarks", "--benchmark", "llama-9000")
    assert result.code == 1
    assert "no MLPerf result for 'llama-9000'" in result.err and "Traceback" not in result.err


def test_update_replays_a_saved_summary(sqlite_cli, tmp_path: Path) -> None:
    out = tmp_path / "mlperf_inference_v5.1.csv"
    result = sqlite_cli("benchmarks", "update", "--replay", str(FIXTURE), "--out", str(out))
    assert result.code == 0, result.err
    assert "wrote 22 results of MLPerf Inference v5.1" in result.err
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    b200 = [r for r in rows if r["gpu_model"] == "B200" and r["scenario"] == "Offline"]
    assert {(r["submitter"], r["accelerators"], r["per_gpu"]) for r in b200} == {
        ("Dell", "8", "12656.625"),
        ("Dell", "8", "12766.375"),
    }


def test_update_of_a_file_that_is_no_summary(sqlite_cli, tmp_path: Path) -> None:
    bad = tmp_path / "page.html"
    bad.write_text("<html></html>", encoding="utf-8")
    result = sqlite_cli("benchmarks", "update", "--replay", str(bad), "--out", str(tmp_path / "x.csv"))
    assert result.code == 1 and "is not JSON" in result.err and "Traceback" not in result.err
    missing = sqlite_cli("benchmarks", "update", "--replay", str(tmp_path / "none.json"))
    assert missing.code == 1 and "cannot read" in missing.err


def test_recommend_by_a_benchmark_names_the_measured_system(demo_cli) -> None:
    result = demo_cli(
        "recommend", "--gpus", "8", "--min-gpu-memory", "80", "--workload", "inference",
        "--benchmark", "llama2-70b-99", "--limit", "10", "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    assert rows
    per_million = [Decimal(r["cost_per_million_samples"]) for r in rows]
    assert per_million == sorted(per_million)
    assert rows[0]["why"].startswith("lowest cost per token")
    for row in rows:
        assert "measured:" in row["why"] or "estimate, not measured" in row["why"]
        assert "MLPerf Inference v" in row["why"]
    assert "ranked by MLPerf llama2-70b-99 Offline" in result.err


def test_recommend_over_nodes_keeps_rdma_networks(demo_cli) -> None:
    result = demo_cli("recommend", "--gpus", "32", "--nodes", "4", "--limit", "0", "--format", "json")
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    assert rows
    for row in rows:
        assert rdma_of(row["provider"], row["instance_type"]), row["instance_type"]
        assert "4 nodes over" in row["why"]
    assert {"EFA", "InfiniBand", "RoCE"} >= {rdma_of(r["provider"], r["instance_type"]) for r in rows}
    assert "only instance types whose provider states an RDMA-class network" in result.err
    one = json.loads(demo_cli("recommend", "--gpus", "32", "--limit", "0", "--format", "json").out)
    assert len(one) > len(rows)


def test_prices_say_the_network(demo_cli, monkeypatch) -> None:
    rows = json.loads(demo_cli("prices", "--provider", "azure", "--gpu", "H100", "--format", "json").out)
    nd = [r for r in rows if r["instance_type"] == "Standard_ND96isr_H100_v5"]
    assert nd and {(r["rdma"], r["network_gbps"]) for r in nd} == {("InfiniBand", "3200")}
    assert nd[0]["network_source"].startswith("https://learn.microsoft.com/")
    monkeypatch.setenv("COLUMNS", "400")
    wide = demo_cli("prices", "--provider", "azure", "--instance-type", "Standard_ND96isr_H100_v5", "--wide")
    assert "rdma" in wide.out and "InfiniBand" in wide.out


def test_needs_that_contradict_themselves_are_one_sentence(demo_cli, tmp_path: Path) -> None:
    table = tmp_path / "throughput.csv"
    table.write_text("gpu_model,samples_per_second\nH100,3000\n", encoding="utf-8")
    both = demo_cli("recommend", "--gpus", "8", "--throughput", str(table), "--benchmark", "llama2-70b-99")
    assert both.code == 1 and "either --throughput or --benchmark" in both.err
    few = demo_cli("recommend", "--gpus", "2", "--nodes", "4")
    assert few.code == 1 and "more machines than it has GPUs" in few.err
    half = demo_cli("recommend", "--gpus", "0.5", "--workload", "inference", "--limit", "1")
    assert half.code == 0, half.err  # one machine is always enough
