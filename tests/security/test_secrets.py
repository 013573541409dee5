"""Secrets stay out of sight, and the crawler exposes no control surface."""

from __future__ import annotations

from pathlib import Path

from spiders.runner import build_settings


def test_scrapy_remote_control_stays_off(tmp_path: Path) -> None:
    for browser in (False, True):
        settings = build_settings({"out_dir": str(tmp_path)}, tmp_path, browser)
        assert settings.getbool("REMOTE_CONTROL_ENABLED") is False
        assert settings.getbool("TELNETCONSOLE_ENABLED") is False


def test_database_password_is_masked_in_errors(sqlite_cli, monkeypatch) -> None:
    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", "postgresql+psycopg://tracker:s3cr3t-pw@127.0.0.1:1/db")
    result = sqlite_cli("runs")
    assert result.code == 1
    assert "s3cr3t-pw" not in result.err + result.out
    assert result.err.startswith("error: cannot open the store at postgresql+psycopg://tracker:***@127.0.0.1:1/db")


def test_masked_hides_every_secret() -> None:
    from pydantic import BaseModel, SecretStr

    from tracker.cli.config_cmds import MASK, masked

    class Channel(BaseModel):
        name: str
        url: SecretStr

    class Root(BaseModel):
        channels: list[Channel]
        keys: dict[str, SecretStr]

    data = masked(Root(channels=[Channel(name="ops", url=SecretStr("https://hooks.slack.com/services/T/B/xyz"))],
                       keys={"gcp": SecretStr("AIzaSECRET")}))
    assert data == {"channels": [{"name": "ops", "url": MASK}], "keys": {"gcp": MASK}}


def test_config_show(sqlite_cli, home) -> None:
    (home / "config.toml").write_text("[diff]\nremoval_confirmations = 3\n")
    result = sqlite_cli("config", "show")
    assert result.code == 0
    assert "removal_confirmations = 3" in result.out
    assert f"# file: {home / 'config.toml'}" in result.out


def test_config_with_secrets_readable_by_others_warns(sqlite_cli, home) -> None:
    path = home / "config.toml"
    path.write_text('[[channel]]\nname = "ops"\nurl = "json://127.0.0.1:9/hook?token=abc"\n')
    path.chmod(0o644)
    result = sqlite_cli("runs")
    assert result.code == 0
    assert f"warning: {path} holds secrets and can be read by other users; run: chmod 600 {path}" in result.err
    assert "token=abc" not in result.err
    path.chmod(0o600)
    assert "holds secrets" not in sqlite_cli("runs").err
