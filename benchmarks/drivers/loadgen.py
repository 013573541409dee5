"""A small load generator: n clients, each asking the paths in turn for a
while and waiting for each whole answer before the next (a closed loop, as
people clicking through the dashboard do). httpx on asyncio, one event loop,
one connection per client (kept alive, as a browser keeps it)."""

from __future__ import annotations

import asyncio
import ssl
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx


@dataclass
class Load:
    """What n clients saw: every whole request's seconds, and what failed."""

    clients: int
    seconds: float
    times: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    per_path: dict[str, list[float]] = field(default_factory=dict)

    @property
    def requests(self) -> int:
        return len(self.times) + sum(self.errors.values())

    @property
    def throughput(self) -> float:
        """Answers a second."""
        return len(self.times) / self.seconds if self.seconds else 0.0

    def quantile(self, q: int) -> float:
        """The q-th percentile of the answers' seconds."""
        if len(self.times) < 2:
            return max(self.times, default=0.0)
        return statistics.quantiles(self.times, n=100, method="inclusive")[q - 1]

    def slowest_paths(self, n: int = 3) -> list[tuple[str, float]]:
        """The paths with the highest p95, slowest first."""

        def p95(t: list[float]) -> float:
            return statistics.quantiles(t, n=20, method="inclusive")[-1] if len(t) >= 2 else max(t)

        ranked = sorted(((p, p95(t)) for p, t in self.per_path.items() if t), key=lambda x: -x[1])
        return ranked[:n]

    def summary(self) -> str:
        failed = f", {sum(self.errors.values())} failed ({dict(self.errors)})" if self.errors else ", none failed"
        return (
            f"{self.clients} clients, {self.requests} requests in {self.seconds:.0f} s: "
            f"{self.throughput:.0f}/s, p50 {self.quantile(50) * 1000:.0f} ms, "
            f"p95 {self.quantile(95) * 1000:.0f} ms, p99 {self.quantile(99) * 1000:.0f} ms{failed}"
        )


async def _client(
    base: str, paths: list[str], start: int, until: float, load: Load, timeout: float, tls: ssl.SSLContext
) -> None:
    # A connection of its own, kept alive, as a browser keeps one.
    headers = {"Accept-Language": "zh-CN" if start % 5 == 4 else "en"}  # one client in five reads Chinese
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=base, timeout=timeout, limits=limits, headers=headers, verify=tls) as http:
        i = start * 7  # each client starts at another path: at any moment the server is asked a mix
        while time.monotonic() < until:
            path = paths[i % len(paths)]
            i += 1
            began = time.perf_counter()
            try:
                answer = await http.get(path)
                await answer.aread()
            except httpx.HTTPError as exc:
                load.errors[type(exc).__name__] += 1
                continue
            took = time.perf_counter() - began
            if answer.status_code != 200:
                load.errors[f"HTTP {answer.status_code}"] += 1
                continue
            load.times.append(took)
            load.per_path.setdefault(path, []).append(took)


async def _run(base: str, paths: list[str], clients: int, seconds: float, timeout: float) -> Load:
    load = Load(clients, seconds)
    # One TLS context for all (plain HTTP needs none, but each client would
    # otherwise load the certificates at its start: seconds of this loop's time).
    tls = ssl.create_default_context()
    began = time.monotonic()
    await asyncio.gather(*(_client(base, paths, n, began + seconds, load, timeout, tls) for n in range(clients)))
    load.seconds = time.monotonic() - began
    return load


def hammer(base: str, paths: list[str], clients: int, seconds: float, timeout: float = 60) -> Load:
    """`clients` clients asking `paths` of the server at `base` for `seconds`."""
    return asyncio.run(_run(base, paths, clients, seconds, timeout))
