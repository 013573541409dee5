"""Progress of long imports: a bar on a terminal's stderr, nothing when piped."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from tests.helpers.analytics_data import H100_ROWS, write_csv
from tracker.cli import output


def test_import_shows_progress_on_a_terminal(sqlite_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(output, "stderr", Console(file=screen, force_terminal=True, width=100))
    result = sqlite_cli("import", str(write_csv(tmp_path / "rows.csv", H100_ROWS)), "--source", "mycorp")
    assert result.code == 0, result.err
    shown = screen.getvalue()
    assert "mycorp: importing rows.csv" in shown and f"{len(H100_ROWS)}/{len(H100_ROWS)}" in shown


def test_import_is_quiet_when_piped(sqlite_cli, tmp_path: Path) -> None:
    result = sqlite_cli("import", str(write_csv(tmp_path / "rows.csv", H100_ROWS)), "--source", "mycorp")
    assert result.code == 0, result.err
    assert "importing" not in result.err and "\x1b[" not in result.err
    assert "mycorp: run 1 ok" in result.err
