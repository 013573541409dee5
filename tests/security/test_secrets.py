"""Secrets stay out of sight, and the crawler exposes no control surface."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spiders.crawling.runner import build_settings
from tests.helpers.localserver import Reply, serve


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

    from tracker.config.masking import MASK, masked

    class Channel(BaseModel):
        name: str
        url: SecretStr

    class Root(BaseModel):
        channels: list[Channel]
        keys: dict[str, SecretStr]

    data = masked(
        Root(
            channels=[Channel(name="ops", url=SecretStr("https://hooks.slack.com/services/T/B/xyz"))],
            keys={"gcp": SecretStr("AIzaSECRET")},
        )
    )
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


STORE_PASSWORD = "Pg-s3cret-pass-77"
GCP_KEY = "AIzaSyD-config-key-0123456789ab"
URL_KEY = "AIzaInUrlKey-9876543210zz"
ALIBABA_ID = "LTAIid0123456789xy"
ALIBABA_SECRET = "AliSecret0123456789abcdef"
CHANNEL_KEY = "wecomrobotsecret0042"
SECRET_CONFIG = f"""
[store]
url = "postgresql+psycopg://tracker:{STORE_PASSWORD}@127.0.0.1:1/db"

[providers.gcp]
api_key = "{GCP_KEY}"
api_url = "https://cloudbilling.googleapis.com/v1/services/X/skus?key={URL_KEY}"

[providers.alibaba]
access_key_id = "{ALIBABA_ID}"
access_key_secret = "{ALIBABA_SECRET}"

[[channel]]
name = "ops"
url = "wecombot://{CHANNEL_KEY}"
"""


def test_config_show_masks_every_secret_in_both_forms(sqlite_cli, home: Path) -> None:
    (home / "config.toml").write_text(SECRET_CONFIG)
    listing = sqlite_cli("config", "show")
    as_json = sqlite_cli("config", "show", "--json")
    for result in (listing, as_json):
        assert result.code == 0, result.err
        for secret in (STORE_PASSWORD, GCP_KEY, URL_KEY, ALIBABA_ID, ALIBABA_SECRET, CHANNEL_KEY):
            assert secret not in result.out + result.err
    data = json.loads(as_json.out)
    # What is not secret stays readable: the user checks the host, the key's presence.
    assert data["store"]["url"] == "postgresql+psycopg://tracker:***@127.0.0.1:1/db"
    assert data["providers"]["gcp"]["api_url"] == "https://cloudbilling.googleapis.com/v1/services/X/skus?key=***"
    assert data["providers"]["gcp"]["api_key"] == data["channel"][0]["url"] == "********"
    assert 'url = "postgresql+psycopg://tracker:***@127.0.0.1:1/db"' in listing.out
    assert "# store: postgresql+psycopg://tracker:***@127.0.0.1:1/db" in listing.out


@pytest.mark.parametrize(
    "toml, secret",
    [
        (f'[store]\nurl = "postgresql+psycopg://tracker:{STORE_PASSWORD}@127.0.0.1:1/db"\n', STORE_PASSWORD),
        (f'[providers.gcp]\napi_url = "https://cloudbilling.example/skus?key={URL_KEY}"\n', URL_KEY),
        (f'[providers.alibaba]\naccess_key_secret = "{ALIBABA_SECRET}"\n', ALIBABA_SECRET),
    ],
)
def test_any_secret_in_a_file_others_can_read_warns(sqlite_cli, home: Path, toml: str, secret: str) -> None:
    path = home / "config.toml"
    path.write_text(toml)
    path.chmod(0o644)
    result = sqlite_cli("config", "show")
    assert result.code == 0, result.err
    assert f"warning: {path} holds secrets and can be read by other users; run: chmod 600 {path}" in result.err
    assert secret not in result.err + result.out
    path.chmod(0o600)
    assert "holds secrets" not in sqlite_cli("config", "show").err


def test_secrets_from_the_environment_leave_a_readable_file_alone(
    sqlite_cli, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PG_PASSWORD", STORE_PASSWORD)
    monkeypatch.setenv("OPS_HOOK", f"wecombot://{CHANNEL_KEY}")
    path = home / "config.toml"
    path.write_text(
        '[store]\nurl = "postgresql+psycopg://tracker:${PG_PASSWORD}@127.0.0.1:1/db"\n'
        '[[channel]]\nname = "ops"\nurl = "${OPS_HOOK}"\n'
    )
    path.chmod(0o644)
    result = sqlite_cli("config", "show")
    assert result.code == 0, result.err
    assert "holds secrets" not in result.err
    assert STORE_PASSWORD not in result.out and CHANNEL_KEY not in result.out


def test_status_never_shows_an_api_key(sqlite_cli, home: Path) -> None:
    """A GCP crawl refused with the key in its URL: `status` names the failure, not the key."""
    body = json.dumps({"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}})
    with serve(lambda req: Reply(status=400, body=body.encode())) as (base, received):
        (home / "config.toml").write_text(
            f'[providers.gcp]\napi_key = "{GCP_KEY}"\n'
            f'api_url = "{base}/v1/services/X/skus"\n[crawl]\nretry_times = 0\n'
            '[daemon]\nsources = ["gcp"]\n'
        )
        assert sqlite_cli("crawl", "gcp").code == 1
    assert GCP_KEY in received[0].path  # the key was really sent, so it could have leaked
    table = sqlite_cli("status")
    as_json = sqlite_cli("status", "-f", "json")
    for result in (table, as_json):
        assert result.code == 0, result.err
        assert GCP_KEY not in result.out + result.err
    row = json.loads(as_json.out)[0]
    assert row["source"] == "gcp" and row["last_status"] == "failed"
    assert "HTTP 400" in row["last_failure"] and "key=REDACTED" in row["last_failure"]
    assert "HTTP 400" in table.out
