"""Query parameters read and checked: the pages and the API take the same
names as the CLI's options (`gpu`, `price_model`, `region_group`...), and a
bad one is a 400 with one sentence, never a traceback."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal, InvalidOperation

from db.kinds import OfferKind, PriceModel, Qualify, RankBy, RegionGroup, Workload
from tracker.answers.ranges import RANGES, OutOfRange, head

# The choices, as `db.kinds` names them (the command line offers the same).
PRICE_MODELS = [m.value for m in PriceModel]
OFFER_KINDS = [k.value for k in OfferKind]
REGION_GROUPS = [g.value for g in RegionGroup]
RANK_BY = [r.value for r in RankBy]
WORKLOADS = [w.value for w in Workload]
QUALIFY = [q.value for q in Qualify]
MAX_TEXT = 200


class BadParameter(Exception):
    """A query parameter we cannot use; its message is the one sentence the answer gives."""


class Query:
    """The query string of one request, read parameter by parameter."""

    def __init__(self, items: Iterable[tuple[str, str]], known: Iterable[str]) -> None:
        self.values: dict[str, list[str]] = {}
        for name, value in items:
            self.values.setdefault(name, []).append(value)
        allowed = set(known)
        unknown = sorted(n for n in self.values if n not in allowed)
        if unknown:
            raise BadParameter(f"unknown parameter {head(unknown[0])}; this page takes: {', '.join(sorted(allowed))}")

    def text(self, name: str) -> str | None:
        found = self.values.get(name)
        if not found:
            return None
        if len(found) > 1:
            raise BadParameter(f"{name} is given {len(found)} times; give it once")
        value = found[0].strip()
        if len(value) > MAX_TEXT:
            raise BadParameter(f"{name} is longer than {MAX_TEXT} characters")
        if any(ord(c) < 32 for c in value):
            raise BadParameter(f"{name} holds control characters")
        return value or None

    def many(self, name: str, allowed: list[str]) -> list[str]:
        found = [v.strip() for v in self.values.get(name, []) if v.strip()]
        for value in found:
            if value not in allowed:
                raise BadParameter(f"{name}={head(value)} is not one of: {', '.join(allowed)}")
        return found

    def choice(self, name: str, allowed: list[str], default: str | None = None) -> str | None:
        value = self.text(name)
        if value is None:
            return default
        if value not in allowed:
            raise BadParameter(f"{name}={head(value)} is not one of: {', '.join(allowed)}")
        return value

    def integer(self, name: str, default: int, lo: int, hi: int) -> int:
        value = self.text(name)
        if value is None:
            return default
        if not value.isdigit() or not lo <= int(value) <= hi:
            raise BadParameter(f"{name}={head(value)} must be a whole number from {lo} to {hi}")
        return int(value)

    def decimal(self, name: str, default: Decimal | None = None, *, lo: Decimal = Decimal(0)) -> Decimal | None:
        value = self.text(name)
        if value is None:
            return default
        try:
            number = Decimal(value)
        except InvalidOperation:
            raise BadParameter(f"{name}={head(value)} is not a number") from None
        if not number.is_finite() or number < lo or number > Decimal(10) ** 9:
            raise BadParameter(f"{name}={head(value)} must be a number from {lo} to 1000000000")
        return number

    def ranged(self, name: str, default: Decimal | None = None) -> Decimal | None:
        """A number an answer takes, within its range (`tracker.answers.ranges`)."""
        value = self.text(name)
        if value is None:
            return default
        try:
            return RANGES[name].parse(name, value)
        except OutOfRange as exc:
            raise BadParameter(str(exc)) from None

    def flag(self, name: str) -> bool:
        value = self.text(name)
        if value is None:
            return False
        if value.lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            raise BadParameter(f"{name}={head(value)} must be true or false")
        return value.lower() in ("1", "true", "yes", "on")

    def currency(self, name: str = "currency", default: str | None = "USD") -> str | None:
        value = self.text(name)
        if value is None:
            return default
        if len(value) != 3 or not value.isalpha() or not value.isascii():
            raise BadParameter(f"{name}={head(value)} is not a 3-letter currency code")
        return value.upper()

    def moment(self, name: str) -> datetime | None:
        """A date, an ISO time, or a span back from now (24h, 7d, 2w), as the CLI's --since."""
        from tracker.answers.rows import BadMoment, parse_since

        value = self.text(name)
        try:
            return parse_since(value)
        except BadMoment as exc:
            raise BadParameter(f"{name}: {exc}") from None


def query(params: Mapping[str, str] | Iterable[tuple[str, str]], known: Iterable[str]) -> Query:
    items = params.items() if isinstance(params, Mapping) else params
    return Query(items, known)
