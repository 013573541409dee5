"""Run every benchmark and print the table: `python -m benchmarks [--quick] [names...]`."""

from __future__ import annotations

import argparse
import compileall
import importlib
import os
import pkgutil
import sys
import sysconfig
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.harness import Figure

ROOT = Path(__file__).resolve().parents[1]
# What a user's Python reads compiled: the installed packages (pip compiles
# them as it installs) and this project (Python writes its caches on the first run).
COMPILED = (
    Path(sysconfig.get_paths()["purelib"]),
    *(ROOT / d for d in ("alerts", "db", "spiders", "tracker", "benchmarks")),
)


def as_installed(console: Console) -> None:
    """Every process measured reads bytecode, as on a user's machine: with
    PYTHONDONTWRITEBYTECODE set (some sandboxes and CI images set it) and a
    venv installed by uv (which compiles nothing unless told), each process
    compiled every module it imports from source, 0.7 s of CPU for the CLI's
    imports on PostgreSQL and 2.2 s for a crawler's, in every figure."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    console.print("compiling the installed packages and the project, as pip and a first run would ...")
    for folder in COMPILED:
        compileall.compile_dir(folder, quiet=2, workers=os.cpu_count() or 1)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller inputs, for a smoke run")
    parser.add_argument("names", nargs="*", help="only these benchmarks (bench_<name>.py), for example: import answers")
    args = parser.parse_args()
    here = Path(__file__).parent
    found = {
        m.name: f"{package}.{m.name}"
        for package, folder in (("benchmarks", here), ("benchmarks.providers", here / "providers"))
        for m in pkgutil.iter_modules([str(folder)])
        if m.name.startswith("bench_")
    }
    modules = [found[name] for name in sorted(found)]
    if args.names:
        unknown = sorted(set(args.names) - {name.removeprefix("bench_") for name in found})
        if unknown:
            known = ", ".join(name.removeprefix("bench_") for name in sorted(found))
            parser.error(f"no benchmark named {', '.join(unknown)} (there are: {known})")
        modules = [found[name] for name in sorted(found) if name.removeprefix("bench_") in args.names]
    figures: list[Figure] = []
    console = Console(stderr=True)
    as_installed(console)
    for name in modules:
        console.print(f"running {name.rpartition('.')[2]} ...")
        figures.extend(importlib.import_module(name).run(args.quick))
    table = Table(title="gpu-tracker benchmarks")
    for col in ("benchmark", "seconds", "baseline", "baseline s", "ratio", "peak RSS MB", "target", "ok", "note"):
        table.add_column(col)
    for f in figures:
        table.add_row(
            f.name,
            f"{f.seconds:.3f}",
            f.baseline_name,
            "" if f.baseline_seconds is None else f"{f.baseline_seconds:.3f}",
            "" if f.ratio is None else f"{f.ratio:.2f}x",
            "" if f.peak_rss_mb is None else f"{f.peak_rss_mb:.0f}",
            f.target,
            {True: "yes", False: "NO", None: ""}[f.passed],
            f.note,
        )
    Console(width=200).print(table)
    return 0 if all(f.passed is not False for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
