"""Reading the terms of a promotion from its text, in English and Chinese.

`parse_terms(text)` finds the amount and currency, the percentage off, the
minimum spend, the duration, the eligibility, the products and the kind of
offer. It never raises on any text, and it never makes up a number: a value
it cannot read unambiguously stays None.

Chinese notation: "N折" means paying N/10 of the price ("3折" is 70% off,
"8.5折" 15% off, "85折" the same as "8.5折"); "满X减Y" is a voucher worth Y on
a purchase of at least X; 万 is ten thousand and 亿 a hundred million; full-
width digits are read as ASCII (NFKC).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from db.kinds import Eligibility, OfferKind

if TYPE_CHECKING:
    from tracker.normalize.gpu_time import GpuTime

_CN_DIGITS = {
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
_EN_NUMBERS = {
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
_MULTIPLIERS = {
    "万": Decimal(10000),
    "亿": Decimal(100000000),
    "千": Decimal(1000),
    "k": Decimal(1000),
    "m": Decimal(1000000),
}

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_PREFIX_CURRENCY = {
    "us$": "USD",
    "usd": "USD",
    "$": "USD",
    "hk$": "HKD",
    "s$": "SGD",
    "€": "EUR",
    "eur": "EUR",
    "£": "GBP",
    "¥": "CNY",
    "rmb": "CNY",
    "cny": "CNY",
}
_SUFFIX_CURRENCY = {
    "元": "CNY",
    "块": "CNY",
    "人民币": "CNY",
    "rmb": "CNY",
    "cny": "CNY",
    "usd": "USD",
    "dollars": "USD",
    "us dollars": "USD",
    "eur": "EUR",
    "euros": "EUR",
}
_MONEY_PREFIX = re.compile(
    rf"(?P<cur>US\$|HK\$|S\$|USD|EUR|RMB|CNY|\$|€|£|¥)\s?(?P<num>{_NUM})\s?(?P<mult>万|亿|千|[kKmM](?![a-zA-Z]))?"
)
_MONEY_SUFFIX = re.compile(
    rf"(?<![\d.$¥€£])(?P<num>{_NUM})\s?(?P<mult>万|亿|千|[kK](?![a-zA-Z]))?\s?"
    rf"(?P<cur>元|块|人民币|RMB|CNY|USD|us dollars|dollars|EUR|euros)",
    re.IGNORECASE,
)
_PER_UNIT = re.compile(
    r"^\s?(?:/|per\s|每)\s?(?:hour|hr|h\b|小时|时|month|mo\b|月|year|yr|年|day|天|GB|核|vCPU)", re.IGNORECASE
)
_FULL_REDUCTION = re.compile(
    rf"(?:每)?满\s?(?P<min>{_NUM})\s?(?P<mmult>万|千)?\s?(?:元)?\s?[减立减省]+\s?"
    rf"(?P<off>{_NUM})\s?(?P<omult>万|千)?\s?(?:元)?"
)
_ZHE = re.compile(r"(?P<num>\d+(?:\.\d+)?|[一二三四五六七八九][一二三四五六七八九]?)\s?折(?!扣)")
_PERCENT = re.compile(r"(?P<num>\d+(?:\.\d+)?)\s?%")
_PERCENT_BEFORE = re.compile(
    r"(?:save|saving|savings|discount|节省|省|降|优惠|低至|减|up to|最高|最多)\W{0,3}(?:up to\s)?$", re.IGNORECASE
)
_PERCENT_AFTER = re.compile(r"^\s?(?:off|discount|折扣|优惠|lower|cheaper|less)", re.IGNORECASE)
_FIRST_PERIOD = re.compile(rf"首(?P<unit>月|年)\s?(?:仅需|只需|低至|仅)?\s?(?:¥\s?)?(?P<num>{_NUM})\s?元")
_DURATION = re.compile(
    r"(?<![A-Za-z\d.])(?P<num>\d+|[一二两三四五六七八九十]+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|eighteen|"
    r"twenty-four|thirty|sixty|ninety|an?)"
    r"[\s-]?(?P<unit>days?|天|日|weeks?|周|星期|months?|个月|月|years?|年)(?![a-zA-Z])",
    re.IGNORECASE,
)
_HALF_YEAR = re.compile(r"半年|half a year|six-month", re.IGNORECASE)
_FIRST_MONTH = re.compile(r"(?:the )?first month|首月", re.IGNORECASE)
_DATE = re.compile(r"(?P<y>20\d{2})\s?(?:[-/.]|年)\s?(?P<m>\d{1,2})\s?(?:[-/.]|月)\s?(?P<d>\d{1,2})")

_CREDIT_WORDS = re.compile(r"credits?\b|额度|赠金|抵扣金|现金券|试用金|赠送|送|bonus", re.IGNORECASE)
_VOUCHER_WORDS = re.compile(r"代金券|优惠券|抵用券|voucher|coupon|红包", re.IGNORECASE)
_RENEWAL_WORDS = re.compile(r"续费|续订|renewal|renewing|renew\b", re.IGNORECASE)
_SPOT_WORDS = re.compile(r"\bspot\b|抢占式|竞价|preemptible|low[- ]priority", re.IGNORECASE)
_STARTUP_WORDS = re.compile(r"startups?\b|activate|初创|创业|云创|孵化|founders?\b", re.IGNORECASE)
_TRIAL_WORDS = re.compile(r"免费试用|免费体验|试用|0元体验|0元试用|free trial|trial|free tier", re.IGNORECASE)
_FREE_WORDS = re.compile(r"免费|\bfree\b", re.IGNORECASE)
_DISCOUNT_WORDS = re.compile(r"% off|折扣|特惠|促销|秒杀|discount|sale|低至|限时", re.IGNORECASE)
_UP_TO = re.compile(r"(?:up to|最高|最多|高达|至多)\s?$", re.IGNORECASE)

_ELIGIBILITY = (
    (
        Eligibility.new_users,
        re.compile(
            r"新用户|新客|首购|首单|新注册|新账号|new[- ](?:customers?|users?|accounts?|sign-?ups?)|first[- ]time", re.I
        ),
    ),
    (Eligibility.students, re.compile(r"学生|高校|students?\b|universit", re.I)),
    (Eligibility.startups, re.compile(r"初创|创业|云创|startups?\b|founders?\b|activate\b", re.I)),
    (Eligibility.enterprise, re.compile(r"企业(?:用户|客户|认证)|enterprise|business customers", re.I)),
    (Eligibility.all, re.compile(r"所有用户|全部用户|全员|all (?:customers|users|accounts)|everyone", re.I)),
)
_A = r"(?<![A-Za-z0-9])"  # an ASCII word edge: \b fails beside Chinese characters
_Z = r"(?![A-Za-z0-9])"
_PRODUCTS = (
    ("gpu", re.compile(rf"{_A}GPU|显卡|异构计算|{_A}(?:A100|H100|H800|A800|A10|T4|V100|L4|L20|H20){_Z}", re.I)),
    ("ecs", re.compile(rf"{_A}ECS{_Z}|云服务器|弹性计算|cloud server", re.I)),
    ("cvm", re.compile(rf"{_A}CVM{_Z}", re.I)),
    ("ec2", re.compile(rf"{_A}EC2{_Z}", re.I)),
    ("compute_engine", re.compile(r"compute engine", re.I)),
    ("virtual_machines", re.compile(r"virtual machines?|虚拟机", re.I)),
    ("storage", re.compile(rf"对象存储|{_A}(?:OSS|COS|OBS|S3){_Z}|storage", re.I)),
)


@dataclass
class OfferTerms:
    """What the text says; None where it does not say it unambiguously."""

    kind: OfferKind | None = None
    amount: Decimal | None = None
    currency: str | None = None
    percent_off: Decimal | None = None
    min_spend: Decimal | None = None
    duration_days: int | None = None
    eligibility: Eligibility | None = None
    products: list[str] = field(default_factory=list)
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    gpu_time: GpuTime | None = None  # free GPU hours or days of a named GPU or instance

    def says_something(self) -> bool:
        """An amount, a percentage, GPU time, or for a trial its length."""
        return (
            self.amount is not None
            or self.percent_off is not None
            or self.gpu_time is not None
            or (self.kind == OfferKind.free_trial and self.duration_days is not None)
        )


@dataclass(frozen=True)
class _Money:
    start: int
    end: int
    value: Decimal
    currency: str | None


def _number(text: str, mult: str | None = None) -> Decimal | None:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    if mult:
        value *= _MULTIPLIERS[mult.lower()]
    return _tidy(value)


def _tidy(value: Decimal) -> Decimal:
    """300, not 3E+2 or 300.00; 8.5, not 8.50."""
    return value.quantize(Decimal(1)) if value == value.to_integral_value() else value.normalize()


def _cn_small_number(text: str) -> int | None:
    """'三' -> 3, '十二' -> 12, '二十' -> 20; None for anything else."""
    if text.isdigit():
        return int(text)
    if text in _CN_DIGITS:
        return _CN_DIGITS[text]
    tens, sep, ones = text.partition("十")
    if not sep or any(c not in _CN_DIGITS for c in tens + ones) or len(tens) > 1 or len(ones) > 1:
        return None
    return (_CN_DIGITS[tens] if tens else 1) * 10 + (_CN_DIGITS[ones] if ones else 0)


def _moneys(text: str) -> list[_Money]:
    found: list[_Money] = []
    taken: list[tuple[int, int]] = []
    for pattern, table in ((_MONEY_PREFIX, _PREFIX_CURRENCY), (_MONEY_SUFFIX, _SUFFIX_CURRENCY)):
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            if _PER_UNIT.match(text[m.end() :]):
                continue  # a rate such as "$0.35/hour" is a price, not an amount of credit
            value = _number(m.group("num"), m.group("mult"))
            if not value:
                continue  # "0元试用" says free, not an amount
            taken.append((m.start(), m.end()))
            found.append(_Money(m.start(), m.end(), value, table[m.group("cur").lower()]))
    return sorted(found, key=lambda m: m.start)


def _near(pattern: re.Pattern[str], text: str, start: int, end: int, before: int = 12, after: int = 24) -> bool:
    return bool(pattern.search(text[max(0, start - before) : start]) or pattern.search(text[end : end + after]))


def _pick_amount(text: str, moneys: list[_Money]) -> _Money | None:
    """The one amount the offer is about: the one beside a credit or voucher
    word, or the only one there is. Several different ones are ambiguous."""
    if not moneys:
        return None
    keyed = [
        m for m in moneys if _near(_CREDIT_WORDS, text, m.start, m.end) or _near(_VOUCHER_WORDS, text, m.start, m.end)
    ]
    pool = keyed or moneys
    if len({(m.value, m.currency) for m in pool}) == 1:
        return pool[0]
    capped = [m for m in pool if _UP_TO.search(text[max(0, m.start - 10) : m.start])]
    return capped[0] if len(capped) == 1 else None


def _percent_off(text: str) -> Decimal | None:
    values: set[Decimal] = set()
    for m in _ZHE.finditer(text):
        raw = m.group("num")
        if raw[0] in _CN_DIGITS:
            paid = Decimal(_CN_DIGITS[raw[0]]) + (Decimal(_CN_DIGITS[raw[1]]) / 10 if len(raw) > 1 else 0)
        else:
            paid = Decimal(raw)
            if paid >= 10 and paid < 100 and paid == paid.to_integral_value():
                paid /= 10  # "85折" is said for 8.5折
        if 0 < paid < 10:
            values.add(Decimal(100) - paid * 10)
    for m in _PERCENT.finditer(text):
        if _PERCENT_BEFORE.search(text[max(0, m.start() - 14) : m.start()]) or _PERCENT_AFTER.match(text[m.end() :]):
            value = Decimal(m.group("num"))
            if 0 < value <= 100:
                values.add(value)
    if len(values) != 1:
        return None  # none, or several different ones: not a guess
    return _tidy(values.pop())


def _days(num: str, unit: str) -> int | None:
    n = _EN_NUMBERS.get(num.lower()) if num.isalpha() and num.isascii() else _cn_small_number(num)
    if n is None or n <= 0:
        return None
    unit = unit.lower()
    if unit.startswith("day") or unit in {"天", "日"}:
        return n
    if unit.startswith("week") or unit in {"周", "星期"}:
        return n * 7
    if unit.startswith("month") or unit in {"个月", "月"}:
        return n // 12 * 365 + n % 12 * 30
    return n * 365


def _duration(text: str) -> int | None:
    for m in _DURATION.finditer(text):
        num, unit = m.group("num"), m.group("unit").lower()
        if num.isdigit() and unit == "年" and int(num) >= 100:
            continue  # "2026年" is a year
        if num.isdigit() and unit == "月" and (re.match(r"\s?\d", text[m.end() :]) or text[: m.start()].endswith("年")):
            continue  # "12月31日" is a date
        if unit == "日" and text[: m.start()].endswith("月"):
            continue
        if num.lower() in {"a", "an"} and not unit.startswith(("year", "month")):
            continue
        days = _days(num, unit)
        if days:
            return days
    if _HALF_YEAR.search(text):
        return 182
    if _FIRST_MONTH.search(text):
        return 30
    return None


def _dates(text: str) -> list[datetime]:
    found = []
    for m in _DATE.finditer(text):
        try:
            found.append(datetime(int(m.group("y")), int(m.group("m")), int(m.group("d")), tzinfo=UTC))
        except ValueError:
            continue
    return found


def _kind(text: str, terms: OfferTerms, full_reduction: bool, first_period: bool) -> OfferKind | None:
    has_percent = terms.percent_off is not None
    if has_percent and _RENEWAL_WORDS.search(text):
        return OfferKind.renewal_discount
    if has_percent and _SPOT_WORDS.search(text):
        return OfferKind.spot_discount
    if full_reduction or _VOUCHER_WORDS.search(text):
        return OfferKind.voucher
    if terms.amount is not None and _STARTUP_WORDS.search(text):
        return OfferKind.startup_credit
    if terms.amount is not None and _CREDIT_WORDS.search(text):
        return OfferKind.free_credit
    if first_period or has_percent:
        return OfferKind.discount
    if _TRIAL_WORDS.search(text):
        return OfferKind.free_trial
    if _CREDIT_WORDS.search(text):
        return OfferKind.free_credit
    if _FREE_WORDS.search(text):
        return OfferKind.free_trial
    if _DISCOUNT_WORDS.search(text):
        return OfferKind.discount
    return None


def parse_terms(text: str, *, default_currency: str | None = None) -> OfferTerms:
    """The terms `text` states. Never raises; unknown values stay None."""
    try:
        return _parse(unicodedata.normalize("NFKC", text or ""), default_currency)
    except (ArithmeticError, ValueError, KeyError, IndexError):  # a pattern we did not foresee: say nothing
        return OfferTerms()


def _parse(text: str, default_currency: str | None) -> OfferTerms:
    terms = OfferTerms()
    full = _FULL_REDUCTION.search(text)
    first = _FIRST_PERIOD.search(text)
    if full:
        terms.min_spend = _number(full.group("min"), full.group("mmult"))
        terms.amount = _number(full.group("off"), full.group("omult"))
        terms.currency = "CNY"
    elif first:
        terms.amount = _number(first.group("num"))
        terms.currency = "CNY"
        terms.duration_days = 30 if first.group("unit") == "月" else 365
    else:
        money = _pick_amount(text, _moneys(text))
        if money is not None:
            terms.amount, terms.currency = money.value, money.currency
        elif default_currency:
            bare = re.search(
                rf"(?P<num>{_NUM})\s?(?P<mult>万|千)?\s?(?:元)?\s?(?:代金券|优惠券|抵用券|额度|赠金)", text
            )
            if bare:
                terms.amount, terms.currency = _number(bare.group("num"), bare.group("mult")), default_currency
    terms.percent_off = _percent_off(text)
    if terms.duration_days is None:
        terms.duration_days = _duration(text)
    for eligibility, pattern in _ELIGIBILITY:
        if pattern.search(text):
            terms.eligibility = eligibility
            break
    terms.products = [name for name, pattern in _PRODUCTS if pattern.search(text)]
    dates = _dates(text)
    if len(dates) >= 2:
        terms.valid_from, terms.valid_until = min(dates[:2]), max(dates[:2])
    elif dates:
        terms.valid_until = dates[0]
    # Imported here: gpu_time reads numbers with this module's helpers.
    from tracker.normalize.gpu_time import parse_gpu_time

    terms.gpu_time = parse_gpu_time(text)
    terms.kind = _kind(text, terms, full is not None, first is not None)
    if terms.kind is None and terms.gpu_time is not None:
        terms.kind = OfferKind.free_trial
    return terms


_RATE_UNITS = (
    ("hour", re.compile(r"hour|hr|h\b|小时|时", re.I)),
    ("month", re.compile(r"month|mo\b|月", re.I)),
    ("year", re.compile(r"year|yr|年", re.I)),
)


def parse_rate(text: str) -> tuple[Decimal, str, str] | None:
    """The one price with a unit in `text` ("$3.06/hour", "¥1200/月"): value,
    currency and unit (hour, month, year); None when there is none, or
    several different ones."""
    text = unicodedata.normalize("NFKC", text or "")
    found = set()
    for pattern, table in ((_MONEY_PREFIX, _PREFIX_CURRENCY), (_MONEY_SUFFIX, _SUFFIX_CURRENCY)):
        for m in pattern.finditer(text):
            per = _PER_UNIT.match(text[m.end() :])
            value = _number(m.group("num"), m.group("mult"))
            if not per or value is None:
                continue
            unit = next((name for name, p in _RATE_UNITS if p.search(per.group(0))), None)
            if unit:
                found.add((value, table[m.group("cur").lower()], unit))
    return found.pop() if len(found) == 1 else None
