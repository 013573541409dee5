"""A store as a real deployment grows one, for the answers benchmark
(`bench_answers.py`): n open prices of ten clouds in their real regions,
twenty GPU models at 1, 2, 4 and 8 GPUs, every price model (on demand on
Linux and Windows, spot, monthly, 1- and 3-year terms with their payment
options, savings plans), in USD, CNY and EUR; then two more days, each
with 5% of the prices moved, so that a million open prices stand on about
1.1 million intervals. Every file is loaded with `gpu-tracker import`, as
a user's daily export would be.

Built stores are kept when GPU_TRACKER_BENCH_KEEP names a folder: building
a million-price store takes minutes, and one store serves every run.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DAYS = ("2026-03-01T06:00:00+00:00", "2026-03-02T06:00:00+00:00", "2026-03-03T06:00:00+00:00")
MOVED_SHARE = 20  # one price in 20 moves each later day
CLOUDS = {
    "aws": "USD",
    "azure": "USD",
    "gcp": "USD",
    "oci": "USD",
    "lambda": "USD",
    "vultr": "USD",
    "alibaba": "CNY",
    "tencent": "CNY",
    "huawei": "CNY",
    "verda": "EUR",
}
GPUS = {
    "H100": 80,
    "H200": 141,
    "B200": 180,
    "A100 80GB": 80,
    "A100 40GB": 40,
    "L40S": 48,
    "L4": 24,
    "A10": 24,
    "T4": 16,
    "V100": 16,
    "MI300X": 192,
    "RTX A6000": 48,
    "L20": 48,
    "H100 NVL": 94,
    "GH200": 96,
    "A30": 24,
    "RTX PRO 6000": 96,
    "V100 32GB": 32,
    "A10G": 24,
    "RTX 3090": 24,
}
COUNTS = (1, 2, 4, 8)
# Per GPU-hour on demand, USD: the level each model's prices scatter around.
LEVEL = {name: 0.2 + memory / 40 for name, memory in GPUS.items()}


def _regions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {c: [] for c in CLOUDS}
    with (ROOT / "tracker" / "data" / "region_groups.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["provider"] in found and row["region"] != "*":
                found[row["provider"]].append(row["region"])
    return {c: (r or ["region-1"]) for c, r in found.items()}


def _quotes(hourly: float, currency: str) -> Iterator[dict[str, Any]]:
    """The prices of one machine in one region: 12 rows, every price model."""
    yield {"os": "linux", "price_model": "on_demand", "price": hourly, "unit": "hour"}
    yield {"os": "windows", "price_model": "on_demand", "price": hourly * 1.08, "unit": "hour"}
    yield {"os": "linux", "price_model": "spot", "price": hourly * 0.35, "unit": "hour"}
    yield {"os": "linux", "price_model": "monthly", "term": "1mo", "price": hourly * 720 * 0.8, "unit": "month"}
    for term, years, share in (("1yr", 1, 0.65), ("3yr", 3, 0.45)):
        hours = 8760 * years
        total = hourly * share * hours
        yield {"os": "linux", "price_model": "reserved", "term": term, "payment_option": "no_upfront",
               "price": total, "unit": "term"}  # fmt: skip
        yield {"os": "linux", "price_model": "reserved", "term": term, "payment_option": "partial_upfront",
               "price": total * 0.49, "upfront_fee": total * 0.49, "unit": "term"}  # fmt: skip
        yield {"os": "linux", "price_model": "savings_plan", "term": term, "payment_option": "no_upfront",
               "price": hourly * (share + 0.05), "unit": "hour"}  # fmt: skip
    yield {"os": "linux", "price_model": "reserved", "term": "1yr", "payment_option": "all_upfront",
           "price": hourly * 0.6 * 8760, "unit": "term"}  # fmt: skip
    del currency


def rows(n: int, seed: int = 31) -> list[dict[str, Any]]:
    """n price rows (the largest multiple of 12 up to n), each a distinct price,
    spread over every cloud, region and GPU whatever n is."""
    rnd = random.Random(seed)
    regions = _regions()
    places = [
        (cloud, gpu, count, f"{cloud[:3]}.g{g}x{count}", region)
        for cloud in CLOUDS
        for g, gpu in enumerate(GPUS)
        for count in COUNTS
        for region in regions[cloud]
    ]
    rnd.shuffle(places)
    out: list[dict[str, Any]] = []
    generation = 0
    while len(out) + 12 <= n:
        for cloud, gpu, count, base, region in places:
            if len(out) + 12 > n:
                break
            currency = CLOUDS[cloud]
            rate = {"USD": 1.0, "CNY": 7.1, "EUR": 0.86}[currency]
            hourly = LEVEL[gpu] * count * rate * rnd.uniform(0.7, 1.6)
            for quote in _quotes(hourly, currency):
                row = {
                    "provider": cloud,
                    "region": region,
                    "instance_type": f"{base}.v{generation}",
                    "gpu_model": gpu,
                    "gpu_count": str(count),
                    "gpu_memory_gb": str(GPUS[gpu] * count),
                    "vcpu": str(12 * count),
                    "memory_gb": str(120 * count),
                    "term": "",
                    "payment_option": "",
                    "currency": currency,
                    "source_url": f"https://example.test/{cloud}/prices",
                    **quote,
                }
                row["price"] = f"{row['price']:.6f}"
                if "upfront_fee" in row:
                    row["upfront_fee"] = f"{row['upfront_fee']:.2f}"
                out.append(row)
        generation += 1
    return out


def moved(base: list[dict[str, Any]], day: int) -> list[dict[str, Any]]:
    """The prices a day later: one in MOVED_SHARE moved by 5 or 10%."""
    rnd = random.Random(1000 + day)
    return [
        {**row, "price": f"{float(row['price']) * rnd.choice((0.9, 0.95, 1.05, 1.1)):.6f}"}
        if rnd.randrange(MOVED_SHARE) == 0
        else row
        for row in base
    ]


def day_files(folder: Path, n: int) -> list[Path]:
    """The three days' files of an n-price store (written once per folder)."""
    paths = [folder / f"prices-{n}-day{d}.jsonl" for d in range(len(DAYS))]
    if all(p.exists() for p in paths):
        return paths
    current = rows(n)
    for day, path in enumerate(paths):
        if day:
            current = moved(current, day)
        with path.open("w", encoding="utf-8") as fh:
            for row in current:
                fh.write(json.dumps({**row, "observed_at": DAYS[day]}, separators=(",", ":")) + "\n")
    return paths
