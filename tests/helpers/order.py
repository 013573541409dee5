"""The order xdist hands tests out in: the tests that mostly wait, spread
among those that compute.

xdist's `loadgroup` hands tests to its workers in collection order (groups
first). In path order the fault matrix, the daemon and the served web come
one after another: for minutes every worker waits on a daemon's round, a
killed child or a server's timeout, the cores idle (15-25 % CPU), and the
tests that compute run later, alone. Spread evenly, a worker that waits
leaves its core to one that computes.

A waiting test moves alone, unless its module shares a module-scoped fixture
(built again after every other module's test): such a module moves whole.
Every other test keeps its place, and each module its own order."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Protocol, TypeVar


class _Item(Protocol):
    @property
    def nodeid(self) -> str: ...


T = TypeVar("T", bound=_Item)

# Test modules (paths under tests/, or folders ending in /) whose tests mostly wait.
WAITING = (
    "reliability/",
    "daemon/test_daemon.py",
    "daemon/test_small_words.py",
    "web/test_serve_daemon.py",
    "web/test_serve_process.py",
    "web/test_security.py",
)
# Waiting modules with module-scoped fixtures: they move as one.
WHOLE = ("reliability/test_crash.py", "reliability/test_crawl_crash.py")


def _module(nodeid: str) -> str:
    return str(PurePosixPath(nodeid.split("::")[0]).relative_to("tests"))


def _waiting(module: str) -> bool:
    return any(module.startswith(w) if w.endswith("/") else module == w for w in WAITING)


def spread(items: Sequence[T]) -> list[T]:
    """`items` with the waiting ones spread evenly among the others."""
    others: list[T] = []
    units: list[list[T]] = []
    whole: dict[str, list[T]] = {}
    for item in items:
        module = _module(item.nodeid)
        if not _waiting(module):
            others.append(item)
        elif module in WHOLE:
            if module not in whole:
                whole[module] = []
                units.append(whole[module])
            whole[module].append(item)
        else:
            units.append([item])
    if not units or not others:
        return list(items)
    out: list[T] = []
    step = len(others) / len(units)
    placed = 0
    for i, item in enumerate(others):
        # The n-th waiting unit goes in the middle of the n-th stretch of the others.
        while placed < len(units) and (placed + 0.5) * step <= i:
            out.extend(units[placed])
            placed += 1
        out.append(item)
    for unit in units[placed:]:
        out.extend(unit)
    return out
