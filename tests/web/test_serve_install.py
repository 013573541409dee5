"""The dashboard with the README's one install (issue 41.5): its libraries
are in the default install, `serve` without them says in one sentence what
to install, and the demo's "Try next" names `recommend` and `serve`, each
line a command that runs as written."""

from __future__ import annotations

import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.helpers.stores import DemoRun, copy_home
from tracker.web.serve import LIBRARIES

ROOT = Path(__file__).parents[2]


def test_the_default_install_has_the_dashboards_libraries() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    needed = {re.split(r"[<>=\[ ]", d, maxsplit=1)[0].lower() for d in project["dependencies"]}
    assert set(LIBRARIES) <= needed
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = re.search(r"pip install -q -e '\.\[(\w+)\]' && \.venv/bin/gpu-tracker demo", readme)
    assert install, "the README's install line"
    # The extra the README installs does not need to bring them: the default install does.
    assert install.group(1) == "china"


@pytest.mark.parametrize("missing", LIBRARIES)
def test_serve_without_a_library_says_what_to_install(
    missing: str, sqlite_cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(sys.modules):
        if name == missing or name.startswith(missing + "."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed: importing it fails
    for args in (["serve"], ["daemon"]):
        if args == ["daemon"]:
            (sqlite_cli.home / "config.toml").write_text("[web]\nenabled = true\n", encoding="utf-8")
        said = sqlite_cli(*args)
        assert said.code == 1, said
        lines = [line for line in said.err.splitlines() if line.strip()]
        assert len(lines) == 1 and "Traceback" not in said.err and "ModuleNotFoundError" not in said.err, said.err
        assert f"the dashboard needs {missing}" in lines[0]
        assert "pip install fastapi uvicorn jinja2" in lines[0]


def test_the_demos_next_steps_run_as_written(demo_run: DemoRun, sqlite_cli: Cli, tmp_path: Path) -> None:
    said = demo_run.err.split("Try next:", 1)[1]
    steps = [shlex.split(line.split("  (", 1)[0]) for line in said.strip().splitlines() if line.strip()]
    commands = [step[1] for step in steps]
    assert all(step[0] == "gpu-tracker" for step in steps)
    assert "recommend" in commands and "serve" in commands
    cli = Cli(copy_home(demo_run.home, tmp_path / "demo-home"), sqlite_cli.capsys)
    for step in steps:
        if step[1] == "serve":  # runs until stopped: tests/web/test_serve_process.py starts it
            continue
        done = cli(*step[1:], "--format", "json")
        assert done.code == 0, (step, done.err)
        assert json.loads(done.out), step
