"""The configuration file: defaults, env references, and clear rejections."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.config.settings import load_config
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
    config = load_config(
        write(
            tmp_path,
            '[diff]\nremoval_confirmations = 3\n[providers.azure]\nregions = ["eastus"]\napi_url = "${AZ_API}"\n',
        ),
        home=tmp_path,
    )
    assert config.diff.removal_confirmations == 3
    assert config.provider("azure").regions == ["eastus"]
    assert config.provider("azure").api_url == "https://mirror.example/api"
    monkeypatch.setenv("GPU_TRACKER_DATABASE_URL", "postgresql+psycopg://u@h/db")
    assert config.database_url() == "postgresql+psycopg://u@h/db"


@pytest.mark.parametrize(
    "text, message",
    [
        ("[diff]\nremoval_confirmation = 2\n", "diff.removal_confirmation: unknown key"),
        (
            "[diff]\nremoval_confirmations = 0\n",
            "diff.removal_confirmations: Input should be greater than or equal to 1",
        ),
        ("[diff]\nremoval_confirmations = 'two'\n", "diff.removal_confirmations: Input should be a valid integer"),
        ("[dif]\n", "dif: unknown key"),
        ("[diff\n", "not valid TOML"),
        ("home = '/x'\n", "home: unknown key"),
    ],
)
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


BAD_CHANNELS = [
    ("nosuchscheme://abcdefsecret", "channel ops: nosuchscheme:// is not a known Apprise URL scheme"),
    ("slack://T0secretAAA", "channel ops: not a known Apprise URL: Apprise cannot read this slack:// URL"),
    ("justsomesecrettext", "channel ops: not a known Apprise URL: it does not start with a scheme"),
]


@pytest.mark.parametrize("url, message", BAD_CHANNELS)
def test_a_bad_channel_url_is_refused_when_the_config_is_loaded(tmp_path: Path, url: str, message: str) -> None:
    path = write(tmp_path, f'[[channel]]\nname = "ops"\nurl = "{url}"\n')
    config = load_config(path, home=tmp_path)  # loads: the other sections are good
    with pytest.raises(ConfigError) as info:
        config.need("alerts")
    assert str(info.value).startswith(f"{path}: {message}")
    assert "secret" not in str(info.value)
    config.need("daemon", "analytics")  # the other groups are fine


@pytest.mark.parametrize(
    "command", [["alerts", "deliver"], ["daemon", "--once"], ["config", "show"], ["rules", "check"]]
)
def test_a_bad_channel_url_is_one_error_line_from_any_command(sqlite_cli, home: Path, command: list[str]) -> None:
    path = home / "config.toml"
    path.write_text(
        '[[channel]]\nname = "ops"\nurl = "nosuchscheme://abcdefsecret"\n[[rule]]\nname = "all"\nchannels = ["ops"]\n'
    )
    result = sqlite_cli(*command)
    assert result.code == 1 and result.out == ""
    # One line of ours: Apprise's own complaint ("Unparseable URL ...") stays off stderr.
    # One line of ours: Apprise's own complaint ("Unparseable URL ...") stays off stderr.
    assert result.err.strip().splitlines() == [
        f"error: {path}: channel ops: nosuchscheme:// is not a known Apprise URL scheme "
        "(see https://github.com/caronc/apprise/wiki)"
    ]
    assert not (home / "tracker.db").exists()  # refused before the store or the daemon started


@pytest.mark.parametrize(
    "text",
    [
        '[[channel]]\nname = "ops"\nurl = "nosuchscheme://abcdefsecret"\n[[rule]]\nname = "all"\nchannels = ["ops"]\n',
        '[[channel]]\nname = "ops"\nurl = "${NOT_SET_HOOK}"\n',
        "[alerts]\nmax_attempts = 0\n",
        '[daemon.schedule.azure]\ncron = "61 * * * *"\n',
        "[providers.azure]\napi_url = '${NOPE_NOT_SET}'\n",
    ],
)
def test_a_bad_section_warns_once_and_other_commands_go_on(sqlite_cli, home: Path, text: str) -> None:
    (home / "config.toml").write_text(text + "[diff]\nremoval_confirmations = 3\n")
    for command in (["runs"], ["prices"], ["changes"], ["history", "--gpu", "A100"], ["offers"]):
        result = sqlite_cli(*command)
        assert result.code == 0, (command, result.err)
        warnings = [line for line in result.err.splitlines() if "config.toml" in line]
        assert len(warnings) == 1 and warnings[0].startswith("warning: "), (command, result.err)
        assert "abcdefsecret" not in result.err
    stopped = sqlite_cli("daemon", "--once")
    assert stopped.code == 1 and len(stopped.err.strip().splitlines()) == 1
    assert stopped.err.startswith("error: ") and str(home / "config.toml") in stopped.err


def test_a_url_apprise_cannot_read_names_its_reason_and_hides_the_rest(sqlite_cli, home: Path) -> None:
    (home / "config.toml").write_text('[[channel]]\nname = "ops"\nurl = "slack://T0secretAAA"\n')
    result = sqlite_cli("alerts", "deliver")
    assert result.code == 1 and len(result.err.strip().splitlines()) == 1
    assert result.err.startswith(
        f"error: {home / 'config.toml'}: channel ops: not a known Apprise URL: "
        "Apprise cannot read this slack:// URL: An invalid Slack"
    )
    assert "T0secretAAA" not in result.err


def test_a_good_channel_url_loads(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[[channel]]\nname = "ops"\nurl = "wecombot://robotkey0001"\n'
        '[[channel]]\nname = "hook"\nurl = "json://127.0.0.1:9/hook"\n',
    )
    assert [c.name for c in load_config(path, home=tmp_path).channel] == ["ops", "hook"]


def test_a_bad_cron_expression_is_one_error_line(sqlite_cli, home: Path) -> None:
    path = home / "config.toml"
    path.write_text('[daemon.schedule.azure]\ncron = "61 * * * *"\n')
    for command in (["daemon", "--once"], ["status"]):
        result = sqlite_cli(*command)
        assert result.code == 1 and result.out == ""
        assert result.err.strip().splitlines() == [
            f"error: {path}: daemon.schedule.azure.cron: '61 * * * *' is not a cron expression of five fields, "
            "like '0 */6 * * *'"
        ]
