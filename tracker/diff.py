"""The diff engine: a pure function from the previous snapshot and the
current one to changes, and to the writes that move the snapshot forward.

It never reads or writes the store. A current snapshot that looks
implausible (too few rows, prices of zero or a hundredfold jump) is not
diffed at all: the result carries the reason instead, and the caller keeps
the last good data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from db.schema import Change, ChangeKind, PriceQuote
from db.store import TrackedPrice


@dataclass(frozen=True)
class DiffPolicy:
    removal_confirmations: int = 2
    min_row_ratio: Decimal = Decimal("0.5")
    max_price_factor: Decimal = Decimal(100)


@dataclass
class PriceDiff:
    changes: list[Change] = field(default_factory=list)
    inserts: list[PriceQuote] = field(default_factory=list)
    closes: list[int] = field(default_factory=list)
    misses: dict[int, int] = field(default_factory=dict)
    removed: list[int] = field(default_factory=list)
    broken: str | None = None


def percent_change(old: Decimal, new: Decimal) -> Decimal | None:
    if old == 0:
        return None
    return ((new - old) / old * 100).quantize(Decimal("0.01"))


def quote_change(kind: ChangeKind, quote: PriceQuote, *, source: str, old: Decimal | None,
                 new: Decimal | None, observed_at: datetime | None = None, **detail: str) -> Change:
    return Change(
        kind=kind, provider=quote.provider, source=source, key=quote.key, region=quote.region,
        zone=quote.zone, instance_type=quote.instance_type, gpu_model=quote.gpu_model,
        gpu_count=quote.gpu_count, os=quote.os, price_model=str(quote.price_model), term=quote.term,
        payment_option=quote.payment_option, old_price=old, new_price=new,
        percent=percent_change(old, new) if old is not None and new is not None else None,
        currency=quote.currency, unit=str(quote.unit), source_url=quote.source_url,
        observed_at=observed_at or quote.observed_at, detail=dict(detail))


def implausible(previous: Mapping[str, TrackedPrice], current: Mapping[str, PriceQuote],
                policy: DiffPolicy) -> str | None:
    if not current:
        return "the crawl found no prices"
    if previous and len(current) < len(previous) * policy.min_row_ratio:
        return (f"the crawl found {len(current)} prices, less than {policy.min_row_ratio:%} "
                f"of the {len(previous)} of the last complete run")
    for key, quote in current.items():
        before = previous.get(key)
        if before is None or before.price <= 0:
            continue
        if quote.price <= 0:
            return f"{quote.instance_type} ({quote.price_model}, {quote.region}) now costs {quote.price}, was {before.price}"
        ratio = max(quote.price / before.price, before.price / quote.price)
        if ratio >= policy.max_price_factor:
            return (f"{quote.instance_type} ({quote.price_model}, {quote.region}) moved from "
                    f"{before.price} to {quote.price}, a {ratio:.0f}x jump")
    return None


def diff_prices(previous: Mapping[str, TrackedPrice], current: Mapping[str, PriceQuote],
                policy: DiffPolicy, *, source: str, observed_at: datetime) -> PriceDiff:
    """With no previous snapshot the current one is a baseline: stored, but
    not announced as hundreds of new SKUs."""
    result = PriceDiff()
    reason = implausible(previous, current, policy)
    if reason:
        result.broken = reason
        return result
    baseline = not previous
    for key, quote in current.items():
        before = previous.get(key)
        if before is None:
            result.inserts.append(quote)
            if not baseline:
                result.changes.append(quote_change(ChangeKind.new_sku, quote, source=source, old=None,
                                                   new=quote.price, observed_at=observed_at))
            continue
        if before.missed_runs:
            result.misses[before.id] = 0
        if before.value_hash == quote.value_hash:
            continue
        result.closes.append(before.id)
        result.misses.pop(before.id, None)
        result.inserts.append(quote)
        if quote.price != before.price:
            kind = ChangeKind.price_drop if quote.price < before.price else ChangeKind.price_increase
            result.changes.append(quote_change(kind, quote, source=source, old=before.price, new=quote.price,
                                               observed_at=observed_at))
        if quote.availability != before.availability:
            change = quote_change(
                ChangeKind.availability_changed, quote, source=source, old=before.price, new=quote.price,
                observed_at=observed_at, old_availability=before.availability or "",
                new_availability=quote.availability or "")
            # The prices are context here; a percent would read as a price move.
            change.percent = None
            result.changes.append(change)
    for key, before in previous.items():
        if key in current:
            continue
        missed = before.missed_runs + 1
        if missed >= policy.removal_confirmations:
            result.removed.append(before.id)
        else:
            result.misses[before.id] = missed
    return result
