"""What a change of a marketplace row is (docs/marketplaces.md).

A marketplace row (a quote with `offer_count` set) is an aggregate of host
offers whose prices and counts move by the minute. Against its stored row,
a new aggregate is:

- a **wobble** when its lowest and median prices stay within the tolerance
  and its offer count within the count tolerance: nothing is written, the
  stored row stays open as it is (so drift adds up against it);
- a **quiet** rewrite when only the median or the count moved past them: a
  new interval, no announcement;
- a **move** when the lowest price moved past the tolerance: a new interval,
  announced as a price drop or increase.

A group that no offer backs is not listed, so it is absent from the crawl:
after the diff's removal confirmations its row closes, announced as stock
gone (`availability_changed` available → sold_out); a group that comes back
is announced as available again, or, never seen before, as new with its
stock. Everything here is pure but `restate`, which is given the lookup of
closed rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from db.schema import Change, ChangeKind, TrackedPrice

AVAILABLE = "available"
SOLD_OUT = "sold_out"
NOT_LISTED = "not_listed"  # a group the store never held
# The default tolerances (`[diff] market_tolerance`, `market_count_tolerance`).
PRICE_TOLERANCE = Decimal("0.10")
COUNT_TOLERANCE = Decimal("0.5")


class Move(StrEnum):
    wobble = "wobble"
    quiet = "quiet"
    move = "move"


def beyond(old: Decimal | int | None, new: Decimal | int | None, tolerance: Decimal) -> bool:
    """Whether `new` is more than `tolerance` (a fraction) away from `old`; a
    figure that appears or disappears always is."""
    if old is None or new is None:
        return old is not new
    if old == 0:
        return new != 0
    return abs(Decimal(new) - Decimal(old)) > abs(Decimal(old)) * tolerance


def judge(fields: Mapping[str, Any], before: TrackedPrice, *, tolerance: Decimal, count_tolerance: Decimal) -> Move:
    """How a marketplace aggregate (`fields`, as stored) differs from its open row."""
    if before.offer_count is None or fields["availability"] != before.availability:
        return Move.move  # it was a list price, or its stock state moved: a plain change
    if beyond(before.price, fields["price"], tolerance):
        return Move.move
    # A count moves when it changes by at least the fraction (halved, or half as many again), and by one.
    change = abs(fields["offer_count"] - before.offer_count)
    count_moved = change >= 1 and change >= before.offer_count * count_tolerance
    if beyond(before.median_price, fields["median_price"], tolerance) or count_moved:
        return Move.quiet
    return Move.wobble


def detail(fields: Mapping[str, Any], before: TrackedPrice | None = None) -> dict[str, str]:
    """What a marketplace change says besides its prices: the offers behind
    it, the median, the tier and the marketplace's own name of the region."""
    out = {"offers": str(fields["offer_count"])}
    median = fields["median_price"]
    if median is not None:
        out["median_price"] = format(median, "f")
    if before is not None:
        if before.offer_count is not None and before.offer_count != fields["offer_count"]:
            out["old_offers"] = str(before.offer_count)
        if before.median_price is not None and before.median_price != median:
            out["old_median_price"] = format(before.median_price, "f")
    attrs = fields["attrs"]
    for name in ("tier", "region_name"):
        if attrs.get(name):
            out[name] = attrs[name]
    return out


# The closed rows of these keys: key -> when the last of them closed.
LastClosed = Callable[[Sequence[str]], Mapping[str, datetime]]


def restate(changes: Iterable[Change], last_closed: LastClosed) -> list[Change]:
    """A marketplace source's new and removed groups as stock changes: a
    removed group is sold out, a new one available (again, when the store
    held it before). Other changes pass as they are."""
    changes = list(changes)
    appeared = [c.key for c in changes if c.kind == ChangeKind.new_sku and "offers" in c.detail]
    seen_before = last_closed(appeared) if appeared else {}
    out = []
    for change in changes:
        if "offers" not in change.detail:
            out.append(change)
        elif change.kind == ChangeKind.new_sku:
            update: dict[str, Any] = {
                "detail": {**change.detail, "new_availability": AVAILABLE, "old_availability": SOLD_OUT}
            }
            if change.key in seen_before:
                update["kind"] = ChangeKind.availability_changed
                update["detail"]["sold_out_since"] = seen_before[change.key].isoformat()
            else:
                update["detail"]["old_availability"] = NOT_LISTED
            out.append(change.model_copy(update=update))
        elif change.kind == ChangeKind.sku_removed:
            update = {
                "kind": ChangeKind.availability_changed,
                "detail": {**change.detail, "old_availability": AVAILABLE, "new_availability": SOLD_OUT},
            }
            out.append(change.model_copy(update=update))
        else:
            out.append(change)
    return out
