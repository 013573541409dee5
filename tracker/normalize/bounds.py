"""The bounds every stored price keeps, in one place: what a number, a text
and a time of a price may be before the store takes it.

Both ways in use them. `gpu-tracker import` refuses a file with one row out
of bounds (`tracker/file_import/row_validator.py`, `rows.py`); a crawled
source's normalized quotes go through `screen` before the diff, which skips
an odd item with a note and keeps its last price, never failing the source.
docs/analytics.md (gpu-tracker import) states them; a change here is a change
there.

The numbers are generous (a three-year term in Vietnamese dong fits) but
finite: every figure stays exact within Decimal's 28 digits through the cost
model (price x 744 hours x 240 months x 1,024 GPUs), and within a double
where the store sorts by `CAST(price AS FLOAT)`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from operator import itemgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from db.schema import PriceQuote
    from tracker.normalize import Normalized

# Digits a number may have: Decimal's default precision, beyond which arithmetic rounds.
MAX_DIGITS = 28
# How far past now a price's observation time may be (clocks of two machines differ).
FUTURE_SKEW = timedelta(hours=1)
# Before this, an observation time is a mistake (a default date, a zero).
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
# Characters in a text field (region, instance type...); a URL; attrs written as JSON.
MAX_TEXT = 200
MAX_URL = 2_000
MAX_ATTRS = 8_192
# A price this far into the text of a message is enough to say which it was.
SHOWN = 40


def shown(value: object) -> str:
    """A value as a message quotes it: its first SHOWN characters at most."""
    text = value if isinstance(value, str) else format(value, "f") if isinstance(value, Decimal) else str(value)
    if isinstance(value, Decimal) and len(text) > SHOWN:
        text = str(value)  # 1E+400, not four hundred zeros
    return repr(text) if len(text) <= SHOWN else repr(text[:SHOWN]) + f"... ({len(text):,} characters)"


@dataclass(frozen=True)
class Range:
    """lo <= x < hi (0 < x < hi when `above_zero`), and at most MAX_DIGITS
    digits; hi a power of ten, lo 0 or a power of ten."""

    lo: Decimal
    hi: Decimal
    above_zero: bool = False

    @property
    def said(self) -> str:
        low = "above 0" if self.above_zero else f"at least {self.lo:f}"
        return f"{low} and below {self.hi:,f}"

    def reason(self, value: Decimal | int) -> str | None:
        """Why `value` is out of range, or None."""
        if isinstance(value, Decimal):
            if not value.is_finite():
                return f"{shown(value)} is not a finite number"
            if len(value.as_tuple().digits) > MAX_DIGITS:
                return f"{shown(value)} has more than {MAX_DIGITS} digits"
        if value < self.lo or value >= self.hi or (self.above_zero and value <= 0):
            return f"{shown(value)} is out of range: {self.said}"
        return None

    def pattern(self) -> re.Pattern[str]:
        """Texts of numbers written plainly (no sign, no exponent) that are
        surely in range: the import's fast path takes them without Decimal."""
        whole = len(str(int(self.hi))) - 1  # digits below hi
        big = rf"[1-9][0-9]{{0,{whole - 1}}}(?:\.[0-9]+)?"
        if self.above_zero:
            small = r"0\.[0-9]*[1-9][0-9]*"
        elif self.lo == 0:
            small = r"0(?:\.[0-9]+)?"
        else:
            zeros = -self.lo.adjusted() - 1
            small = rf"0\.0{{0,{zeros}}}[1-9][0-9]*"
        return re.compile(f"(?:{big}|{small})")


# A price per unit: a millionth of a currency unit at least, below a trillion
# (0 only with an upfront fee: an all-upfront term, see `zero_price`).
PRICE = Range(Decimal("0.000001"), Decimal(10) ** 12)
MONEY = Range(Decimal(0), Decimal(10) ** 12)
GPUS = Range(Decimal(0), Decimal(10) ** 5, above_zero=True)  # 1/64 of a GPU (a slice) up to a pod
SIZE = Range(Decimal(0), Decimal(10) ** 7)  # vCPUs, GB of memory, Gbps
COUNT = Range(Decimal(0), Decimal(10) ** 9)

NUMBERS: dict[str, Range] = {
    "price": PRICE,
    "list_price": PRICE,
    "median_price": PRICE,
    "upfront_fee": MONEY,
    "gpu_count": GPUS,
    "gpu_memory_gb": SIZE,
    "vcpu": SIZE,
    "memory_gb": SIZE,
    "network_gbps": SIZE,
    "offer_count": COUNT,
}
TEXTS: dict[str, int] = dict.fromkeys(
    (
        "provider",
        "region",
        "zone",
        "instance_type",
        "gpu_model",
        "gpu_interconnect",
        "os",
        "term",
        "payment_option",
        "currency",
        "availability",
    ),
    MAX_TEXT,
) | {"source_url": MAX_URL}


def text_reason(value: str, limit: int) -> str | None:
    if len(value) > limit:
        return f"{shown(value)} is longer than {limit:,} characters"
    if "\x00" in value:
        return f"{shown(value)} holds a NUL character"
    return None


def attrs_reason(value: Mapping[str, Any], written: str) -> str | None:
    """`written`: the attrs as the store writes them (JSON)."""
    if len(written) > MAX_ATTRS:
        return f"{len(written):,} characters of JSON, more than {MAX_ATTRS:,}"
    if "\x00" in written or "\\u0000" in written:
        return "holds a NUL character"
    return None


def latest(now: datetime) -> datetime:
    """The latest observation time a price may have, seen at `now`."""
    return now + FUTURE_SKEW


def time_reason(value: datetime, now: datetime) -> str | None:
    if value > latest(now):
        skew = int(FUTURE_SKEW.total_seconds() // 60)
        return f"{value.isoformat()} is in the future (more than {skew} minutes after {now:%Y-%m-%d %H:%M} UTC)"
    if value < EARLIEST:
        return f"{value.isoformat()} is before {EARLIEST:%Y-%m-%d}"
    return None


def zero_price(price: Decimal, upfront_fee: Decimal | None) -> str | None:
    """A price of 0 is an all-upfront term's hourly part, never free."""
    if price == 0 and not upfront_fee:
        return "price: 0 without an upfront_fee (only an all-upfront term's hourly price is 0)"
    return None


def quote_reason(quote: PriceQuote, now: datetime) -> str | None:
    """Why a quote is out of bounds, or None when it is within them."""
    return field_reason(quote, now) or zero_price(quote.price, quote.upfront_fee)


def field_reason(quote: PriceQuote, now: datetime) -> str | None:
    """The first field of a quote out of bounds (in the quote's field order,
    as the import names it), and why."""
    fields = quote.__dict__
    for name in type(quote).model_fields:
        value = fields[name]
        why = None
        if value is None:
            continue
        if name in NUMBERS:
            if name == "price" and value == 0 and not value.is_signed():
                continue  # `zero_price`, below
            why = NUMBERS[name].reason(value)
        elif name in TEXTS:
            why = text_reason(value, TEXTS[name])
        elif name == "attrs" and value:
            why = attrs_reason(value, json.dumps(value, sort_keys=True, ensure_ascii=False))
        elif name == "observed_at":
            why = time_reason(value, now)
        if why:
            return f"{name}: {why}"
    return None


_NUMBER_BOUNDS = [(name, bound.lo, bound.hi) for name, bound in NUMBERS.items()]
_TEXTS = itemgetter(*(name for name in TEXTS if name != "source_url"), "source_url")


def _plainly_within(fields: dict[str, Any], last: datetime) -> bool:
    """The usual quote, surely within bounds, by the quickest checks (a
    quote failing them is then looked at closely, by `quote_reason`)."""
    for name, lo, hi in _NUMBER_BOUNDS:
        value = fields[name]
        if value is not None and not (lo <= value < hi and (type(value) is int or len(str(value)) <= MAX_DIGITS)):
            return False  # (a text of 28 characters has at most 28 digits)
    *texts, url = _TEXTS(fields)
    joined = "".join(filter(None, texts))
    written = repr(fields["attrs"])  # a NUL as \\x00; about as long as the JSON
    return (
        len(joined) <= MAX_TEXT
        and len(url) <= MAX_URL
        and len(written) <= MAX_ATTRS // 2
        and "\x00" not in joined
        and "\x00" not in url
        and "\\x00" not in written
        and EARLIEST <= fields["observed_at"] <= last
    )


def screen(normalized: Normalized, source: str, now: datetime) -> int:
    """Skip each quote out of bounds with a note, its last price kept (a
    `Held` item): one odd item of a provider's answer never fails the source,
    nor reaches the store. The number skipped (a whole answer out of bounds
    is the caller's to quarantine)."""
    from tracker.normalize import Held

    kept = []
    last = latest(now)
    for quote in normalized.quotes:
        if _plainly_within(quote.__dict__, last):
            kept.append(quote)
            continue
        why = quote_reason(quote, now)
        if why is None:
            kept.append(quote)
            continue
        note = (
            f"{source}: {quote.instance_type[:MAX_TEXT]} ({quote.price_model}) in {quote.region[:MAX_TEXT]} "
            f"skipped, its last price kept: {why}"
        )
        if note not in normalized.notes[-20:]:  # one note for the zones, meters or terms of one item
            normalized.notes.append(note)
        normalized.held.append(Held(quote.region, quote.instance_type, str(quote.price_model), quote.term))
    skipped = len(normalized.quotes) - len(kept)
    if skipped:
        normalized.quotes = kept
    return skipped
