"""A whole process, as a user waits for it: wall time, CPU time, and the peak
of the resident memory of it and its children together (an import's worker
process), sampled while it runs."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SAMPLE_EVERY = 0.02


@dataclass
class Finished:
    wall: float
    cpu: float
    peak_mb: float
    stdout: str
    stderr: str


def _tree(pid: int) -> list[int]:
    pids, i = [pid], 0
    while i < len(pids):
        try:
            for task in os.listdir(f"/proc/{pids[i]}/task"):
                children = Path(f"/proc/{pids[i]}/task/{task}/children").read_text().split()
                pids.extend(map(int, children))
        except OSError:
            pass  # it ended meanwhile
        i += 1
    return pids


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_process(argv: list[str], env: dict[str, str], timeout: float | None = None) -> Finished:
    """Runs `argv` to its end (killed after `timeout` seconds); a non-zero
    exit is an error, with its stderr."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    killer = threading.Timer(timeout, proc.kill) if timeout else None
    if killer:
        killer.start()
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(SAMPLE_EVERY):
            peak[0] = max(peak[0], sum(map(_rss_kb, _tree(proc.pid))))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    # Read the pipes in threads of their own: a full pipe would stall the process.
    out: dict[str, str] = {}
    readers = [
        threading.Thread(target=lambda name=name, pipe=pipe: out.__setitem__(name, pipe.read()), daemon=True)
        for name, pipe in (("stdout", proc.stdout), ("stderr", proc.stderr))
    ]
    for reader in readers:
        reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if killer:
        killer.cancel()
    done.set()
    for reader in readers:
        reader.join()
    sampler.join()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} ... exited with {code}: {out.get('stderr', '')[-2000:]}")
    # The children's own CPU time is in RUSAGE_CHILDREN of this process, counted once waited for.
    return Finished(wall, usage.ru_utime + usage.ru_stime, peak[0] / 1024, out["stdout"], out["stderr"])
