"""The order xdist hands tests out in (tests/helpers/order.py): the tests that
mostly wait spread among those that compute, every test there once."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from tests.helpers.order import spread


@dataclass(frozen=True)
class Item:
    nodeid: str


def test_waiting_tests_are_spread_and_modules_with_shared_fixtures_stay_whole() -> None:
    computing = [Item(f"tests/cli/test_a.py::test_{i}") for i in range(12)]
    faults = [Item(f"tests/reliability/test_faults_sqlite.py::test_fault[{i}]") for i in range(3)]
    crash = [Item(f"tests/reliability/test_crash.py::test_{i}") for i in range(2)]
    daemon = [Item("tests/daemon/test_daemon.py::test_x")]
    items = computing[:6] + daemon + computing[6:] + faults + crash
    out = spread(items)
    assert sorted(out, key=items.index) == items  # every test, once
    assert [i for i in out if i in computing] == computing  # the others keep their order
    assert [i for i in out if i in faults] == faults
    waiting = [n for n, i in enumerate(out) if i not in computing]
    # Five units (three rows, the daemon test, the crash module): one in each stretch of 12 / 5.
    assert [out[n] for n in waiting] == [daemon[0], *faults, *crash]
    assert all(b - a >= 2 for a, b in pairwise(waiting) if out[b] not in crash)
    assert out.index(crash[1]) == out.index(crash[0]) + 1  # a module of shared fixtures, whole
    assert out[0] in computing and out[-1] in computing


def test_nothing_waiting_or_nothing_else_keeps_the_order() -> None:
    computing = [Item(f"tests/cli/test_a.py::test_{i}") for i in range(3)]
    faults = [Item(f"tests/reliability/test_faults_sqlite.py::test_fault[{i}]") for i in range(3)]
    assert spread(computing) == computing and spread(faults) == faults
