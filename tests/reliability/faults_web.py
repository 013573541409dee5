"""Fault-matrix rows of issue 40: secrets in errors, the web app's edges, caches.

Each row is a `Fault` of `fault_matrix.py`; `rows_for` adds this module's `FAULTS`.
"""

from __future__ import annotations

from tests.reliability.fault_matrix import Fault

FAULTS: list[Fault] = []
