"""Hand-written price rows for the analytics tests, and helpers that load
them through `gpu-tracker import`. Every expected number in the tests is
worked out by hand from these rows."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# One US dollar buys 8 CNY in these tests (set in config.toml), so CNY / 8 = USD.
FX_CONFIG = """
[analytics.fx]
date = "2026-12-01"
source = "test treasury"
per_usd = { CNY = "8" }
"""

H100_ROWS: list[dict[str, Any]] = [
    {
        "provider": "aws",
        "region": "us-east-1",
        "instance_type": "p5.48xlarge",
        "gpu_model": "H100",
        "gpu_count": "8",
        "gpu_memory_gb": "640",
        "gpu_interconnect": "NVSwitch",
        "network_gbps": "3200",
        "price_model": "on_demand",
        "price": "55.04",
        "currency": "USD",
        "unit": "hour",
    },
    {
        "provider": "aws",
        "region": "us-east-1",
        "zone": "us-east-1a",
        "instance_type": "p5.48xlarge",
        "gpu_model": "H100",
        "gpu_count": "8",
        "price_model": "spot",
        "price": "22.016",
        "currency": "USD",
        "unit": "hour",
    },
    {
        "provider": "aws",
        "region": "us-east-1",
        "instance_type": "p5.48xlarge",
        "gpu_model": "H100",
        "gpu_count": "8",
        "price_model": "reserved",
        "term": "1yr",
        "payment_option": "partial_upfront",
        "price": "30",
        "upfront_fee": "87600",
        "currency": "USD",
        "unit": "hour",
    },
    {
        "provider": "alibaba",
        "region": "cn-beijing",
        "instance_type": "ecs.gn8v-8x",
        "gpu_model": "H100",
        "gpu_count": "8",
        "price_model": "on_demand",
        "price": "284",
        "currency": "CNY",
        "unit": "hour",
    },
    {
        "provider": "alibaba",
        "region": "cn-beijing",
        "instance_type": "ecs.gn8v-8x",
        "gpu_model": "H100",
        "gpu_count": "8",
        "price_model": "monthly",
        "term": "1mo",
        "price": "163584",
        "currency": "CNY",
        "unit": "month",
    },
    {
        "provider": "azure",
        "region": "eastus",
        "instance_type": "Standard_NC_H100_half",
        "gpu_model": "H100",
        "gpu_count": "0.5",
        "price_model": "on_demand",
        "price": "2",
        "currency": "USD",
        "unit": "hour",
    },
    {
        "provider": "gcp",
        "region": "europe-west4",
        "instance_type": "a3-highgpu-8g",
        "gpu_model": "H100",
        "gpu_count": "8",
        "price_model": "on_demand",
        "price": "88",
        "currency": "USD",
        "unit": "hour",
    },
    {
        "provider": "gcp",
        "region": "europe-west4",
        "instance_type": "a2-highgpu-1g",
        "gpu_model": "A100 40GB",
        "gpu_count": "1",
        "price_model": "on_demand",
        "price": "3.67",
        "currency": "USD",
        "unit": "hour",
    },
]


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    columns = sorted({k for r in rows for k in r})
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


def load_rows(
    cli, tmp_path: Path, rows: Sequence[dict[str, Any]], *, source: str = "fixture", name: str = "rows.jsonl"
) -> None:
    result = cli("import", str(write_jsonl(tmp_path / name, rows)), "--source", source, "--format", "json")
    assert result.code == 0, result.err


def use_config(home: Path, text: str = FX_CONFIG) -> None:
    (home / "config.toml").write_text(text, encoding="utf-8")


def as_json(result) -> Any:
    assert result.code == 0, result.err
    return json.loads(result.out)


def as_csv(result) -> list[dict[str, str]]:
    assert result.code == 0, result.err
    return list(csv.DictReader(result.out.splitlines()))
