"""Lengths of time and dates in promotion text, each length with what it is
the length of: a validity or trial length, never an order-length limit
("订单时长限1年": a condition), a commitment term ("3-year commitment",
"续费一年", "3年续费周期"), an inactivity rule ("inactive for more than 90
days") or a policy ("the 12-month duration of your free account", "expires
after 60 days", "within 90 days of accepting").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from tracker.normalize.numbers import EN_WORDS, small_number
from tracker.normalize.offers.clauses import condition_spans
from tracker.normalize.offers.words import FREE_SERVICES, TRIAL_WORDS, near

_DURATION = re.compile(
    # "one hundred and eighty (180) calendar days": a word before the digits in brackets, which count
    rf"(?<![A-Za-z\d.])(?P<num>\d+|[一二两三四五六七八九十]+|{EN_WORDS}|[a-z]+(?=\s?\(\d+\)))"
    r"(?:\s?\((?P<digits>\d+)\))?[\s-]?(?:calendar\s)?(?P<unit>days?|日間|天|日|weeks?|周(?!岁)|星期|months?|个月|ヶ月|か月|カ月|月|years?|年間|年|"
    r"週間|jours?|Tagen?|dagarna|dagar|mois|Monaten?|månader(?:na)?)(?![a-zA-Z])",
    re.I,
)
_HALF_YEAR = re.compile(r"半年|half a year|six-month", re.I)
_FIRST_MONTH = re.compile(r"(?:the )?first month|首月", re.I)
# The phrases of a validity: how long the offer or its credit can be used.
_VALIDITY = re.compile(
    r"有效|期限|使用期|到期|过期|内使用|可用|券时长|valid|expir|good for|lasts?\b|usable|to use|use (?:it )?within|within|"
    r"\bfor\b|\bover\b|\bspend\b|\bends?\b|elapse|period|有効|期間|유효|valables?|pendant|innerhalb|inom|gültig|giltig|\blang\b|\bersten\b|första",
    re.I,
)
# "The duration of the Grant is sixty (60) calendar days", "The Grant validity period: up to ... (180) days"
_VALIDITY_IS = re.compile(
    r"(?:duration|validity period|validity)\b[^.;]{0,24}(?:\bis|:)\s(?:up to\s)?[^.;:]{0,30}$", re.I
)
_TYPICAL = re.compile(r"通常|一般为|usually|typically|generally", re.I)
_VALID_AFTER = re.compile(r"^\s?(?:[（(][^）)]{0,12}[）)])?\s?内?\s?(?:有效|失效|过期)")
_INACTIVE = re.compile(r"inactiv|不活跃|未登录|未使用|闲置|no activity|unused for", re.I)
_POLICY_BEFORE = re.compile(
    r"inactiv|notif|notice|activate|expires?\s(?:after|in)|\bafter\s$|every\s$|注册时间|激活|退订|无理由|提前|起算|"
    r"过期|每\s?$|第\s?$|hear back|founded|within the last\s$|成立|设立|注册满|less than\s$|at least\s$|"
    r"過去\s?$|\b(?:past|last)\s$|view\w*\s(?:\w+\s){0,2}within\s(?:\d+\s?[-–]\s?)?$",
    re.I,
)
_POLICY_AFTER = re.compile(
    r"^\s?(?:in advance|of accepting|before|duration|后您将|之日起|内激活|无理由|old\b|of (?:registration|sign|account)|"
    r"内领取|内激活|以上的?(?:账号|用户))",
    re.I,
)
_ORDER_BEFORE = re.compile(
    r"(?:订单时长|购买时长|续费时长|时长限|限购|最长可购|order length|terms? of)\s?(?:限|为|不超过|最长)?\s?$", re.I
)
_TERM_BEFORE = re.compile(
    r"(?:续费|续订|包|renew(?:al)?\s(?:for\s)?|(?:paying|pay|paid|billed|prepay(?:ing)?|subscrib(?:e|ing))\s(?:for\s)?)\s?(?:\d+\s?[-–~]\s?)?$",
    re.I,
)
# "locking in rates for 1 or 3-year periods", "commit to a 3-year term": a commitment's length
_COMMIT_BEFORE = re.compile(
    r"(?:lock(?:s|ing)?\s(?:in\s)?(?:\w+\s){0,2}for\s|commit(?:s|ting)?\s(?:to\s)?(?:an?\s)?)(?:\d+\s?(?:[-–~]|or|and)\s?)?$",
    re.I,
)
# "für 7 Tage Zugriff auf ... Server" on a trial's page: the trial's length
_ACCESS = re.compile(r"\s?(?:of\s)?(?:Zugriff|Zugang|access)\b", re.I)
# "a $100, 60-day credit": the length of the credit, its validity
_LENGTH_OF = re.compile(r"^\s?(?:credits?|coupons?|vouchers?)\b", re.I)
_MONTHS_OF_CREDIT = re.compile(r"\s?of\s(?:free\s)?(?:[\w-]+\s)?(?:cloud\s)?credits?\b", re.I)
_TERM_AFTER = re.compile(r"^\s?(?:commitment|term|plan|reserved|期|包|续费|续订|周期)", re.I)
_DATE = re.compile(r"(?P<y>20\d{2})\s?(?:[-/.]|年)\s?(?P<m>\d{1,2})\s?(?:[-/.]|月)\s?(?P<d>\d{1,2})")


@dataclass(frozen=True)
class Duration:
    days: int
    role: str  # validity, trial (tied to a free or trial word), order, term, policy, condition


def _days(num: str, unit: str) -> int | None:
    n = small_number(num)
    if n is None or n <= 0:
        return None
    unit = unit.lower()
    if unit.startswith(("day", "jour", "tag", "dag")) or unit in {"天", "日", "日間"}:
        return n
    if unit.startswith("week") or unit in {"周", "星期", "週間"}:
        return n * 7
    if unit.startswith(("month", "monat", "mois", "månad")) or unit in {"个月", "月", "ヶ月", "か月", "カ月"}:
        return n // 12 * 365 + n % 12 * 30
    return n * 365


def durations(text: str) -> list[Duration]:
    """Every length of time in `text`, with what it is the length of."""
    found = []
    held = condition_spans(text)
    for m in _DURATION.finditer(text):
        num, unit = m.group("digits") or m.group("num"), m.group("unit").lower()
        before, after = text[max(0, m.start() - 24) : m.start()], text[m.end() : m.end() + 16]
        if num.isdigit() and unit == "年" and int(num) >= 100:
            continue  # "2026年" is a year
        if num.isdigit() and unit == "月" and (re.match(r"\s?\d", after) or before.endswith("年")):
            continue  # "12月31日" is a date
        if unit == "日" and before.endswith("月"):
            continue
        if num.lower() in {"a", "an"} and not unit.startswith(("year", "month")):
            continue
        days = _days(num, unit)
        if not days:
            continue
        if _ORDER_BEFORE.search(before[-10:]):
            role = "order"
        elif (
            _TERM_BEFORE.search(before[-16:])
            or _TERM_AFTER.match(after)
            or _COMMIT_BEFORE.search(text, max(0, m.start() - 48), m.start())
        ):
            role = "term"
        elif any(a <= m.start() and m.end() <= b for a, b in held):
            role = "condition"  # a window to claim, an account's or company's age, an order's length
        elif (
            _INACTIVE.search(before)
            or _POLICY_BEFORE.search(before[-18:])
            or _POLICY_AFTER.match(after)
            or re.search(r"\bthe\s$", before)
        ):
            role = "policy"
        elif _VALID_AFTER.match(after) or _VALIDITY_IS.search(text[max(0, m.start() - 64) : m.start()]):
            role = "validity"  # "自领取后 6 个月（以 180 天计）内有效": how long a free quota lasts, no trial's length
        elif (
            (
                near(TRIAL_WORDS, text, m.start(), m.end(), before=14, after=10)
                and not re.search(r"[。;；]", after[:6])
                and not _TYPICAL.search(before[-10:])  # "试用周期通常为30天": how trials usually go, no offer's length
            )
            or near(FREE_SERVICES, text, m.start(), m.end(), before=40, after=60)
            or (_ACCESS.match(after) and TRIAL_WORDS.search(text))
        ):
            role = "trial"
        elif _MONTHS_OF_CREDIT.match(text, m.end()):
            role = "trial"  # "12 months of infrastructure credit": a credit for that long, its sum unsaid
        elif near(_VALIDITY, text, m.start(), m.end(), before=20, after=12) or _LENGTH_OF.match(after):
            role = "validity"
        else:
            role = "length"  # a length no validity phrase claims: said, never stored as the offer's validity
        found.append(Duration(days, role))
    if not any(d.role in {"validity", "trial"} for d in found):
        if _HALF_YEAR.search(text):
            found.append(Duration(182, "trial" if TRIAL_WORDS.search(text) else "validity"))
        elif _FIRST_MONTH.search(text):
            found.append(Duration(30, "validity"))
    return found


def dates(text: str) -> list[datetime]:
    found = []
    for m in _DATE.finditer(text):
        try:
            found.append(datetime(int(m.group("y")), int(m.group("m")), int(m.group("d")), tzinfo=UTC))
        except ValueError:
            continue
    return found
