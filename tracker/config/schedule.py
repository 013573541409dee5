"""When each source is crawled: `[daemon]` settings and `[daemon.schedule.<source>]`.

A schedule is `every = "6h"` (an interval) or `cron = "0 */6 * * *"` (five
cron fields, UTC). Sources without an entry use `[daemon] every`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from croniter import croniter
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_SPAN = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def parse_span(text: str) -> timedelta:
    """'30s', '15m', '6h', '1d', '2w' -> timedelta."""
    match = _SPAN.match(text)
    if not match or int(match.group(1)) == 0:
        raise ValueError(f"{text!r} is not a span like 30s, 15m, 6h, 1d or 2w")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


def _check_span(value: str | None) -> str | None:
    if value is not None:
        parse_span(value)
    return value


class SourceSchedule(_Strict):
    """[daemon.schedule.<source>]: exactly one of `every` and `cron`."""

    every: str | None = Field(None, description="interval: 30s, 15m, 6h, 1d")
    cron: str | None = Field(None, description="five cron fields, in UTC")
    jitter: int | None = Field(None, ge=0, description="seconds of random delay; default [daemon] jitter")
    enabled: bool = True

    _span = field_validator("every")(_check_span)

    @field_validator("cron")
    @classmethod
    def _check_cron(cls, value: str | None) -> str | None:
        if value is not None and (len(value.split()) != 5 or not croniter.is_valid(value)):
            raise ValueError(f"{value!r} is not a cron expression of five fields, like '0 */6 * * *'")
        return value

    @model_validator(mode="after")
    def _one_of(self) -> SourceSchedule:
        if self.every and self.cron:
            raise ValueError("give either every or cron, not both")
        return self

    def interval(self, default: str) -> timedelta:
        """The usual time between two runs (for cron, the gap after the next firing)."""
        if self.cron:
            it = croniter(self.cron, datetime.now(UTC))
            first = it.get_next(datetime)
            return it.get_next(datetime) - first
        return parse_span(self.every or default)

    def next_after(self, moment: datetime, default: str, last_start: datetime | None) -> datetime:
        """The next run as configured: cron's next firing, or the last start plus the interval."""
        if self.cron:
            return croniter(self.cron, moment).get_next(datetime)
        if last_start is None:
            return moment
        return max(moment, last_start + parse_span(self.every or default))

    def describe(self, default: str) -> str:
        return f"cron {self.cron}" if self.cron else f"every {self.every or default}"


class DaemonSettings(_Strict):
    """[daemon]: how `gpu-tracker daemon` schedules crawls and delivery."""

    sources: list[str] | None = Field(
        None,
        description="the sources to crawl; default: every source whose evidence is more than assumed "
        "(`gpu-tracker sources`), and every [[watch]] page",
    )
    every: str = Field("6h", description="default interval for sources without a schedule")
    jitter: int = Field(300, ge=0, description="seconds of random delay added to each run")
    misfire_grace_time: int = Field(3600, ge=1, description="seconds a late run may still start")
    max_parallel_crawls: int = Field(2, ge=1, le=16)
    delivery_every: str = Field("1m", description="interval of outbox delivery")
    stale_after_intervals: int = Field(
        3, ge=1, description="a source with no complete run in this many intervals is stale"
    )
    lock_lease: int = Field(60, ge=5, description="seconds a crawl lock lasts unless renewed (SQLite)")
    schedule: dict[str, SourceSchedule] = Field(default_factory=dict)

    _span = field_validator("every", "delivery_every")(_check_span)

    def for_source(self, name: str) -> SourceSchedule:
        return self.schedule.get(name, SourceSchedule())

    def stale_after(self, name: str) -> timedelta | None:
        """How long a source may go without a complete run before it is
        stale: `stale_after_intervals` of its intervals; None when it is not
        scheduled (never stale)."""
        schedule = self.for_source(name)
        if not schedule.enabled:
            return None
        return schedule.interval(self.every) * self.stale_after_intervals

    def stale(self, name: str, last_good: datetime | None, now: datetime) -> bool:
        """The one staleness rule (the daemon's source_stale, the dashboard's
        source health): scheduled, and no complete run since `last_good` (or
        none at all) for `stale_after` or longer."""
        limit = self.stale_after(name)
        return limit is not None and (last_good is None or now - last_good >= limit)
