"""The dashboard under a team's load (issue 40.11): a whole `gpu-tracker serve`
process, and clients on the same machine (`loadgen.py`: httpx on asyncio,
each client waiting for its whole answer before asking the next page).

On the demo store and on 1,000,000 open prices with three days of history
(`answer_store.py`, built once by `bench_answers.store` and kept with
GPU_TRACKER_BENCH_KEEP; `--quick`: 100,000), after each page was asked once:
- a team: 10 clients for DURATION seconds over the pages a team opens
  (TEAM_PATHS): p95 <= 200 ms, its throughput stated;
- the same team with nothing kept between requests (`[web] cache_seconds =
  0`): what the answers cost when each is worked out, stated, no target;
- a crowd: 50 clients, every request answered (no error, no timeout).
The baseline is the same server's /healthz under the same 10 clients: the
cost of HTTP, the app and the machine alone. The server's CPU time per
answer is in each note (the machine's other work moves the wall times).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.bench_web import _get, _gpu_tracker, _peak_rss_mb, _port
from benchmarks.drivers.loadgen import Load, hammer
from benchmarks.harness import Figure

TEAM = 10
CROWD = 50
DURATION = 30.0
QUICK_DURATION = 10.0
BASELINE_DURATION = 5.0
P95_LIMIT = 0.200
# The pages a team opens, and the API a script of theirs asks.
TEAM_PATHS = [
    "/",
    "/prices",
    "/prices?gpu=H100",
    "/prices?gpu=A100&sort=price_per_gpu_hour",
    "/prices?region_group=us&price_model=on_demand",
    "/prices?page=2",
    "/changes",
    "/changes?kind=price_drop",
    "/offers",
    "/sources",
    "/feeds/changes.atom",
    "/api/prices?limit=100",
    "/api/prices?gpu=H100&sort=price&limit=100",
    "/api/changes?limit=100",
    "/api/sources",
    "/instances/{provider}/{instance}",
    "/api/history/{instance}",
    "/recommend",
]
# Not here: compare and recommend's answers, which rank the whole store once
# per set of needs and are then kept (a first answer at a million prices
# takes seconds to minutes: `bench_web.RANKED_PATHS`, `bench_answers`).


def _paths(db: Path) -> list[str]:
    """TEAM_PATHS with an instance type the store holds (an open H100 price)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        found = conn.execute(
            "SELECT provider, instance_type FROM price_points WHERE valid_to IS NULL AND gpu_model = 'H100' "
            "ORDER BY provider, instance_type LIMIT 1"
        ).fetchone()
    provider, instance = found or ("aws", "p5.48xlarge")
    return [p.format(provider=provider, instance=instance) for p in TEAM_PATHS]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def serving(home: Path, env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """`gpu-tracker serve` over the store of `home` (or of $GPU_TRACKER_DATABASE_URL): its base URL and pid."""
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
        yield base, server.pid
    finally:
        server.terminate()
        server.wait(timeout=30)


def _warm(base: str, paths: list[str]) -> dict[str, float]:
    """Each page asked once, in English and in Chinese: the first answers' seconds."""
    first = {}
    for path in paths:
        first[path] = _get(base + path, timeout=900)
        request = urllib.request.Request(base + path, headers={"Accept-Language": "zh-CN"})
        with urllib.request.urlopen(request, timeout=900) as answer:
            answer.read()
    return first


def _loaded(base: str, pid: int, paths: list[str], clients: int, seconds: float) -> tuple[Load, float]:
    """The load, and the server's CPU seconds per answer under it."""
    cpu = _cpu_seconds(pid)
    load = hammer(base, paths, clients, seconds)
    return load, (_cpu_seconds(pid) - cpu) / max(1, len(load.times))


def _note(load: Load, cpu: float) -> str:
    slowest = ", ".join(f"{p} {t * 1000:.0f} ms" for p, t in load.slowest_paths(2))
    machine = os.getloadavg()[0]
    return (
        f"{load.summary()}; server CPU {cpu * 1000:.1f} ms an answer; slowest p95: {slowest}; "
        f"load average {machine:.1f} on {os.cpu_count()} cores"
    )


def measure(label: str, home: Path, env: dict[str, str], db: Path, seconds: float) -> list[Figure]:
    paths = _paths(db)
    figures = []
    with serving(home, env) as (base, pid):
        first = _warm(base, paths)
        health, _ = _loaded(base, pid, ["/healthz"], TEAM, BASELINE_DURATION)
        team, cpu = _loaded(base, pid, paths, TEAM, seconds)
        worst = max(first, key=lambda p: first[p])
        figures.append(
            Figure(
                f"web load: {TEAM} clients, {label}",
                team.quantile(95),
                f"/healthz p95, {TEAM} clients",
                health.quantile(95),
                peak_rss_mb=_peak_rss_mb(pid),
                target=f"p95 <= {P95_LIMIT * 1000:.0f} ms, none failed",
                passed=team.quantile(95) <= P95_LIMIT and not team.errors,
                note=f"{_note(team, cpu)}; first answers up to {first[worst]:.2f} s ({worst})",
            )
        )
        crowd, cpu = _loaded(base, pid, paths, CROWD, seconds)
        figures.append(
            Figure(
                f"web load: {CROWD} clients, {label}",
                crowd.quantile(95),
                f"/healthz p95, {TEAM} clients",
                health.quantile(95),
                peak_rss_mb=_peak_rss_mb(pid),
                target="none failed",
                passed=not crowd.errors and crowd.requests > 0,
                note=_note(crowd, cpu),
            )
        )
    # The same team with nothing kept: each answer worked out when asked.
    cold_home = home.parent / f"{home.name}-uncached"
    cold_home.mkdir(exist_ok=True)
    (cold_home / "config.toml").write_text("[web]\ncache_seconds = 0\n", encoding="utf-8")
    cold_env = {**env, "GPU_TRACKER_DATABASE_URL": env.get("GPU_TRACKER_DATABASE_URL") or f"sqlite:///{db}"}
    with serving(cold_home, cold_env) as (base, pid):
        _warm(base, paths)
        cold, cpu = _loaded(base, pid, paths, TEAM, seconds)
    figures.append(
        Figure(
            f"web load: {TEAM} clients, {label}, nothing kept (cache_seconds = 0)",
            cold.quantile(95),
            f"/healthz p95, {TEAM} clients",
            health.quantile(95),
            note=_note(cold, cpu),
        )
    )
    return figures


def run(quick: bool) -> list[Figure]:
    from benchmarks.bench_answers import store

    seconds = QUICK_DURATION if quick else DURATION
    figures: list[Figure] = []
    env = {k: v for k, v in os.environ.items() if k != "GPU_TRACKER_DATABASE_URL"}
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        demo = Path(tmp) / "demo"
        subprocess.run(_gpu_tracker("--home", str(demo), "demo"), env=env, check=True, capture_output=True)
        figures += measure("demo store", demo, env, demo / "tracker.db", seconds)

        n = 100_000 if quick else 1_000_000
        keep = os.environ.get("GPU_TRACKER_BENCH_KEEP")
        folder = Path(keep) if keep else Path(tmp) / "big"
        (folder / "home").mkdir(parents=True, exist_ok=True)
        url, how = store("sqlite", n, folder, folder / "home")
        home = Path(tmp) / "big-home"
        home.mkdir()
        big_env = {**env, "GPU_TRACKER_DATABASE_URL": url}
        found = measure(f"{n:,} open prices", home, big_env, Path(url.removeprefix("sqlite:///")), seconds)
        found[0].note += f"; the store: {how}"
        figures += found
    return figures
