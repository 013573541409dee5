"""Money parsing: exact Decimals from whatever the source wrote."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation


class MoneyError(ValueError):
    """A value that should be an amount of money is not one."""


def to_decimal(value: object, *, what: str = "price") -> Decimal:
    """Exact Decimal of a JSON number or numeric string; floats go through
    their shortest repr, so 0.1 stays 0.1."""
    if isinstance(value, bool) or value is None:
        raise MoneyError(f"{what} is {value!r}, not a number")
    if isinstance(value, Decimal):
        result = value
    else:
        text = repr(value) if isinstance(value, float) else str(value).strip().replace(",", "")
        try:
            result = Decimal(text)
        except InvalidOperation:
            raise MoneyError(f"{what} {value!r} is not a number") from None
    if not result.is_finite():
        raise MoneyError(f"{what} {value!r} is not a finite number")
    return result


def whole_number(value: object) -> int | None:
    """A JSON integer (not a boolean, not a fraction; a whole Decimal counts), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    return None


def fraction(text: str) -> Decimal:
    """'1/6' -> Decimal of one sixth; '2' -> 2."""
    num, sep, den = text.partition("/")
    if sep:
        return Decimal(num) / Decimal(den)
    return Decimal(text)
