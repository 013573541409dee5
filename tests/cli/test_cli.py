"""The command line as a user meets it: help, usage errors, output formats."""

from __future__ import annotations

import csv
import io
import json

import pytest
import typer.main

from tracker.cli import app


def all_commands() -> list[tuple[str, object]]:
    root = typer.main.get_command(app)
    found = []

    def walk(prefix: str, cmd: object) -> None:
        subcommands = getattr(cmd, "commands", None)
        if subcommands:
            for name, sub in subcommands.items():
                walk(f"{prefix} {name}".strip(), sub)
        else:
            found.append((prefix, cmd))

    walk("", root)
    return found


@pytest.mark.parametrize("name, command", all_commands(), ids=[n for n, _ in all_commands()])
def test_every_command_has_help_with_an_example(sqlite_cli, name: str, command: object) -> None:
    result = sqlite_cli(*name.split(), "--help")
    assert result.code == 0
    assert "Example: gpu-tracker " + name.split()[0] in result.out
    assert getattr(command, "help", "").strip()


def test_every_command_is_in_the_docs() -> None:
    from pathlib import Path

    docs = Path(__file__).parents[2] / "docs"
    text = "".join(p.read_text(encoding="utf-8") for p in docs.rglob("*.md") if p.name != "cli.md")
    for name, _ in all_commands():
        assert f"gpu-tracker {name}" in text, name


def test_bad_usage_exits_2(sqlite_cli) -> None:
    assert sqlite_cli("prices", "--price-model", "hourly").code == 2
    assert sqlite_cli("nosuchcommand").code == 2
    assert sqlite_cli("changes", "--since", "last tuesday").code == 2
    assert sqlite_cli("crawl", "azure", "--replay", "/no/such.har").code == 2


def test_empty_store_in_every_format(sqlite_cli) -> None:
    assert json.loads(sqlite_cli("prices", "--format", "json").out) == []
    rows = list(csv.reader(io.StringIO(sqlite_cli("prices", "--format", "csv").out)))
    assert rows[0][:4] == ["provider", "region", "zone", "instance_type"] and len(rows) == 1
    table = sqlite_cli("prices")
    assert table.code == 0 and table.out == "" and "no prices match" in table.err


def test_version(sqlite_cli) -> None:
    result = sqlite_cli("--version")
    assert result.code == 0 and result.out.startswith("gpu-tracker ")


def test_debug_shows_the_traceback_the_normal_run_hides(sqlite_cli, home) -> None:
    (home / "config.toml").write_text("[diff]\nbogus = 1\n")
    normal = sqlite_cli("runs")
    debug = sqlite_cli("--debug", "runs")
    line = f"error: {home / 'config.toml'}: diff.bogus: unknown key"
    assert normal.code == debug.code == 1
    assert normal.err.strip() == line and "Traceback" not in normal.err
    assert "Traceback (most recent call last):" in debug.err and 'tracker/config/settings.py", line' in debug.err
    assert debug.err.strip().splitlines()[-1] == line
