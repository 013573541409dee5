"""Rules: which changes reach which channels, and when.

A rule filters changes (kind, provider, region, GPU model and count,
instance type, price model, the stock a change leads to, a marketplace
group's offers), then applies its thresholds to price moves. Thresholds are measured
against the price the rule last *notified* (or the first price it saw), so
ten moves of 1% add up to one alert of 10% instead of being lost one by one.
Hysteresis asks a move back against the last alert to go further, so a
price flapping around a threshold alerts once, not every run.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Protocol
from zoneinfo import ZoneInfo

from sqlmodel import Session, select

from alerts.settings import Digest, QuietHours, RuleSettings
from db.alert_tables import NotifiedValue
from db.schema import Change, ChangeKind

PRICE_MOVES = (ChangeKind.price_drop, ChangeKind.price_increase)
_CENT = Decimal("0.01")


@dataclass(frozen=True)
class Reference:
    price: Decimal
    currency: str
    unit: str
    direction: str  # "down", "up", or "" for a first price that was never notified


class References(Protocol):
    """Where the last notified prices live (the store, or memory for a dry run)."""

    def get(self, rule: str, key: str) -> Reference | None: ...

    def put(self, rule: str, key: str, ref: Reference, at: datetime) -> None: ...


@dataclass
class MemoryReferences:
    refs: dict[tuple[str, str], Reference] = field(default_factory=dict)

    def get(self, rule: str, key: str) -> Reference | None:
        return self.refs.get((rule, key))

    def put(self, rule: str, key: str, ref: Reference, at: datetime) -> None:
        self.refs[(rule, key)] = ref


@dataclass
class StoredReferences:
    """The `alert_notified` table, written in the caller's transaction."""

    session: Session

    def get(self, rule: str, key: str) -> Reference | None:
        row = self._row(rule, key)
        return None if row is None else Reference(Decimal(row.price), row.currency, row.unit, row.direction)

    def put(self, rule: str, key: str, ref: Reference, at: datetime) -> None:
        row = self._row(rule, key) or NotifiedValue(rule=rule, key=key, price="", notified_at=at)
        row.price, row.currency, row.unit = format(ref.price, "f"), ref.currency, ref.unit
        row.direction, row.notified_at = ref.direction, at
        self.session.add(row)
        self.session.flush()

    def _row(self, rule: str, key: str) -> NotifiedValue | None:
        stmt = select(NotifiedValue).where(NotifiedValue.rule == rule, NotifiedValue.key == key)
        return self.session.exec(stmt).first()


@dataclass(frozen=True)
class Verdict:
    """One rule's answer for one change: `change` is what to announce (its
    old price and percent measured from the last notified price)."""

    rule: str
    fires: bool
    reason: str
    change: Change | None = None


class Rule:
    def __init__(self, settings: RuleSettings, default_timezone: str = "UTC") -> None:
        self.settings = settings
        self.name = settings.name
        self.zone = ZoneInfo(settings.timezone or default_timezone)
        self.digest: Digest | None = settings.digest_schedule()
        self.quiet: QuietHours | None = settings.quiet()

    # --- what it selects ---------------------------------------------------

    def mismatch(self, change: Change) -> str | None:
        """Why a filter rejects the change, or None when all filters pass."""
        s = self.settings
        checks = (
            ("provider", change.provider, s.provider, _equal),
            ("region", change.region, s.region, _equal),
            ("gpu", change.gpu_model or "", s.gpu, _contains),
            ("instance_type", change.instance_type, s.instance_type, _glob),
            ("price_model", change.price_model, s.price_model, _equal),
        )
        for name, value, wanted, test in checks:
            if wanted and not any(test(value, w) for w in wanted):
                return f"{name} {value or '(none)'!s} is not {' or '.join(wanted)}"
        if s.gpu_count and (change.gpu_count is None or change.gpu_count not in s.gpu_count):
            shown = "(none)" if change.gpu_count is None else format(change.gpu_count.normalize(), "f")
            return f"gpu_count {shown} is not {' or '.join(format(n.normalize(), 'f') for n in s.gpu_count)}"
        if s.min_offers is not None:
            # A marketplace change names its offers (a sold-out one, those it had).
            offers = max(_offers(change.detail.get("offers")), _offers(change.detail.get("old_offers")))
            if offers < s.min_offers:
                shown = "not a marketplace group" if "offers" not in change.detail else f"{offers} offers"
                return f"{shown}, not at least {s.min_offers}"
        if s.availability:
            # Only an availability change says which stock it leads to.
            stock = change.detail.get("new_availability", "")
            if not any(_equal(stock, w) for w in s.availability):
                return f"availability {stock or '(none)'} is not {' or '.join(s.availability)}"
        return None

    def judge(self, change: Change, refs: References, now: datetime) -> Verdict:
        """Decide, and move the rule's reference price when it notifies."""
        problem = self.mismatch(change)
        if problem:
            return Verdict(self.name, False, problem)
        announced = change
        if change.kind in PRICE_MOVES and change.key and change.new_price is not None:
            ref = refs.get(self.name, change.key)
            if ref is not None and (ref.currency, ref.unit) != (change.currency, change.unit):
                ref = None
            base = ref.price if ref is not None else change.old_price
            if base is None:
                base = change.new_price
            problem, announced = self._threshold(change, base, ref)
            if problem:
                if ref is None and change.old_price is not None:
                    # Remember where the drift started, so small moves add up.
                    refs.put(self.name, change.key, Reference(change.old_price, change.currency, change.unit, ""), now)
                return Verdict(self.name, False, problem)
        if announced.kind not in self.settings.when:
            return Verdict(self.name, False, f"{announced.kind} is not in when")
        if announced.new_price is not None and announced.key and announced.kind in (*PRICE_MOVES, ChangeKind.new_sku):
            direction = "down" if announced.kind == ChangeKind.price_drop else "up"
            refs.put(
                self.name,
                announced.key,
                Reference(announced.new_price, announced.currency, announced.unit, direction),
                now,
            )
        return Verdict(self.name, True, "fires", announced)

    def _threshold(self, change: Change, base: Decimal, ref: Reference | None) -> tuple[str | None, Change]:
        assert change.new_price is not None
        delta = change.new_price - base
        if delta == 0:
            return f"back at the last notified price {base}", change
        percent = (delta / base * 100).quantize(_CENT) if base else None
        direction = "down" if delta < 0 else "up"
        needed = self.settings.min_percent or Decimal(0)
        if ref is not None and ref.direction and direction != ref.direction:
            needed += self.settings.hysteresis
        since = "since last notified" if ref is not None and ref.direction else "since"
        if needed and (percent is None or abs(percent) < needed):
            return f"moved {percent}% {since} {base}, needs {needed}%", change
        if self.settings.min_amount and abs(delta) < self.settings.min_amount:
            return f"moved {abs(delta)} {change.currency} {since} {base}, needs {self.settings.min_amount}", change
        kind = ChangeKind.price_drop if delta < 0 else ChangeKind.price_increase
        detail = dict(change.detail)
        if base != change.old_price:
            detail["reported_old_price"] = "" if change.old_price is None else format(change.old_price, "f")
        return None, change.model_copy(update={"kind": kind, "old_price": base, "percent": percent, "detail": detail})

    # --- when it delivers --------------------------------------------------

    def due(self, now: datetime) -> tuple[datetime, str | None]:
        """When a message created now goes out, and its digest's label."""
        local = now.astimezone(self.zone)
        label = None
        if self.digest is not None:
            local = self._next_digest(local)
            label = f"{self.digest.label()} {self.zone.key} @ {local.astimezone(UTC):%Y-%m-%dT%H:%MZ}"
        if self.quiet is not None and self.quiet.contains(local.time()):
            local = self._after(local, self.quiet.end)
        return local.astimezone(UTC), label

    def _next_digest(self, local: datetime) -> datetime:
        assert self.digest is not None
        for days in range(8):
            day = local.date() + timedelta(days=days)
            if self.digest.weekday is not None and day.weekday() != self.digest.weekday:
                continue
            candidate = self._at(day, self.digest.at)
            if candidate >= local:
                return candidate
        raise AssertionError("a digest time exists within eight days")

    def _after(self, local: datetime, moment: time) -> datetime:
        candidate = self._at(local.date(), moment)
        return candidate if candidate > local else self._at(local.date() + timedelta(days=1), moment)

    def _at(self, day: date, moment: time) -> datetime:
        return datetime.combine(day, moment, tzinfo=self.zone)


def _offers(text: str | None) -> int:
    return int(text) if text and text.isdigit() else 0


def _equal(value: str, wanted: str) -> bool:
    return value.lower() == wanted.lower()


def _contains(value: str, wanted: str) -> bool:
    return bool(value) and wanted.lower() in value.lower()


def _glob(value: str, wanted: str) -> bool:
    return fnmatch.fnmatchcase(value.lower(), wanted.lower())


@dataclass
class Routed:
    """One outbox row to be: a change for a channel, due at a time."""

    channel: str
    change: Change
    original: Change
    rules: list[str]
    due: datetime
    digest: str | None


def compile_rules(settings: Iterable[RuleSettings], default_timezone: str = "UTC") -> list[Rule]:
    return [Rule(s, default_timezone) for s in settings]


def route(rules: Sequence[Rule], changes: Iterable[Change], refs: References, now: datetime) -> list[Routed]:
    """Every (change, channel) the rules select, in order; a channel that two
    rules pick for one change gets it once, at the earlier time."""
    out: list[Routed] = []
    for change in changes:
        by_channel: dict[str, Routed] = {}
        for rule in rules:
            verdict = rule.judge(change, refs, now)
            if not verdict.fires or verdict.change is None:
                continue
            due, digest = rule.due(now)
            for channel in rule.settings.channels:
                seen = by_channel.get(channel)
                if seen is None:
                    by_channel[channel] = Routed(channel, verdict.change, change, [rule.name], due, digest)
                    continue
                seen.rules.append(rule.name)
                if due < seen.due:
                    seen.due, seen.digest = due, digest
        out.extend(by_channel.values())
    return out


def explain(rules: Sequence[Rule], changes: Iterable[Change], now: datetime) -> list[tuple[Change, Verdict]]:
    """What each rule says of each change, from no notified history, in order."""
    refs = MemoryReferences()
    return [(change, rule.judge(change, refs, now)) for change in changes for rule in rules]
