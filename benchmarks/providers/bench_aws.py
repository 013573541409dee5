"""AWS at full scale.

- A bulk offer file of 1 GB (synthetic, real format, written to a temp folder
  here and removed after) streamed through the GPU filter: peak RSS must stay
  under 300 MB. Baseline: `json.load` of the whole file, then the same filter;
  it is run on a tenth of the size (whole-file loading of 1 GB would need
  gigabytes of memory) and its time scaled up by ten.
- A savings plan file of 1 GB (synthetic, real format: Compute and EC2
  Instance plans, every rate of every type, tenancy and OS, Fargate, Lambda)
  streamed through the GPU rate filter: peak RSS under 300 MB too. Baseline
  as above: `json.load` of a tenth of the size, time scaled up.
- A full region's pricing-page table (the 1,322-row us-east-1 Linux fixture)
  parsed and normalized in under 0.2 s. Baseline: every row turned into a
  quote first and the GPU rows picked afterwards.
- `gpu-tracker crawl aws` over every region, replayed: the 36 priced AWS
  Regions x Linux and Windows, full-size tables (1,322 / 932 rows each,
  about 40 MB of JSON; built by aws_pricing_pages.py into a temp folder),
  crawled, normalized and stored in a fresh SQLite store; every region's rows
  must arrive. Peak RSS is that of the CLI or its crawl child, whichever is
  larger. Baseline: one region's crawl (us-east-1 from its own 1.4 MB
  capture, the same two tables at full size plus the spot feed), times 36:
  what crawling region by region would cost.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from benchmarks.harness import Figure, measure_in_child, timed
from benchmarks.providers.aws_offer_file import write_offer_file
from benchmarks.providers.aws_pricing_pages import all_regions_entries, priced_regions, template
from benchmarks.providers.aws_savings_file import write_big_plan_file
from spiders.aws.bulk_pages import GpuProducts, offer_subset
from spiders.aws.pages import looks_like_gpu, parse_ondemand_page
from spiders.aws.savings_pages import GpuRates, plan_subset
from spiders.har import read_har, write_har
from tracker.normalize.providers.aws import normalize, ondemand_quote

GB = 1_000_000_000
RSS_LIMIT_MB = 300
PAGE_LIMIT_S = 0.2
FIXTURE = Path(__file__).resolve().parents[2] / "tracker" / "demo_captures" / "aws" / "2026-08-06-us-east-1.har.gz"
LOCATION = "US East (N. Virginia)"
KEEP = GpuProducts.for_systems(["Linux", "Windows"])
KEEP_RATES = GpuRates.for_systems(["Linux", "Windows"])


def stream_file(path: str) -> int:
    with open(path, "rb") as fh:
        return len(offer_subset(fh, KEEP)["products"])


def load_whole_file(path: str) -> int:
    with open(path, "rb") as fh:
        offer = json.load(fh, parse_float=Decimal)
    return sum(1 for p in offer["products"].values() if KEEP(p))


def bulk_figures(quick: bool) -> list[Figure]:
    size = GB // 20 if quick else GB
    with tempfile.TemporaryDirectory(prefix="bench-aws-") as folder:
        big, small = Path(folder) / "index.json", Path(folder) / "slice.json"
        write_offer_file(big, target_bytes=size)
        write_offer_file(small, target_bytes=size // 10)
        real_size = big.stat().st_size
        seconds, rss, kept = measure_in_child(stream_file, str(big))
        base_seconds, base_rss, _base_kept = measure_in_child(load_whole_file, str(small))
    scale = real_size / small.stat().st_size if small.exists() else 10
    return [
        Figure(
            name=f"aws bulk offer file, {real_size / 1e9:.2f} GB streamed (ijson)",
            seconds=seconds,
            baseline_name="json.load whole file (x10 from a 1/10 file)",
            baseline_seconds=base_seconds * scale,
            peak_rss_mb=rss,
            target=f"peak RSS < {RSS_LIMIT_MB} MB",
            passed=rss < RSS_LIMIT_MB,
            note=f"kept {kept} GPU SKUs; baseline peak RSS {base_rss:.0f} MB on {real_size / scale / 1e6:.0f} MB",
        )
    ]


def stream_plan_file(path: str) -> int:
    with open(path, "rb") as fh:
        return sum(len(t["rates"]) for t in plan_subset(fh, KEEP_RATES)["terms"].values())


def load_whole_plan_file(path: str) -> int:
    with open(path, "rb") as fh:
        page = json.load(fh, parse_float=Decimal)
    return sum(1 for t in page["terms"]["savingsPlan"] for r in t["rates"] if KEEP_RATES(r))


def plan_figures(quick: bool) -> list[Figure]:
    size = GB // 20 if quick else GB
    with tempfile.TemporaryDirectory(prefix="bench-aws-sp-") as folder:
        big, small = Path(folder) / "index.json", Path(folder) / "slice.json"
        rates = write_big_plan_file(big, size)
        write_big_plan_file(small, size // 10)
        real_size, small_size = big.stat().st_size, small.stat().st_size
        seconds, rss, kept = measure_in_child(stream_plan_file, str(big))
        base_seconds, base_rss, _ = measure_in_child(load_whole_plan_file, str(small))
    scale = real_size / small_size
    return [
        Figure(
            name=f"aws savings plan file, {real_size / 1e9:.2f} GB streamed (ijson)",
            seconds=seconds,
            baseline_name=f"json.load whole file (x{scale:.1f} from a 1/10 file)",
            baseline_seconds=base_seconds * scale,
            peak_rss_mb=rss,
            target=f"peak RSS < {RSS_LIMIT_MB} MB",
            passed=rss < RSS_LIMIT_MB,
            note=f"kept {kept} of {rates} rates; baseline peak RSS {base_rss:.0f} MB on {small_size / 1e6:.0f} MB",
        )
    ]


def page_body() -> bytes:
    entry = next(e for e in read_har(FIXTURE)["log"]["entries"] if "/Linux/index.json" in e["request"]["url"])
    return entry["response"]["content"]["text"].encode()


def parse_page(body: bytes) -> int:
    manifest, rows = parse_ondemand_page(body, LOCATION)
    items: list[Any] = [  # as the spider's items.jsonl holds them, read back untyped
        {
            "kind": "aws.ondemand",
            "observed_at": "2026-08-06T06:00:00Z",
            "source_url": "u",
            "region": "us-east-1",
            "os": "Linux",
            "currency": manifest["currencyCode"],
            "data": r,
        }
        for r in rows
    ]
    return len(normalize(items).quotes)


def quote_every_row(body: bytes) -> int:
    page = json.loads(body, parse_float=Decimal)
    quotes = [
        ondemand_quote(
            {  # type: ignore[typeddict-item]  # the envelope the normalizer reads, without kind and published
                "observed_at": "2026-08-06T06:00:00Z",
                "source_url": "u",
                "region": "us-east-1",
                "os": "Linux",
                "currency": "USD",
                "data": r,
            }
        )
        for r in page["regions"][LOCATION].values()
    ]
    return len([q for q in quotes if looks_like_gpu(q.instance_type)])


def best_of(runs: int, fn, body: bytes) -> tuple[float, int]:
    results = [timed(lambda: fn(body)) for _ in range(runs)]
    return min(s for s, _ in results), results[0][1]


def page_figures(quick: bool) -> list[Figure]:
    body = page_body()
    rows = len(json.loads(body)["regions"][LOCATION])
    runs = 3 if quick else 7
    seconds, quotes = best_of(runs, parse_page, body)
    base_seconds, base_quotes = best_of(runs, quote_every_row, body)
    assert quotes == base_quotes, (quotes, base_quotes)
    return [
        Figure(
            name=f"aws pricing page, {rows} rows -> {quotes} GPU quotes",
            seconds=seconds,
            baseline_name="quote every row, then filter",
            baseline_seconds=base_seconds,
            target=f"< {PAGE_LIMIT_S} s",
            passed=seconds < PAGE_LIMIT_S,
            note=f"best of {runs}",
        )
    ]


def crawl_cli(har: str, home: str, regions: list[str]) -> tuple[float, float, dict[str, int]]:
    """`gpu-tracker crawl aws --replay har` in a fresh home: (seconds, peak RSS
    MB of the CLI and its crawl child, on-demand rows per region). Meant for
    measure_in_child, so that the RSS of earlier children does not count."""
    env = {k: v for k, v in os.environ.items() if k != "GPU_TRACKER_DATABASE_URL"}
    cli = [sys.executable, "-c", "from tracker.cli import run; run()", "--home", home]
    flags = [a for r in regions for a in ("--region", r)]
    start = time.perf_counter()
    done = subprocess.run([*cli, "crawl", "aws", *flags, "--replay", har], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"crawl aws failed: {done.stderr.strip()[-500:]}")
    # ru_maxrss of RUSAGE_CHILDREN: the largest one descendant, not their sum.
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    listed = subprocess.run(
        [*cli, "prices", "--provider", "aws", "--price-model", "on_demand", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    per_region: dict[str, int] = {}
    for row in json.loads(listed.stdout):
        per_region[row["region"]] = per_region.get(row["region"], 0) + 1
    return seconds, rss, per_region


def crawl_figures(quick: bool) -> list[Figure]:
    started = datetime(2026, 8, 6, 6, tzinfo=UTC)
    codes = [code for _, code in priced_regions(template())]
    # --quick: tables cut to their GPU rows and 100 others.
    cut: dict[str, Any] = {"gpu_rows": None, "other_rows": 100} if quick else {}
    with tempfile.TemporaryDirectory(prefix="bench-aws-crawl-") as folder:
        har = Path(folder) / "all-regions.har"
        write_har(har, list(all_regions_entries(started, **cut)))
        size_mb = har.stat().st_size / 1e6
        _, _, (seconds, rss, per_region) = measure_in_child(crawl_cli, str(har), f"{folder}/all", [])
        _, _, (one_seconds, one_rss, one) = measure_in_child(crawl_cli, str(FIXTURE), f"{folder}/one", ["us-east-1"])
    complete = sorted(per_region) == sorted(codes) and len(set(per_region.values())) == 1
    return [
        Figure(
            name=f"aws crawl, all {len(per_region)}/{len(codes)} regions x Linux+Windows replayed ({size_mb:.0f} MB HAR)",
            seconds=seconds,
            baseline_name=f"one region's crawl x {len(codes)}",
            baseline_seconds=one_seconds * len(codes),
            peak_rss_mb=rss,
            target="every region's rows stored",
            passed=complete,
            note=f"{sum(per_region.values())} on-demand rows ({one['us-east-1']} a region); "
            f"one region {one_seconds:.1f} s, peak RSS {one_rss:.0f} MB",
        )
    ]


def run(quick: bool) -> list[Figure]:
    return page_figures(quick) + crawl_figures(quick) + bulk_figures(quick) + plan_figures(quick)
