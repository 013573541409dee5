"""The configuration file: defaults, env references, and clear rejections."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.config import load_config
from tracker.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(tmp_path: Path) -> None:
    config = load_config(home=tmp_path)
    assert config.diff.removal_confirmations == 2
    assert config.database_url() == f"sqlite:///{tmp_path / 'tracker.db'}"


def test_values_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZ_API", "https://mirror.example/api")
    monkeypatch.delenv("GPU_TRACKER_DATABASE_URL", raising=False)
    config = load_config(write(tmp_path, '[diff]\nremoval_confirmations = 3\n'
                                         '[providers.azure]\nregions = ["eastus"]\napi_url = "${AZ_API}"\n'),
                         home=tmp_path)
    assert config.diff.removal_confirmations == 3
    assert config.provider("azure").regions == ["eastus"]
    assert config.provider("azure").api_url == "https://mirror.example/api"
    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", "postgresql+psycopg://u@h/db")
    assert config.database_url() == "postgresql+psycopg://u@h/db"


@pytest.mark.parametrize("text, message", [
    ("[diff]\nremoval_confirmation = 2\n", "diff.removal_confirmation: unknown key"),
    ("[diff]\nremoval_confirmations = 0\n", "diff.removal_confirmations: Input should be greater than or equal to 1"),
    ("[diff]\nremoval_confirmations = 'two'\n", "diff.removal_confirmations: Input should be a valid integer"),
    ("[dif]\n", "dif: unknown key"),
    ("[diff\n", "not valid TOML"),
    ("[providers.azure]\napi_url = '${NOPE_NOT_SET}'\n", "environment variable NOPE_NOT_SET is not set"),
    ("home = '/x'\n", "home: unknown key"),
])
def test_bad_files_name_the_file_key_and_reason(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path, home=tmp_path)
    assert str(info.value).startswith(str(path))
    assert message in str(info.value)


def test_cli_reports_config_errors_in_one_line(sqlite_cli, home: Path) -> None:
    (home / "config.toml").write_text("[diff]\nbogus = 1\n")
    result = sqlite_cli("runs")
    assert result.code == 1
    assert result.err.strip() == f"error: {home / 'config.toml'}: diff.bogus: unknown key"


def test_missing_explicit_config(sqlite_cli, tmp_path: Path) -> None:
    result = sqlite_cli("--config", str(tmp_path / "nope.toml"), "runs")
    assert result.code == 1 and "no such configuration file" in result.err
