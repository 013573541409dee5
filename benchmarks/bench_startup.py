"""Start-up: whole `gpu-tracker` processes against the toolkit they are built on.

In one run, alternating so that a busy machine weighs on both alike:
- baseline: `python -c "import typer, rich.console"`;
- `gpu-tracker --help`: within 3x the baseline's time and 60 MB of its peak RSS;
- `gpu-tracker prices --gpu H100 --format json` on a demo store: within 5x;
- `gpu-tracker demo` into a fresh folder: within 8 s.

Each figure is the median of N runs (the demo: one run, it builds the store
the query reads). The note gives CPU time (user + system) besides the wall
time: on a shared machine it moves less than the wall clock.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.harness import Figure, measure_in_child

ROOT = Path(__file__).resolve().parents[1]
DEMO_CAPTURES = ROOT / "tracker" / "demo_captures"
BASELINE = [sys.executable, "-c", "import typer, rich.console"]


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float


def gpu_tracker(*args: str) -> list[str]:
    """The installed console script when there is one, the same entry point otherwise."""
    script = Path(sys.executable).parent / "gpu-tracker"
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-c", "from tracker.cli import run; run()", *args]


def run_once(argv: list[str], env: dict[str, str]) -> Run:
    """One whole process: wall time, CPU time and peak RSS of that process alone."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def median(runs: list[Run]) -> Run:
    return Run(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.rss_mb for r in runs),
    )


def compare(argv: list[str], env: dict[str, str], n: int) -> tuple[Run, Run]:
    """Median of n runs of the baseline and of `argv`, alternated."""
    base, mine = [], []
    for _ in range(n):
        base.append(run_once(BASELINE, env))
        mine.append(run_once(argv, env))
    return median(base), median(mine)


def figure(name: str, base: Run, mine: Run, limit: float, *, rss_limit: float | None = None) -> Figure:
    ratio, cpu_ratio, extra = mine.wall / base.wall, mine.cpu / base.cpu, mine.rss_mb - base.rss_mb
    ok = ratio <= limit and (rss_limit is None or extra <= rss_limit)
    target = f"<= {limit:g}x" + (f", <= +{rss_limit:g} MB" if rss_limit is not None else "")
    return Figure(
        name=name,
        seconds=mine.wall,
        baseline_name="import typer, rich.console",
        baseline_seconds=base.wall,
        peak_rss_mb=mine.rss_mb,
        target=target,
        passed=ok,
        note=f"CPU {mine.cpu:.3f} s vs {base.cpu:.3f} s ({cpu_ratio:.2f}x); peak RSS {extra:+.0f} MB vs baseline",
    )


def run(quick: bool) -> list[Figure]:
    """Measured from a fresh, small process: a child started by exec keeps
    the peak RSS of the process that started it (Linux carries the old
    image's high-water mark over), which after the import benchmark is this
    one's gigabyte and more."""
    return measure_in_child(_figures, quick)[2]


def _figures(quick: bool) -> list[Figure]:
    n = 3 if quick else 9
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        home = Path(tmp) / "home"
        env = {**os.environ, "GPU_TRACKER_HOME": str(home), "PYTHONPATH": str(ROOT)}
        env.pop("GPU_TRACKER_DATABASE_URL", None)
        figures = [figure("gpu-tracker --help", *compare(gpu_tracker("--help"), env, n), 3, rss_limit=60)]
        demo = run_once(gpu_tracker("demo"), env)
        figures.append(
            Figure(
                name=f"gpu-tracker demo ({len(list(DEMO_CAPTURES.glob('*/*.har*')))} captures, one run)",
                seconds=demo.wall,
                baseline_name="the 8 s target",
                baseline_seconds=8.0,
                peak_rss_mb=demo.rss_mb,
                target="<= 1x (8 s)",
                passed=demo.wall <= 8.0,
                note=f"CPU {demo.cpu:.1f} s, the CLI and its crawler process together",
            )
        )
        query = gpu_tracker("prices", "--gpu", "H100", "--format", "json")
        figures.append(figure("prices --gpu H100 --format json (demo store)", *compare(query, env, n), 5))
    return figures
