"""Every command's --help: brackets shown as written (not eaten as rich
markup), a summary that is a whole sentence on one line, and an example."""

from __future__ import annotations

import inspect
import re

import click
import pytest

from tracker.cli import _commands, command


def every_command() -> list[tuple[str, click.Command]]:
    found = []

    def walk(cmd: click.Command, path: list[str]) -> None:
        found.append((" ".join(path), cmd))
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])

    walk(command(), [])
    return found


COMMANDS = every_command()


def test_the_walk_sees_every_command() -> None:
    names = {path for path, _ in COMMANDS}
    assert {"prices", "alerts preview", "notify test", "offers history", "daemon"} <= names
    assert len(_commands(command())) == len(COMMANDS)


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS], ids=lambda p: p or "root")
def test_help_is_whole_and_has_an_example(sqlite_cli, monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # no wrapping: each summary is checked as one line
    result = sqlite_cli(*path.split(), "--help")
    assert result.code == 0, result.err
    out = result.out
    assert "Example: gpu-tracker" in out, f"{path or 'gpu-tracker'}: no example in its help"
    cmd = dict(COMMANDS)[path]
    raw = inspect.cleandoc(_source_help(path))
    # Every bracketed word of the docstring and of each option's help is printed.
    for bracketed in re.findall(r"\[[^\]\s]+\]+", raw + " ".join(getattr(p, "help", "") or "" for p in cmd.params)):
        assert bracketed.replace("\\", "") in out.replace("\\", ""), f"{path}: {bracketed} was swallowed"
    # Subcommand summaries: one whole sentence (or more), never cut at a docstring's line break.
    for name in getattr(cmd, "commands", {}):
        line = next(line for line in out.splitlines() if re.search(rf"│ {re.escape(name)}\s", line))
        summary = line.split(name, 1)[1].strip(" │")
        assert summary.endswith("."), f"{path} {name}: summary {summary!r} is not a whole sentence"


def _source_help(path: str) -> str:
    """The help as written, before escaping: a fresh tree from typer."""
    import typer

    from tracker.cli import app

    cmd = typer.main.get_command(app)
    for name in path.split():
        cmd = cmd.commands[name]  # type: ignore[attr-defined]
    return cmd.help or ""
