"""Money as a person reads it: four significant digits and at least two
decimals (25.18, 3.148, 0.1234, 3985.00, 3.06), never the store's ten places;
and the hourly rate a price in any unit comes to.

Alerts and terminal tables use it; JSON, CSV and the store keep exact values.
Nothing heavy is imported: the command line's simple queries use it.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

from db.kinds import Unit

HOURS_PER_MONTH = Decimal(720)
HOURS_PER_YEAR = Decimal(8760)

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
    try:
        text = format(value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN), "f")
    except InvalidOperation:  # past 28 digits (a value stored before the bounds): said, not a crash
        return format(value, ".4E")
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

    def padded(t: str) -> str:
        return t.partition(".")[0] + "." + t.partition(".")[2].ljust(width, "0") if t else t

    return padded(a), padded(b)


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


def term_hours(term: str | None) -> Decimal | None:
    """Hours in a commitment term: '1yr' -> 8760, '3yr' -> 26280, '3mo' -> 2160
    (a month is 720 hours, as providers bill it); anything else -> None."""
    if not term:
        return None
    for suffix, hours in (("yr", HOURS_PER_YEAR), ("mo", HOURS_PER_MONTH)):
        if term.endswith(suffix) and term[: -len(suffix)].isdigit():
            return int(term[: -len(suffix)]) * hours
    return None


def effective_hourly(price: Decimal, unit: str, term: str = "", upfront_fee: Decimal | None = None) -> Decimal | None:
    """The hourly rate of a price in any unit; an upfront fee is spread over
    the term's hours."""
    hours = term_hours(term)
    match unit:
        case Unit.hour:
            hourly = price
        case Unit.month:
            hourly = price / HOURS_PER_MONTH
        case Unit.year:
            hourly = price / HOURS_PER_YEAR
        case Unit.term if hours:
            hourly = price / hours
        case _:
            return None
    if upfront_fee and hours:
        hourly += upfront_fee / hours
    return hourly
