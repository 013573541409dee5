"""Money as a person reads it: four significant digits and at least two
decimals (25.18, 3.148, 0.1234, 3985.00, 3.06), never the store's ten places.

Alerts and terminal tables use it; JSON, CSV and the store keep exact values.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

_SIGNIFICANT = 4
_MIN_DECIMALS = 2
_MAX_DECIMALS = 10
_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "CNY": "¥"}


def _decimals(value: Decimal) -> int:
    if not value:
        return _MIN_DECIMALS
    return min(_MAX_DECIMALS, max(_MIN_DECIMALS, _SIGNIFICANT - 1 - value.adjusted()))


def readable(value: Decimal | None, decimals: int | None = None) -> str:
    """`value` at a precision for its size; '' for None."""
    if value is None:
        return ""
    places = _decimals(value) if decimals is None else decimals
    text = format(value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN), "f")
    if places > _MIN_DECIMALS:
        # 3.060 reads as 3.06: zeros past the cents say nothing.
        whole_part, _, fraction = text.partition(".")
        text = f"{whole_part}.{fraction.rstrip('0').ljust(_MIN_DECIMALS, '0')}"
    return text


def readable_pair(old: Decimal | None, new: Decimal | None) -> tuple[str, str]:
    """Both values at one precision, fine enough that two different values
    never print the same (70.528 → 70.529 is not '70.53 → 70.53')."""
    present = [v for v in (old, new) if v is not None]
    if not present:
        return "", ""
    places = max(_decimals(v) for v in present)
    while old is not None and new is not None and old != new and places < _MAX_DECIMALS:
        if readable(old, places) != readable(new, places):
            break
        places += 1
    a, b = readable(old, places), readable(new, places)
    # One precision for both: 3.40 → 3.148 reads as 3.400 → 3.148.
    width = max(len(t.partition(".")[2]) for t in (a, b) if t)
    return tuple(t.partition(".")[0] + "." + t.partition(".")[2].ljust(width, "0") if t else t for t in (a, b))  # type: ignore[return-value]


def whole(value: Decimal) -> str:
    """An amount of money without needless zeros: 300.00 -> 300, 12.50 -> 12.50."""
    if value == value.to_integral_value():
        return format(value.to_integral_value(), "f")
    return format(value.quantize(Decimal("0.01")), "f")


def amount(value: Decimal, currency: str | None) -> str:
    """$300, ¥300, 300 JPY: a credit or voucher, as promotions write it."""
    currency = (currency or "").upper()
    symbol = _SYMBOLS.get(currency)
    if symbol:
        return f"{symbol}{whole(value)}"
    return f"{whole(value)} {currency}".strip()
