"""The dashboard and JSON API (`gpu-tracker serve`) answering over HTTP.

A whole `gpu-tracker serve` process over a store; every page and API answer
asked for once to warm it (answers that rank the whole store are kept until a
run changes it), then ROUNDS times, round-robin. Figures:
- the demo store: every answer's p95 under 50 ms;
- 1,000,000 open prices (the import benchmark's rows, `--quick`: 100,000): under 200 ms;
- the server's peak RSS (VmHWM) under 200 MB.
The baseline is the same server's /healthz, the cost of HTTP and the app alone.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.harness import Figure

ROUNDS = 40
PATHS = [
    "/",
    "/prices",
    "/prices?gpu=A100&sort=price_per_gpu_hour",
    "/prices?region_group=us&price_model=on_demand&page=2",
    "/changes",
    "/changes?since=30d&kind=price_drop",
    "/offers",
    "/sources",
    "/recommend",
    "/api/prices?limit=100",
    "/api/prices?gpu=H100&sort=price&order=desc&limit=100",
    "/api/changes?limit=100",
    "/api/offers",
    "/api/sources",
    "/feeds/changes.atom",
]
DEMO_PATHS = [
    *PATHS,
    "/instances/aws/p5.48xlarge",
    "/api/history/p5.48xlarge",
    "/api/compare?gpu=H100",
    "/api/recommend?gpus=8&min_gpu_memory=70",
    "/recommend?gpus=1&gpu=A100",
]
# Every sort the prices page offers, in both directions where one was slow
# (issue 33), and filters that match few of the million rows.
SORT_PATHS = [
    "/prices?sort=provider&order=desc",
    "/prices?sort=region",
    "/prices?sort=region&order=desc",
    "/prices?sort=instance_type&order=desc",
    "/prices?sort=gpu_model",
    "/prices?sort=gpu_count&order=desc",
    "/prices?sort=price_model",
    "/prices?sort=observed_at&order=desc",
    "/api/prices?sort=instance_type&limit=100",
    "/api/prices?sort=region&order=desc&offset=10000&limit=100",
    "/prices?gpu=H100",
    "/prices?instance_type=gx2500.3xlarge",
    "/prices?region=region-7",
    "/prices?provider=bench&region=region-7&sort=price",
    "/prices?region=region-7&sort=observed_at&order=desc",
    "/prices?price_model=spot&region=region-7&sort=price",
    "/prices?price_model=spot&instance_type=gx10.1xlarge&sort=gpu_count&order=desc",
]
BIG_PATHS = [
    *PATHS,
    *SORT_PATHS,
    "/instances/bench/gx10.1xlarge",
    "/api/history/gx10.1xlarge",
]
# Answers that rank every matching price (issue 33 too, worked on apart):
# timed on the million, a few rounds each, judged on nothing here.
RANKED_PATHS = ["/api/compare?gpu=H100", "/api/recommend?gpus=8&min_gpu_memory=70"]
RANKED_ROUNDS = 3


def _gpu_tracker(*args: str) -> list[str]:
    script = Path(sys.executable).parent / "gpu-tracker"
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "tracker.cli", *args]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, timeout: float = 120) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        answer.read()
        assert answer.status == 200, url
    return time.perf_counter() - start


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def measure(
    home: Path,
    env: dict[str, str],
    paths: list[str],
    rounds: int = ROUNDS,
    timeout: float = 120,
    cold: dict[str, float] | None = None,
) -> tuple[dict[str, float], float, float]:
    """Per path its p95 in seconds (under 20 rounds, the slowest), the
    /healthz p95 and the server's peak RSS in MB; `cold` gets each path's
    first answer, before the server keeps it."""
    port = _port()
    server = subprocess.Popen(
        _gpu_tracker("--home", str(home), "serve", "--port", str(port)),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                _get(base + "/healthz")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("gpu-tracker serve did not start") from None
                time.sleep(0.2)
        for path in paths:  # warm: the ranked answers are kept until the store changes
            first = _get(base + path, timeout)
            if cold is not None:
                cold[path] = first
        times: dict[str, list[float]] = {p: [] for p in [*paths, "/healthz"]}
        for _ in range(rounds):
            for path in times:
                times[path].append(_get(base + path, timeout))
        p95 = {p: statistics.quantiles(t, n=20)[-1] if rounds >= 20 else max(t) for p, t in times.items()}
        if os.environ.get("GPU_TRACKER_BENCH_P95"):  # every answer's p95, as JSON Lines
            with open(os.environ["GPU_TRACKER_BENCH_P95"], "a") as out:
                out.write(
                    json.dumps({"store": str(home), "p95_ms": {p: round(t * 1000, 1) for p, t in p95.items()}}) + "\n"
                )
        return p95, p95.pop("/healthz"), _peak_rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _figures(label: str, p95: dict[str, float], health: float, rss: float, limit: float) -> list[Figure]:
    worst = max(p95, key=lambda p: p95[p])
    slowest = ", ".join(f"{p} {p95[p] * 1000:.0f} ms" for p in sorted(p95, key=lambda p: -p95[p])[:3])
    return [
        Figure(
            f"web: the slowest answer's p95, {label}",
            p95[worst],
            "/healthz p95",
            health,
            peak_rss_mb=rss,
            target=f"< {limit * 1000:.0f} ms, < 200 MB",
            passed=p95[worst] < limit and rss < 200,
            note=f"{len(p95)} answers x {ROUNDS}; slowest: {slowest}",
        )
    ]


def run(quick: bool) -> list[Figure]:
    figures: list[Figure] = []
    env = {k: v for k, v in os.environ.items() if k != "GPU_TRACKER_DATABASE_URL"}
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        demo = Path(tmp) / "demo"
        subprocess.run(_gpu_tracker("--home", str(demo), "demo"), env=env, check=True, capture_output=True)
        figures += _figures("demo store", *measure(demo, env, DEMO_PATHS), 0.050)

        from benchmarks.bench_import import template

        n = 100_000 if quick else 1_000_000
        keep = os.environ.get("GPU_TRACKER_BENCH_KEEP")  # a folder: the store is built once, kept
        big = Path(keep) / f"web-{n}" if keep else Path(tmp) / "big"
        if not (big / "tracker.db").exists():
            rows = Path(tmp) / "rows.jsonl"
            rows.write_bytes(template(n))
            subprocess.run(
                _gpu_tracker("--home", str(big), "import", str(rows), "--source", "bench"),
                env=env,
                check=True,
                capture_output=True,
            )
        figures += _figures(f"{n:,} open prices", *measure(big, env, BIG_PATHS), 0.200)
        cold: dict[str, float] = {}
        ranked, health, rss = measure(big, env, RANKED_PATHS, RANKED_ROUNDS, timeout=900, cold=cold)
        figures.append(
            Figure(
                f"web: compare and recommend, {n:,} open prices, first answer",
                max(cold.values()),
                "/healthz",
                health,
                peak_rss_mb=rss,
                note="; ".join(f"{p} first {cold[p]:.2f} s, kept {t * 1000:.0f} ms" for p, t in ranked.items()),
            )
        )
    return figures
