"""The layout docs/contributing.md describes, held by reading the imports.

Every `import` and `from ... import` in our four packages counts, wherever it
stands (module level, inside a function, under `if TYPE_CHECKING:`): a
deferred import still ties two modules together. The rules:

- no import circle between our modules;
- `spiders/` imports nothing from `tracker/`, `db/` or `alerts/`;
- `alerts/` imports nothing from `tracker/` or `spiders/`;
- `db/` imports nothing of ours outside `db/`;
- `spiders/<provider>/__init__.py` is empty;
- `tracker/web/` imports nothing of `tracker/cli/`, and `tracker/cli/` imports
  `tracker/web/` only where it starts it (`serve`, the daemon's `[web]`):
  both faces stand on `tracker/answers/`, not on each other;
- `tracker/answers/` imports neither face: an answer's request, rows and
  columns are the same for both;
- a folder holds at most about ten modules at its root (`MAX_MODULES`), but
  the folders of one module per provider.

`python -m tests.docs.test_layout` prints the rooms (packages and their
module counts) and every import arrow between top-level rooms, marking those
that point up.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PACKAGES = ("tracker", "alerts", "spiders", "db")
# The floors, lowest first: an arrow from a room to a higher floor, or across
# rooms of one floor, points up.
FLOORS = {"db": 0, "spiders": 1, "alerts": 1, "tracker": 2}

# Circles that are known and being opened elsewhere, each named: none now
# (issue 27's three are open). The test fails when a listed one is gone, so
# that its entry is deleted and the rule is strict for those modules too.
KNOWN_CIRCLES: dict[frozenset[str], str] = {}


def module_files() -> dict[str, Path]:
    """Our modules by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:  # Alembic's scripts, loaded by Alembic
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _is_package(name: str, files: dict[str, Path]) -> bool:
    return files[name].name == "__init__.py"


def imports_of(name: str, files: dict[str, Path]) -> set[str]:
    """The modules of ours that `name` imports anywhere in its text."""
    tree = ast.parse(files[name].read_text(encoding="utf-8"), filename=str(files[name]))
    here = name if _is_package(name, files) else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:
                # `from package import module` imports that module; a name
                # defined in the package's `__init__` ties to the package.
                submodule = f"{module}.{alias.name}"
                targets.add(submodule if submodule in files else module)
    return {t for t in targets if t in files and t != name}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    files = module_files()
    return {name: imports_of(name, files) for name in files}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected parts of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a deep chain of imports cannot hit the recursion limit.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.add(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        found.append(frozenset(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _room(module: str) -> str:
    return module.split(".")[0]


def test_no_import_circles() -> None:
    found = circles(import_graph())
    unknown = [sorted(c) for c in found if c not in KNOWN_CIRCLES]
    assert not unknown, f"import circles: {unknown}"
    gone = [label for circle, label in KNOWN_CIRCLES.items() if circle not in found]
    assert not gone, f"the circle {gone} is opened: delete its line in KNOWN_CIRCLES so the rule holds for it too"


@pytest.mark.parametrize(
    ("room", "forbidden"),
    [
        ("spiders", {"tracker", "db", "alerts"}),
        ("alerts", {"tracker", "spiders"}),
        ("db", {"tracker", "spiders", "alerts"}),
    ],
)
def test_rooms_import_down_only(room: str, forbidden: set[str]) -> None:
    graph = import_graph()
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if _room(module) == room
        for target in targets
        if _room(target) in forbidden
    )
    assert not wrong, f"{room}/ imports what it must not: {wrong}"


# The command modules that start the web (`serve`, and the daemon's `[web]`).
STARTS_THE_WEB = {"tracker.cli.commands.daemon"}
# A folder's modules at its root, at most; the folders of one module per provider apart.
MAX_MODULES = 10
PER_PROVIDER = {"spiders", "tracker.normalize.providers"}


def test_the_faces_stand_on_the_answers_not_on_each_other() -> None:
    graph = import_graph()
    web_on_cli = sorted(
        f"{m} -> {t}"
        for m, ts in graph.items()
        if m.startswith("tracker.web")
        for t in ts
        if t.startswith("tracker.cli")
    )
    assert not web_on_cli, f"tracker/web imports tracker/cli: {web_on_cli}"
    cli_on_web = sorted(
        f"{m} -> {t}"
        for m, ts in graph.items()
        if m.startswith("tracker.cli") and m not in STARTS_THE_WEB
        for t in ts
        if t.startswith("tracker.web")
    )
    assert not cli_on_web, f"tracker/cli imports tracker/web other than to start it: {cli_on_web}"
    answers_on_faces = sorted(
        f"{m} -> {t}"
        for m, ts in graph.items()
        if m.startswith("tracker.answers")
        for t in ts
        if t.startswith(("tracker.cli", "tracker.web"))
    )
    assert not answers_on_faces, f"tracker/answers imports a face: {answers_on_faces}"


def test_the_faces_arrows() -> None:
    """The arrows between the two faces, counted: none from the web to the
    command line; from the command line, the daemon's start of the web alone."""
    graph = import_graph()
    arrows = sorted(
        (m, t)
        for m, ts in graph.items()
        for t in ts
        if (m.startswith("tracker.cli") and t.startswith("tracker.web"))
        or (m.startswith("tracker.web") and t.startswith("tracker.cli"))
    )
    assert arrows == [("tracker.cli.commands.daemon", "tracker.web.serve")], arrows


def test_folders_hold_about_ten_modules() -> None:
    files = module_files()
    # The benchmarks too, though no floor holds them (they stand beside the product, on all of it).
    files |= {".".join(p.relative_to(ROOT).with_suffix("").parts): p for p in (ROOT / "benchmarks").rglob("*.py")}
    counts: dict[str, int] = defaultdict(int)
    for name, path in files.items():
        if path.name != "__init__.py":
            counts[name.rpartition(".")[0]] += 1
    crowded = {room: n for room, n in counts.items() if n > MAX_MODULES and room not in PER_PROVIDER}
    assert not crowded, f"folders over {MAX_MODULES} modules at their root: {crowded}"


def test_provider_packages_have_empty_inits() -> None:
    inits = sorted((ROOT / "spiders").glob("*/__init__.py"))
    assert inits, "no provider packages found"
    full = [str(p.relative_to(ROOT)) for p in inits if p.read_text(encoding="utf-8").strip()]
    assert not full, f"spiders/<provider>/__init__.py must stay empty: {full}"


def test_the_walker_sees_deferred_and_type_only_imports(tmp_path: Path) -> None:
    """The reader of imports counts what hides in functions and TYPE_CHECKING."""
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from db.tables import PriceRow\n"
        "def f():\n    import alerts.render\n    from tracker.run import pipeline\n"
        "from . import kinds\n",
        encoding="utf-8",
    )
    files = module_files()
    files["db.fake"] = module
    assert {"db.tables", "alerts.render", "tracker.run.pipeline", "db.kinds"} <= imports_of("db.fake", files)
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


def rooms_and_arrows() -> str:
    """The rooms (packages with their module counts) and the arrows between top-level rooms."""
    files = module_files()
    graph = import_graph()
    lines = ["rooms:"]
    counts: dict[str, int] = defaultdict(int)
    for name, path in files.items():
        if path.name != "__init__.py":
            counts[name.rpartition(".")[0]] += 1
    for package in sorted(n for n in files if _is_package(n, files)):
        lines.append(f"  {package.replace('.', '/')}/  {counts[package]} modules")
    arrows: dict[tuple[str, str], int] = defaultdict(int)
    for module, targets in graph.items():
        for target in targets:
            if _room(module) != _room(target):
                arrows[(_room(module), _room(target))] += 1
    lines.append("arrows between top-level rooms (imports):")
    up = 0
    for (source, target), count in sorted(arrows.items()):
        pointing_up = FLOORS[target] >= FLOORS[source]
        up += pointing_up
        lines.append(f"  {source} -> {target}: {count}{'  UP' if pointing_up else ''}")
    lines.append(f"{len(counts)} rooms, {up} arrows pointing up, circles: {[sorted(c) for c in circles(graph)]}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(rooms_and_arrows())
