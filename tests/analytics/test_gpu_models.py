"""The GPU model table: a row for every GPU model the tracker stores, and
figures as the vendors' datasheets state them; the price per TFLOP-hour
and per GB of GPU memory in `prices` and `compare`."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.helpers.analytics_data import H100_ROWS, as_json, load_rows, use_config
from tracker.analytics.facts.gpu_models import gpu_models, lookup, missing_models, value_fields
from tracker.normalize.specs import spec_table

PROVIDERS = sorted(p.stem for p in (Path(__file__).parents[2] / "tracker/normalize/gpu_specs").glob("*.csv"))

# As the datasheets print them, checked with the search tools (where: tracker/data/gpu_models.md):
# (BF16, FP16 or FP32 TFLOPS, sparse?, memory GB, bandwidth GB/s). A sparse figure is halved for the dense one.
DATASHEETS = {
    "A10": ("125", False, 24, 600),
    "A30": ("165", False, 24, 933),
    "A100 40GB": ("312", False, 40, 1555),
    "A100 80GB": ("312", False, 80, 2039),
    "H100": ("1979", True, 80, 3350),  # the product page; the whitepaper's dense figure is 989.4
    "H100 PCIe": ("1513", True, 80, 2000),
    "H100 NVL": ("1671", True, 94, 3900),
    "H200": ("1979", True, 141, 4800),
    "H800": ("1979", True, 80, 3350),
    "L4": ("242", True, 24, 300),
    "L40": ("362.1", True, 48, 864),
    "L40S": ("362.05", False, 48, 864),  # NVIDIA prints the dense 362.05 beside 733 with sparsity
    "T4": ("65", False, 16, 320),
    "V100": ("125", False, 16, 900),
    "V100 32GB": ("125", False, 32, 900),
    "MI300X": ("1307.4", False, 192, 5300),  # AMD prints the dense 1307.4 beside 2614.9 with sparsity
    "B200": ("4500", True, 180, 8000),  # HGX B200: 36 PFLOPS sparse for 8 GPUs, 1.44 TB, 64 TB/s
    "B300": ("4500", True, 288, 8000),
    "GB200": ("5000", True, 186, 8000),  # NVL72: 360 PFLOPS sparse for 72 GPUs, 13.4 TB, 576 TB/s
    "P100": ("18.7", False, 16, 732),
    "Radeon Pro V620": ("40.55", False, 32, 512),
    "MI25": ("24.6", False, 16, 484),
    "A16": ("17.9", False, 16, 200),  # one GPU of four: 4x 17.9 dense, 4x 35.9 with sparsity
    "RTX A6000": ("309.6", True, 48, 768),  # GA102 whitepaper: 154.8/309.6
    "RTX A4000": ("153.4", True, 16, 448),
    "RTX 4090": ("330.4", True, 24, 1008),  # Ada whitepaper: BF16 with FP32 accumulate 165.2/330.4
    "RTX 5090": ("419", True, 32, 1792),
    "RTX 3090": ("142.4", True, 24, 936),
    "Quadro RTX 6000": ("130.5", False, 24, 672),
    "K80": ("4.365", False, 12, 240),  # half the board's 8.73 TFLOPS FP32, 24 GB, 480 GB/s
    "P4": ("5.5", False, 8, 192),
    "P40": ("12", False, 24, 346),
}
# Figures no vendor publishes stay blank: (model, the blank fields).
UNPUBLISHED = [
    ("Alveo U250 FPGA", ("bf16_tflops", "fp16_tflops", "fp32_tflops")),
    ("Radeon Pro V520", ("fp16_tflops", "memory_bandwidth_gbs")),
    ("RTX PRO 4500", ("bf16_tflops", "fp16_tflops")),
    ("Zixiao C100", ("memory_gb", "memory_bandwidth_gbs")),
]


def test_every_stored_gpu_model_has_a_row() -> None:
    stored = {s.gpu_model for p in PROVIDERS for s in spec_table(p).values()}
    stored |= {r["gpu_model"] for r in H100_ROWS}
    assert len(stored) > 25
    assert missing_models(stored) == []


def test_every_row_names_its_source() -> None:
    for model in gpu_models().values():
        assert model.source_url.startswith("https://"), model.gpu_model
        if model.compute_tflops is None:
            assert model.note, f"{model.gpu_model}: a missing figure must say why"


@pytest.mark.parametrize("name", sorted(DATASHEETS))
def test_figures_match_the_datasheets(name: str) -> None:
    stated, sparse, memory, bandwidth = DATASHEETS[name]
    model = lookup(name)
    assert model is not None
    dense = Decimal(stated) / 2 if sparse else Decimal(stated)
    assert model.compute_tflops == dense
    assert (model.memory_gb, model.memory_bandwidth_gbs) == (memory, bandwidth)


@pytest.mark.parametrize(("name", "blank"), UNPUBLISHED)
def test_unpublished_figures_stay_blank(name: str, blank: tuple[str, ...]) -> None:
    model = lookup(name)
    assert model is not None and all(getattr(model, field) is None for field in blank)
    assert "left blank" in model.note or "no " in model.note
    if model.compute_tflops is None:
        assert model.compute_basis == ""


def test_every_model_has_its_provenance() -> None:
    provenance = (Path(__file__).parents[2] / "tracker/data/gpu_models.md").read_text(encoding="utf-8")
    rows = [
        line.split("|")[1] for line in provenance.split("## Provenance", 1)[1].splitlines() if line.startswith("| ")
    ]
    named = {part.split(" (")[0].strip() for cell in rows for part in cell.split(" / ")}
    assert sorted(m.gpu_model for m in gpu_models().values() if m.gpu_model not in named) == []


def test_fp16_stands_in_where_there_is_no_bf16_and_fp32_where_there_is_no_fast_fp16() -> None:
    t4 = lookup("t4")
    assert t4 is not None and t4.bf16_tflops is None and t4.compute_tflops == 65
    assert t4.compute_basis == "FP16 tensor"
    p40 = lookup("P40")
    assert p40 is not None and p40.fp16_tflops is None and p40.compute_tflops == 12
    assert p40.compute_basis == "FP32 vector"
    v620 = lookup("Radeon Pro V620")
    assert v620 is not None and v620.compute_basis == "FP16 vector"
    rtx = lookup("RTX PRO 4500")
    assert rtx is not None and rtx.compute_tflops is None  # unpublished
    assert lookup("no such gpu") is None


def test_value_fields_of_a_row() -> None:
    row = {
        "gpu_model": "H100",
        "gpu_count": Decimal(8),
        "gpu_memory_gb": Decimal(640),
        "hourly_price": Decimal("55.04"),
    }
    assert value_fields(row) == {
        "gpu_bf16_tflops": Decimal("989.5"),
        "price_per_tflop_hour": Decimal("0.006953"),  # 55.04 / 8 / 989.5
        "price_per_gb_vram_hour": Decimal("0.086000"),  # 55.04 / 640
    }
    # A slice pays for the whole card's TFLOPS per GPU-hour; its memory is the slice's own.
    half = {"gpu_model": "H100", "gpu_count": Decimal("0.5"), "gpu_memory_gb": None, "hourly_price": Decimal(2)}
    assert value_fields(half) == {
        "gpu_bf16_tflops": Decimal("989.5"),
        "price_per_tflop_hour": Decimal("0.004042"),
        "price_per_gb_vram_hour": None,
    }


@pytest.fixture
def loaded(cli, home: Path, tmp_path: Path):
    use_config(home)
    load_rows(cli, tmp_path, H100_ROWS)
    return cli


def test_prices_and_compare_carry_the_figures(loaded) -> None:
    prices = as_json(loaded("prices", "--provider", "aws", "--price-model", "on_demand", "--format", "json"))
    assert [(r["gpu_bf16_tflops"], r["price_per_tflop_hour"], r["price_per_gb_vram_hour"]) for r in prices] == [
        ("989.5", "0.006953", "0.086000")
    ]
    rows = as_json(loaded("compare", "--gpu", "", "--rank-by", "price_per_tflop_hour", "--format", "json"))
    # Per GPU-hour in USD (1 USD = 8 CNY) over the dense BF16 TFLOPS: 989.5 for H100, 312 for A100.
    assert [(r["instance_type"], r["price_model"], r["per_tflop_hour_converted"]) for r in rows] == [
        ("p5.48xlarge", "spot", "0.002781"),  # 22.016 / 8 / 989.5
        ("ecs.gn8v-8x", "monthly", "0.003588"),  # 163584 / 720 / 8 / 989.5 / 8
        ("Standard_NC_H100_half", "on_demand", "0.004042"),  # 2 / 0.5 / 989.5
        ("ecs.gn8v-8x", "on_demand", "0.004485"),  # 284 / 8 / 989.5 / 8
        ("p5.48xlarge", "reserved", "0.005053"),  # (30 + 87600 / 8760) / 8 / 989.5
        ("p5.48xlarge", "on_demand", "0.006953"),
        ("a3-highgpu-8g", "on_demand", "0.011117"),
        ("a2-highgpu-1g", "on_demand", "0.011763"),  # 3.67 / 312
    ]
    by_memory = as_json(loaded("compare", "--gpu", "H100", "--rank-by", "price_per_gb_vram_hour", "--format", "json"))
    assert by_memory[0]["per_gb_vram_hour_converted"] is not None
    table = loaded("compare", "--gpu", "H100", "--rank-by", "price_per_tflop_hour")
    assert table.code == 0 and "per_tflop_h" in table.out
    bad = loaded("compare", "--gpu", "H100", "--rank-by", "cheapness")
    assert bad.code == 2 and "Traceback" not in bad.err
