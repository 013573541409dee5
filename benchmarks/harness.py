"""What a benchmark reports, and how peak memory is measured."""

from __future__ import annotations

import multiprocessing as mp
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from queue import Empty
from typing import Any


@dataclass
class Figure:
    name: str
    seconds: float
    baseline_name: str = ""
    baseline_seconds: float | None = None
    peak_rss_mb: float | None = None
    target: str = ""
    passed: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if not self.baseline_seconds:
            return None
        return self.seconds / self.baseline_seconds


def peak_rss_mb() -> float:
    """Peak resident memory of this process and of the largest of its ended
    children (an import's worker process) together, in MB (Linux reports
    KiB): an upper bound on what they held at once."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return (own + children) / 1024


def _child(fn: Callable[..., Any], args: tuple[Any, ...], queue: Any) -> None:
    start = time.perf_counter()
    try:
        value = fn(*args)
    except BaseException as exc:
        queue.put(("error", f"{type(exc).__name__}: {exc}"))
        raise
    queue.put(("ok", (time.perf_counter() - start, peak_rss_mb(), value)))


def measure_in_child(fn: Callable[..., Any], *args: Any) -> tuple[float, float, Any]:
    """Run `fn(*args)` in a fresh process: (seconds, peak RSS MB, result).
    A fresh, spawned process makes the peak RSS that of this work alone (a
    forked one would count the parent's pages too), so `fn` must be a
    module-level function and `args` picklable."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(fn, args, queue))
    proc.start()
    while True:
        try:
            status, result = queue.get(timeout=1)
            break
        except Empty:
            if not proc.is_alive():
                raise RuntimeError(f"{fn.__name__} died with exit code {proc.exitcode}") from None
    proc.join()
    if status == "error":
        raise RuntimeError(f"{fn.__name__} failed: {result}")
    return result


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value
