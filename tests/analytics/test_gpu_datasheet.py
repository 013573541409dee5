"""The GPU datasheet (tracker/data/gpu_models.csv) is complete and strict:
one row per model, each model the demo stores has a row with a TFLOPS
figure, and every GPU row the demo stores names its model.

The demo's store is read as the session's `demo_run` left it (read-only:
a replay of the bundled captures, as tests/run/test_demo.py uses it)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterator
from importlib import resources

import pytest

from tests.helpers.stores import DemoRun
from tracker.analytics.facts.gpu_models import gpu_models, load_table, lookup

# Stored by the demo, and not a GPU: an FPGA has no TFLOPS figure to give.
NOT_A_GPU = {"Alveo U250 FPGA"}
# Stored by the demo, and no vendor publishes a figure (tracker/data/gpu_models.md says why).
UNPUBLISHED = {
    "Radeon Pro V520": "an AWS-only AMD part: no AMD datasheet, no FP16 rate from AWS",
    "RTX PRO 4500": "the Server Edition's page states FP4 AI TOPS only",
}
# GPU rows of the demo that name no model yet, in the spec tables other work owns
# (gpu_specs/autodl.csv); remove an entry once it is mapped.
UNNAMED_ELSEWHERE = {("autodl", "1x vGPU-32GB")}

HEADER = (
    "gpu_model,vendor,architecture,form_factor,bf16_tflops,fp16_tflops,fp8_tflops,fp32_tflops,"
    "compute_basis,memory_gb,memory_bandwidth_gbs,interconnect,interconnect_gbs,source_url,note\n"
)


def _row(name: str, bf16: str = "", fp32: str = "", basis: str = "BF16 tensor") -> str:
    return f"{name},NVIDIA,Hopper,PCIe,{bf16},{bf16},,{fp32},{basis},80,2000,PCIe Gen5,128,https://x.example/,n\n"


def test_the_loader_refuses_a_model_named_twice() -> None:
    assert set(load_table(io.StringIO(HEADER + _row("H100 PCIe", "756.5")))) == {"h100 pcie"}
    with pytest.raises(ValueError, match="H100 PCIe has two rows"):
        load_table(io.StringIO(HEADER + _row("H100 PCIe", "756.5") + _row("h100 pcie", basis="")))


def test_the_loader_refuses_a_basis_that_is_not_the_figure() -> None:
    with pytest.raises(ValueError, match="compute_basis 'FP16 tensor'"):
        load_table(io.StringIO(HEADER + _row("X", "10", basis="FP16 tensor")))
    with pytest.raises(ValueError, match="compute figure is missing"):
        load_table(io.StringIO(HEADER + _row("X", basis="BF16 tensor")))
    assert load_table(io.StringIO(HEADER + _row("K", fp32="4.365", basis="FP32 vector")))["k"].compute_tflops


def test_the_shipped_table_has_one_row_per_model() -> None:
    text = (resources.files("tracker") / "data" / "gpu_models.csv").read_text(encoding="utf-8")
    names = [row["gpu_model"].strip().lower() for row in csv.DictReader(io.StringIO(text))]
    assert len(names) == len(set(names)) == len(gpu_models())


@pytest.fixture(scope="module")
def open_rows(demo_run: DemoRun) -> Iterator[list[dict[str, str]]]:
    """The demo store's current rows (read-only; the store is never written)."""
    db = demo_run.home / "tracker.db"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        yield [
            dict(r)
            for r in conn.execute(
                "select provider, instance_type, gpu_model, gpu_count, attrs from price_points where valid_to is null"
            )
        ]
    finally:
        conn.close()


def _gpu_row(row: dict[str, str]) -> bool:
    """A row that prices GPUs: an instance with a GPU count, or GCP's GPU part SKU."""
    part = json.loads(row["attrs"] or "{}").get("part")
    return part == "gpu" or (part is None and bool(row["gpu_count"]) and float(row["gpu_count"]) > 0)


def test_every_gpu_row_of_the_demo_names_its_model(open_rows: list[dict[str, str]]) -> None:
    unnamed = {(r["provider"], r["instance_type"]) for r in open_rows if _gpu_row(r) and not r["gpu_model"]}
    assert unnamed - UNNAMED_ELSEWHERE == set()


def test_every_model_the_demo_stores_has_a_tflops_figure(open_rows: list[dict[str, str]]) -> None:
    stored = {r["gpu_model"] for r in open_rows if r["gpu_model"]}
    assert len(stored) > 40
    assert sorted(m for m in stored if lookup(m) is None) == []
    lacking = {m for m in stored if (model := lookup(m)) is not None and model.compute_tflops is None}
    assert lacking == NOT_A_GPU | set(UNPUBLISHED)
    for name in lacking:
        assert lookup(name).note, f"{name}: a missing figure must say why"  # type: ignore[union-attr]  # looked up above
