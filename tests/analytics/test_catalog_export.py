"""`export --format skypilot|gpuhunt DIR` on the demo store: catalogs the
tools read (issue 43, item 4; tracker/analytics/outputs/catalogs.py says
where each format was read).

gpuhunt's files are loaded with gpuhunt's own reader (the package is in the
dev extra). SkyPilot does not install beside this project (it pins older
uvicorn and click), so its files are read here as its reader does, step by
step from its source (skypilot-org/skypilot, sky/catalog/common.py):
`read_catalog` is `pd.read_csv`; `list_accelerators_impl` parses GpuInfo with
`ast.literal_eval` and reads `Gpus[0]['MemoryInfo']['SizeInMiB']`;
`get_hourly_cost_impl` asserts one on-demand price per region;
`get_vcpus_mem_from_instance_type_impl` one vCPU count and one memory size
per instance type. (SkyPilot 0.14.1 itself read the same export in a
separate environment: docs/usage.md.)
"""

from __future__ import annotations

import ast
import csv
from decimal import Decimal
from pathlib import Path

import pandas as pd

from tests.helpers.analytics_data import as_json
from tracker.file_import.skypilot import COLUMNS, GPU_NAMES


def test_skypilot_catalogs_read_as_skypilot_reads_them(demo_cli, tmp_path: Path) -> None:
    folder = tmp_path / "sky"
    result = demo_cli("export", "--format", "skypilot", str(folder))
    assert result.code == 0, result.err
    clouds = sorted(p.parent.name for p in folder.glob("*/vms.csv"))
    assert clouds == ["aws", "azure", "do", "lambda", "nebius", "oci", "verda"]
    assert "left out, priced in CNY, not USD" in result.err  # AWS's China regions
    for cloud in clouds:
        df = pd.read_csv(folder / cloud / "vms.csv")
        assert tuple(df.columns) == COLUMNS, cloud
        memory = df["GpuInfo"].apply(ast.literal_eval).apply(lambda r: r["Gpus"][0]["MemoryInfo"]["SizeInMiB"]) / 1024
        assert (memory > 0).all(), cloud
        for (_, region), prices in df.groupby(["InstanceType", "Region"]):
            assert len(set(prices["Price"].dropna())) <= 1, (cloud, region)
        for name, rows in df.groupby("InstanceType"):
            assert len(set(rows["vCPUs"])) == 1 and len(set(rows["MemoryGiB"])) == 1, (cloud, name)
            assert rows["vCPUs"].notna().all() and rows["MemoryGiB"].notna().all(), (cloud, name)
    aws = pd.read_csv(folder / "aws" / "vms.csv")
    p5 = aws[(aws["InstanceType"] == "p5.48xlarge") & (aws["Region"] == "us-east-1")]
    assert set(p5["AcceleratorName"]) == {"H100"} and set(p5["AcceleratorCount"]) == {8.0}
    info = ast.literal_eval(p5["GpuInfo"].iloc[0])
    assert info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] == 81920 and info["TotalGpuMemoryInMiB"] == 655360
    # The figures are the store's: the on-demand price in every zone row, each zone its own spot price.
    prices = as_json(demo_cli("prices", "--instance-type", "p5.48xlarge", "--region", "us-east-1", "--format", "json"))
    on_demand = {Decimal(r["price"]) for r in prices if r["price_model"] == "on_demand" and r["os"] == "linux"}
    spot = {r["zone"]: Decimal(r["price"]) for r in prices if r["price_model"] == "spot"}
    assert {Decimal(str(v)) for v in p5["Price"]} == {min(on_demand)}
    assert {z: Decimal(str(v)) for z, v in zip(p5["AvailabilityZone"].fillna(""), p5["SpotPrice"], strict=True)} == spot
    azure = pd.read_csv(folder / "azure" / "vms.csv")
    assert "A100-80GB" in set(azure.loc[azure["InstanceType"] == "Standard_ND96amsr_A100_v4", "AcceleratorName"])
    nebius = pd.read_csv(folder / "nebius" / "vms.csv")
    assert all("_" in t and "." not in t.split("_")[0] for t in nebius["InstanceType"])


def test_skypilot_catalog_imports_back(demo_cli, tmp_path: Path) -> None:
    """Our own reader of SkyPilot catalogs reads the export back: the same prices."""
    folder = tmp_path / "sky"
    assert demo_cli("export", "--format", "skypilot", str(folder), "--provider", "lambda").code == 0
    assert [p.parent.name for p in folder.glob("*/vms.csv")] == ["lambda"]
    # Under another provider name: the rows' own columns are read (no instance table of ours for it).
    back = demo_cli(
        "import", str(folder / "lambda" / "vms.csv"), "--source", "again", "--from", "skypilot", "--provider", "again"
    )
    assert back.code == 0, back.err

    def listed(provider: str) -> set[tuple[str, str, str, str, Decimal, str | None]]:
        rows = as_json(demo_cli("prices", "--provider", provider, "--format", "json"))
        # A model SkyPilot names its own way (RTX 4090 -> RTX4090) comes back in SkyPilot's name.
        return {
            (r["region"], r["instance_type"], r["price_model"], r["gpu_count"], Decimal(r["price"]), model)
            for r in rows
            if (model := r["gpu_model"] if r["gpu_model"] in GPU_NAMES.values() else None) or True
        }

    assert listed("again") == listed("lambda")


def test_gpuhunt_catalogs_load_with_gpuhunt(demo_cli, tmp_path: Path, monkeypatch) -> None:
    from gpuhunt import Catalog
    from gpuhunt._internal import storage

    folder = tmp_path / "hunt"
    result = demo_cli("export", "--format", "gpuhunt", str(folder))
    assert result.code == 0, result.err
    names = sorted(p.stem for p in folder.glob("*.csv"))
    assert names == ["aws", "azure", "gcp", "lambdalabs", "nebius", "oci", "verda"]
    for name in names:
        with (folder / f"{name}.csv").open(encoding="utf-8") as fh:
            assert next(csv.reader(fh)) == storage.CATALOG_V2_FIELDS
        with (folder / f"{name}.csv").open(encoding="utf-8") as fh:
            rows = sum(1 for _ in csv.DictReader(fh))
        with (folder / f"{name}.csv").open(encoding="utf-8") as fh:
            items = list(storage.load(fh, provider=name))
        assert len(items) == rows > 0, name  # no row skipped as malformed
    monkeypatch.setenv("GPUHUNT_CATALOG_DIR", str(folder))
    catalog = Catalog(balance_resources=False, auto_reload=False)
    h100 = catalog.query(provider=["aws"], gpu_name="H100", min_gpu_count=8)
    p5 = [i for i in h100 if i.instance_name == "p5.48xlarge" and i.location == "us-east-1"]
    assert {(i.spot, i.cpu, i.memory, i.gpu_count, i.gpu_memory) for i in p5} == {
        (False, 192, 2048.0, 8, 80.0),
        (True, 192, 2048.0, 8, 80.0),
    }
    a100 = catalog.query(provider=["azure"], gpu_name="A100", min_gpu_memory=80)
    assert "Standard_ND96amsr_A100_v4" in {i.instance_name for i in a100}
    assert all(" " in i.instance_name for i in catalog.query(provider=["nebius"]))


def test_bad_catalog_asks_are_one_sentence(demo_cli, tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    for args, said in (
        (["--format", "skypilot", str(a_file)], "is a folder of files"),
        (
            ["--format", "gpuhunt", str(tmp_path / "x"), "--provider", "alibaba"],
            "this catalog has no cloud for alibaba",
        ),
        (["everything"], "'everything' is not one of prices, history, changes, offers"),
        (["--format", "skypilot", str(tmp_path / "y"), "--gpu", "NoSuchGPU"], "nothing written"),
    ):
        result = demo_cli("export", *args)
        assert result.code in (1, 2) and "Traceback" not in result.err, args
        assert said in " ".join(result.err.split()), (args, result.err)
