"""Numbers as promotion pages write them: digits with thousands separators,
Chinese multipliers (万 = 10,000, 亿 = 100,000,000, 千, k), Chinese numerals
(三, 十二, 二十) and English number words (one ... ninety, "a", "an").

Shared by the offer text reader (offers/text.py) and the GPU time reader
(gpu_time.py); it imports neither.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
EN_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "eighteen": 18,
    "twenty-four": 24,
    "thirty": 30,
    "sixty": 60,
    "ninety": 90,
    "a": 1,
    "an": 1,
}
# The alternatives of EN_NUMBERS for a regular expression, longest first.
EN_WORDS = "|".join(sorted(EN_NUMBERS, key=len, reverse=True))
MULTIPLIERS = {
    "万": Decimal(10000),
    "亿": Decimal(100000000),
    "만": Decimal(10000),  # Korean: "5만달러" is 50,000 dollars
    "억": Decimal(100000000),
    "千": Decimal(1000),
    "百万": Decimal(1000000),
    "k": Decimal(1000),
    "m": Decimal(1000000),
    "million": Decimal(1000000),
    "mn": Decimal(1000000),
    "billion": Decimal(1000000000),
    "bn": Decimal(1000000000),
}
# A number as written: "1,000", "1000", "0.833".
NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"


def tidy(value: Decimal) -> Decimal:
    """300, not 3E+2 or 300.00; 8.5, not 8.50."""
    return value.quantize(Decimal(1)) if value == value.to_integral_value() else value.normalize()


def decimal_of(text: str, mult: str | None = None) -> Decimal | None:
    """'1,000' -> 1000; '1.5', '万' -> 15000; None when it is not a number."""
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    if mult:
        value *= MULTIPLIERS[mult.strip().lower()]
    return tidy(value)


def cn_small_number(text: str) -> int | None:
    """'三' -> 3, '十二' -> 12, '二十' -> 20, '7' -> 7; None for anything else."""
    if text.isdigit():
        return int(text)
    if text in CN_DIGITS:
        return CN_DIGITS[text]
    tens, sep, ones = text.partition("十")
    if not sep or any(c not in CN_DIGITS for c in tens + ones) or len(tens) > 1 or len(ones) > 1:
        return None
    return (CN_DIGITS[tens] if tens else 1) * 10 + (CN_DIGITS[ones] if ones else 0)


def small_number(text: str) -> int | None:
    """A count written in digits, Chinese numerals or English words."""
    if text.isascii() and text.isalpha():
        return EN_NUMBERS.get(text.lower())
    return cn_small_number(text)


def amount_of(text: str) -> Decimal | None:
    """A count such as '4', '2.5', 'two' or '两' as a Decimal; None for zero or nothing."""
    if text[:1].isdigit():
        value = decimal_of(text)
    else:
        count = small_number(text)
        value = Decimal(count) if count is not None else None
    return value if value else None
