"""The alert settings: `[[channel]]`, `[[rule]]` and `[alerts]` in config.toml.

Webhook URLs are secrets: they are held as `SecretStr` and only the channel
module reads them. Times of day (digests, quiet hours) are read in the
rule's time zone.
"""

from __future__ import annotations

import re
from datetime import time
from decimal import Decimal
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SecretStr, field_validator

from db.kinds import ChangeKind

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DIGEST = re.compile(r"^(?:(daily)|weekly\s+([a-z]+))\s+(\d{1,2}):(\d{2})$")
_QUIET = re.compile(r"^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _listify(value: object) -> object:
    return [value] if isinstance(value, str) else value


Names = Annotated[list[str], BeforeValidator(_listify)]


def _listify_number(value: object) -> object:
    return [value] if isinstance(value, (int, float, str, Decimal)) else value


def _clock(hour: str, minute: str) -> time:
    h, m = int(hour), int(minute)
    if h > 23 or m > 59:
        raise ValueError(f"{hour}:{minute} is not a time of day")
    return time(h, m)


def check_zone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {value!r} (use an IANA name such as Asia/Shanghai)") from None
    return value


class Digest(_Strict):
    """When a digest goes out: every day, or one weekday, at a time of day."""

    at: time
    weekday: int | None = None  # 0 = Monday

    @classmethod
    def parse(cls, text: str) -> Digest | None:
        """'immediate' -> None; 'daily 09:00'; 'weekly mon 09:00'."""
        text = text.strip().lower()
        if text == "immediate":
            return None
        match = _DIGEST.match(text)
        if not match:
            raise ValueError(f"{text!r}: use 'immediate', 'daily HH:MM' or 'weekly mon HH:MM'")
        day = match.group(2)
        if day is not None and day[:3] not in WEEKDAYS:
            raise ValueError(f"{day!r} is not a weekday (mon, tue, ... sun)")
        return cls(at=_clock(match.group(3), match.group(4)), weekday=None if day is None else WEEKDAYS.index(day[:3]))

    def label(self) -> str:
        when = "daily" if self.weekday is None else f"weekly {WEEKDAYS[self.weekday]}"
        return f"{when} {self.at:%H:%M}"


class QuietHours(_Strict):
    start: time
    end: time

    @classmethod
    def parse(cls, text: str) -> QuietHours:
        match = _QUIET.match(text.strip())
        if not match:
            raise ValueError(f"{text!r}: use 'HH:MM-HH:MM', for example '22:00-07:30'")
        start, end = _clock(*match.group(1, 2)), _clock(*match.group(3, 4))
        if start == end:
            raise ValueError(f"{text!r}: the quiet hours start and end at the same time")
        return cls(start=start, end=end)

    def contains(self, moment: time) -> bool:
        if self.start < self.end:
            return self.start <= moment < self.end
        return moment >= self.start or moment < self.end


class ChannelSettings(_Strict):
    """[[channel]]: a name and an Apprise URL (a secret: write it as ${ENV})."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    url: SecretStr
    max_per_minute: int | None = Field(None, ge=1, description="messages a minute; default: the service's limit")


class RuleSettings(_Strict):
    """[[rule]]: which changes go to which channels, and when."""

    name: str = Field(min_length=1)
    when: list[ChangeKind] = Field(default_factory=lambda: list(ChangeKind))
    provider: Names = Field(default_factory=list)
    region: Names = Field(default_factory=list)
    gpu: Names = Field(default_factory=list, description="GPU models, matched in part and case-insensitively")
    instance_type: Names = Field(default_factory=list, description="exact names or globs: Standard_ND*")
    price_model: Names = Field(default_factory=list)
    gpu_count: Annotated[list[Decimal], BeforeValidator(_listify_number)] = Field(
        default_factory=list, description="GPUs per instance: 8, or [4, 8]"
    )
    availability: Names = Field(default_factory=list, description="the stock a change leads to: available or sold_out")
    min_offers: int | None = Field(
        None, ge=1, description="marketplace groups only, backed by at least this many offers (docs/marketplaces.md)"
    )
    min_percent: Decimal | None = Field(None, ge=0, description="a price must move this many percent")
    min_amount: Decimal | None = Field(None, ge=0, description="and this much in its own currency and unit")
    hysteresis: Decimal = Field(
        Decimal(0), ge=0, description="extra percent a move back against the last alert must make"
    )
    channels: Names = Field(min_length=1)
    digest: str = "immediate"
    timezone: str | None = None
    quiet_hours: str | None = None

    @field_validator("when", mode="before")
    @classmethod
    def _kinds(cls, value: object) -> object:
        return _listify(value)

    @field_validator("digest")
    @classmethod
    def _digest(cls, value: str) -> str:
        Digest.parse(value)
        return value

    @field_validator("quiet_hours")
    @classmethod
    def _quiet(cls, value: str | None) -> str | None:
        if value is not None:
            QuietHours.parse(value)
        return value

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        return None if value is None else check_zone(value)

    def digest_schedule(self) -> Digest | None:
        return Digest.parse(self.digest)

    def quiet(self) -> QuietHours | None:
        return QuietHours.parse(self.quiet_hours) if self.quiet_hours else None


class AlertSettings(_Strict):
    """[alerts]: delivery of the outbox."""

    retry_base_seconds: int = Field(30, ge=1, description="first retry delay; doubled after each failure")
    max_backoff_seconds: int = Field(6 * 3600, ge=1)
    max_attempts: int = Field(8, ge=1, le=100, description="attempts before a message is dead-lettered")
    timezone: str = "UTC"
    batch_size: int = Field(500, ge=1, le=10000, description="outbox rows a delivery round reads at a time")
    lease_seconds: int = Field(600, ge=30, description="after this, a claim by a worker on another host expires")
    request_timeout: int = Field(20, ge=1, description="seconds to wait for a channel to answer")
    currency: str | None = Field(
        "USD",
        pattern=r"^(?:[A-Za-z]{3})?$",
        description="alerts also show per-GPU-hour prices in this currency, with the exchange rate's date",
    )

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        return check_zone(value)


def check_references(channels: list[ChannelSettings], rules: list[RuleSettings]) -> str | None:
    """The first dangling or duplicate name, as an error message."""
    names = [c.name for c in channels]
    for name in names:
        if names.count(name) > 1:
            return f"channel: the name {name!r} is used twice"
    rule_names = [r.name for r in rules]
    for i, rule in enumerate(rules):
        if rule_names.count(rule.name) > 1:
            return f"rule[{i}].name: the name {rule.name!r} is used twice"
        for channel in rule.channels:
            if channel not in names:
                known = ", ".join(names) or "none defined"
                return f"rule[{i}].channels: no [[channel]] named {channel!r} (known: {known})"
    return None
