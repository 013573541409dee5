"""Benchmarks: `python -m benchmarks` runs them all and prints one table.

Each `bench_*.py` module defines `run(quick: bool) -> list[Figure]`. A figure
compares the real path against a baseline measured in the same run, as a
ratio, with the peak RSS of the process that did the work.
"""
