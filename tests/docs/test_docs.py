"""The README and docs/: short, linked, current, and their examples run.

Runnable examples are the `gpu-tracker ...` lines of ```bash blocks; they run
against a demo store. Blocks that need the network, keys or a daemon are
written as ```sh and only read.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.stores import DemoRun, copy_home

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def _examples() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
            for line in block.splitlines():
                if line.startswith("gpu-tracker "):
                    found.append((str(page.relative_to(ROOT)), line.split("  #")[0].strip()))
    return found


def test_readme_is_short() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_links_resolve(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page.name}: {target}"


def test_cli_reference_is_current() -> None:
    """Regenerate with `python -m tracker.cli.reference > docs/cli.md`."""
    fresh = subprocess.run(
        [sys.executable, "-m", "tracker.cli.reference"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert fresh == (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def demo_home(demo_run: DemoRun, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the session's demo (run as a user runs it: tests/helpers/stores.py)."""
    return copy_home(demo_run.home, tmp_path_factory.mktemp("demo-home") / "home")


@pytest.mark.slow
@pytest.mark.parametrize("page, command", _examples(), ids=[f"{p}: {c}" for p, c in _examples()])
def test_example_runs(page: str, command: str, demo_home: Path, tmp_path: Path) -> None:
    args = shlex.split(command)[1:]
    done = subprocess.run(
        [sys.executable, "-m", "tracker.cli", "--home", str(demo_home), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "GPU_TRACKER_HOME": str(demo_home),
            "HOME": str(demo_home),
        },
        timeout=120,
    )
    assert done.returncode == 0, f"{page}: {command}\n{done.stderr}"
    assert "Traceback" not in done.stderr
