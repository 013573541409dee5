"""The one staleness rule (`DaemonSettings.stale`): the daemon's source_stale
and the dashboard's source health both read it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tracker.config.schedule import DaemonSettings, SourceSchedule

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def test_stale_after_three_intervals_of_its_own_schedule() -> None:
    settings = DaemonSettings(every="6h", schedule={"fast": SourceSchedule(every="1h")})
    assert settings.stale_after("aws") == timedelta(hours=18)
    assert settings.stale_after("fast") == timedelta(hours=3)
    assert not settings.stale("fast", NOW - timedelta(hours=2, minutes=59), NOW)
    assert settings.stale("fast", NOW - timedelta(hours=3), NOW)
    assert settings.stale("aws", None, NOW)  # never a complete run


def test_a_source_not_scheduled_is_never_stale() -> None:
    settings = DaemonSettings(schedule={"off": SourceSchedule(enabled=False)})
    assert settings.stale_after("off") is None
    assert not settings.stale("off", None, NOW)
    assert not settings.stale("off", NOW - timedelta(days=365), NOW)
