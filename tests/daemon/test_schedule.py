"""Schedules in the configuration: every/cron, validation, and the errors a
user sees before the daemon starts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tracker.config.schedule import DaemonSettings, SourceSchedule, parse_span
from tracker.config.settings import load_config
from tracker.daemon.scheduler import CronTrigger, check_config
from tracker.errors import ConfigError


@pytest.mark.parametrize(
    "text, span",
    [
        ("30s", timedelta(seconds=30)),
        ("15m", timedelta(minutes=15)),
        ("6h", timedelta(hours=6)),
        ("1d", timedelta(days=1)),
        ("2w", timedelta(weeks=2)),
    ],
)
def test_spans(text: str, span: timedelta) -> None:
    assert parse_span(text) == span


@pytest.mark.parametrize(
    "toml, message",
    [
        ('[daemon.schedule.azure]\nevery = "6 hours"\n', "daemon.schedule.azure.every: '6 hours' is not a span"),
        ('[daemon.schedule.azure]\ncron = "61 * * * *"\n', "is not a cron expression"),
        ('[daemon.schedule.azure]\ncron = "0 */6 * *"\n', "is not a cron expression of five fields"),
        ('[daemon.schedule.azure]\nevery = "6h"\ncron = "0 * * * *"\n', "either every or cron, not both"),
        ('[daemon]\nevery = "0h"\n', "daemon.every"),
        ('[daemon]\nevry = "1h"\n', "daemon.evry: unknown key"),
    ],
)
def test_bad_schedules_are_config_errors(tmp_path: Path, toml: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as err:
        load_config(path, home=tmp_path).need("daemon")
    assert message in str(err.value) and str(path) in str(err.value)


def test_schedule_of_an_unknown_source_is_refused_before_start(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[daemon.schedule.nosuch]\nevery = "1h"\n')
    with pytest.raises(ConfigError, match=r"daemon.schedule.nosuch: unknown source; known: azure"):
        check_config(load_config(path, home=tmp_path))


def test_daemon_reports_a_bad_configuration_in_one_line(sqlite_cli, home: Path) -> None:
    (home / "config.toml").write_text('[daemon.schedule.nosuch]\nevery = "1h"\n')
    result = sqlite_cli("daemon")
    assert result.code == 1 and "Traceback" not in result.err
    assert "daemon.schedule.nosuch: unknown source" in result.err


def test_defaults_and_intervals() -> None:
    settings = DaemonSettings()
    assert settings.for_source("azure").interval(settings.every) == timedelta(hours=6)
    assert SourceSchedule(cron="0 */6 * * *").interval("1h") == timedelta(hours=6)
    assert SourceSchedule(every="2h").describe("6h") == "every 2h"


def test_cron_counts_weekdays_like_crontab() -> None:
    # 2026-12-02 is a Wednesday; "0 3 * * 0" is Sunday 03:00, as in crontab(5).
    trigger = CronTrigger("0 3 * * 0")
    now = datetime(2026, 12, 2, 12, tzinfo=UTC)
    assert trigger.get_next_fire_time(None, now) == datetime(2026, 12, 6, 3, tzinfo=UTC)
    assert trigger.get_next_fire_time(datetime(2026, 12, 6, 3, tzinfo=UTC), now) == datetime(
        2026, 12, 13, 3, tzinfo=UTC
    )


def test_next_run_follows_the_last_start() -> None:
    now = datetime(2026, 12, 2, 12, tzinfo=UTC)
    every = SourceSchedule(every="6h")
    assert every.next_after(now, "1h", None) == now
    assert every.next_after(now, "1h", now - timedelta(hours=1)) == now + timedelta(hours=5)
    assert every.next_after(now, "1h", now - timedelta(hours=9)) == now
