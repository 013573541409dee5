"""The source health answer (the dashboard's /sources and /api/sources): per
source that has run, its last run and status, its last good data, whether it
is stale (the one rule, `tracker.config.schedule.DaemonSettings.stale`), its
age and its last error in one sentence, secrets masked."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from tracker.config.masking import masked_text

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.store.reads.connection import Db
    from tracker.config.schedule import DaemonSettings

COLUMNS = [
    "source",
    "provider",
    "status",
    "last_run_at",
    "last_ok_at",
    "age",
    "stale",
    "failures_since_ok",
    "runs",
    "error",
]


def records(store: Db | sa.Engine) -> list[dict[str, Any]]:
    """Per source, its runs read (`tracker.analytics.points.health_records`): what `rows` is made of."""
    from tracker.analytics.points import health_records

    return health_records(store)


def rows(
    found: Iterable[dict[str, Any]], settings: DaemonSettings, *, now: datetime, secrets: Iterable[str]
) -> list[dict[str, Any]]:
    """The rows (`COLUMNS`) of `records`, as of `now`."""
    out = [dict(r) for r in found]
    for row in out:
        last_ok = row.get("last_ok_at")
        row["stale"] = settings.stale(row["source"], last_ok, now)
        row["age"] = age(now - last_ok) if last_ok else None
        row["error"] = one_sentence(masked_text(row["error"], secrets)) if row.get("error") else None
    return out


def one_sentence(text: str, limit: int = 240) -> str:
    """The first line of an error, to its first sentence, at most `limit` characters."""
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    end = line.find(". ")
    if end > 0:
        line = line[: end + 1]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def age(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"
