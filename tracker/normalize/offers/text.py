"""The terms one text of a promotion page states, in English and Chinese.

`parse_terms(text)` reads what one text says: the amount and currency of a
credit (`money`), the percentage off, the minimum spend, the validity
(`durations`), the eligibility and products (`words`), the GPU time and the
kind; `roles.read_offers` decides from these which offers a block states.
Never raises on any text, and never makes up a number: a value it cannot read
unambiguously stays None.

Percentages: "N% off", "save N%", "N折" (pay N/10: "3折" is 70% off, "85折"
15% off, "0.73折" 92.7% off), never a comparison ("仅为API价格的1折左右",
"降低30%左右") or a share ("85% of", "覆盖90%+"). A 满减 ladder
("满1000减300、满3000减900") and "$5 OFF $15" are vouchers with a minimum spend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from db.kinds import Eligibility, OfferKind
from tracker.normalize.gpu_time import GpuTime, parse_gpu_time
from tracker.normalize.numbers import CN_DIGITS, NUM, decimal_of, tidy
from tracker.normalize.offers.clauses import conditions, off_tiers, percent_range
from tracker.normalize.offers.durations import Duration, dates, durations
from tracker.normalize.offers.money import TRIAL_WORTH, Money, moneys, pick_amount
from tracker.normalize.offers.words import (
    CREDIT_WORDS,
    EXAMPLE,
    PRODUCTS,
    SPOT_WORDS,
    STARTUP_WORDS,
    TRIAL_KIND,
    TRIAL_WORDS,
    VOUCHER_WORDS,
    eligibility,
    normal,
    renewal,
)

__all__ = ["Duration", "Money", "OfferTerms", "Tier", "eligibility", "moneys", "normal", "parse_terms"]

_FULL_REDUCTION = re.compile(
    rf"(?P<each>每)?满\s?(?P<min>{NUM})\s?(?P<mmult>万|千)?\s?(?:元)?\s?[减立减省]+\s?(?P<off>{NUM})\s?(?P<omult>万|千)?\s?(?:元)?"
)
# "满 500 元可使用 50 元优惠券": a coupon of 50 for a spend of 500, as 满500减50
_FULL_COUPON = re.compile(
    rf"(?P<each>每)?满\s?(?P<min>{NUM})\s?(?P<mmult>万|千)?\s?元?\s?(?:可使用|可用|使用|可领取?|领取?)\s?"
    rf"(?P<off>{NUM})\s?(?P<omult>万|千)?\s?元\s?的?\s?(?:优惠券|代金券|满减券|券)"
)
_ZHE = re.compile(r"(?P<num>\d+(?:\.\d+)?|[一二三四五六七八九][一二三四五六七八九]?)\s?折(?!扣)")
_ZHE_COMPARISON = re.compile(r"(?:仅为|只有|相当于|约为|约)[^。;；,，]{0,14}$|是\s?$")
_ZHE_OF_PRICE = re.compile(r"价格?的\s?$")
_ABOUT = re.compile(
    r"^\s?(?:左右|上下|以上|以内|\+(?!\s?[\u4e00-\u9fff])|of\b|的(?!\s?(?:深度|额外)?\s?(?:折扣|优惠)))", re.I
)
# A commission on someone's spend is not a discount ("返佣最高34%", "earn 3% of").
_COMMISSION = re.compile(r"返佣|返利|佣金|commission|earn|返现比例", re.I)
_PERCENT = re.compile(r"(?P<num>\d+(?:\.\d+)?)\s?%")
_PERCENT_BEFORE = re.compile(
    r"(?:save|saving|savings|discounts?(?: of)?|节省|省|优惠|优惠力度|优惠幅度|折扣率|低至|立减|up to|最高|最多)\W{0,3}(?:up to\s)?$",
    re.I,
)
_PERCENT_AFTER = re.compile(
    r"^\s?(?:off|discounts?|savings?|Rabatt|Nachlass|de (?:réduction|remise)|de descuento|オフ|割引|할인|bonus|when (?:paying|you pay|prepaying)|的?\s?折扣|的?\s?优惠|lower|cheaper|less|below (?:on-demand|list|the on-demand))",
    re.I,
)


@dataclass(frozen=True)
class Tier:
    """One step of a 满减 ladder: `amount` off a purchase of at least `min_spend`."""

    min_spend: Decimal
    amount: Decimal
    each: bool = False  # 每满: off every full `min_spend`
    currency: str | None = None  # stated with the sums ("$5 OFF $15"); else the source's


@dataclass
class OfferTerms:
    """What the text says; None where it does not say it unambiguously."""

    kind: OfferKind | None = None
    amount: Decimal | None = None
    amount_low: Decimal | None = None  # a range's or alternatives' low end; `amount` is the high one
    currency: str | None = None
    percent_off: Decimal | None = None
    percent_off_low: Decimal | None = None
    min_spend: Decimal | None = None
    duration_days: int | None = None
    eligibility: Eligibility | None = None
    products: list[str] = field(default_factory=list)
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    gpu_time: GpuTime | None = None  # free GPU hours or days of a named GPU or instance
    tiers: list[Tier] = field(default_factory=list)  # every step of a 满减 ladder
    caps: list[Money] = field(default_factory=list)  # per-hour or per-month caps of a credit
    durations: list[Duration] = field(default_factory=list)
    spent: bool = False  # the amount is a budget to spend ("until you've spent $300")
    conditions: list[str] = field(default_factory=list)  # claim windows, account and company ages, order lengths
    rebate: bool = False  # `percent_off` of a top-up given back as a voucher ("充值立返5%")

    def says_something(self) -> bool:
        """An amount, a percentage, GPU time, or for a trial its length."""
        return (
            self.amount is not None
            or self.percent_off is not None
            or self.gpu_time is not None
            or (self.kind == OfferKind.free_trial and self.duration_days is not None)
        )


def tiers(text: str) -> list[Tier]:
    """Every step of a 满减 ladder, in order; none inside an example."""
    found: list[Tier] = []
    steps = sorted([*_FULL_REDUCTION.finditer(text), *_FULL_COUPON.finditer(text)], key=lambda m: m.start())
    for m in steps:
        if EXAMPLE.search(text[max(0, m.start() - 8) : m.start()]):
            continue
        low, off = decimal_of(m.group("min"), m.group("mmult")), decimal_of(m.group("off"), m.group("omult"))
        if low and off and off < low and all(t.min_spend != low for t in found):
            found.append(Tier(low, off, bool(m.group("each"))))
    return found


_PERCENT_SPAN = re.compile(
    r"(?P<a>\d+(?:\.\d+)?)\s?%?\s?(?P<join>-|–|—|~|〜|～|to|and|至|到)\s?(?P<b>\d+(?:\.\d+)?)\s?%"
)
_SHARE_OF = re.compile(
    r"[^.;]{0,30}?\b(?:based on (?:the )?(?:amount|revenue|spend\w*)|of (?:the |their |every |each )?(?:revenue|spend\w*|payments?))",
    re.I,
)
_THOSE = re.compile(r"\b(?:those|these)\s(?:[\d.]+\s?%?\s?(?:-|–|to|and)\s?)?$", re.I)
_CUT_BY = re.compile(r"\b(?:cuts?|reduces?|lowers?|saves?|saving)\b[^.;。]{0,40}\bby\s$|节省\s?$", re.I)


def _percent_span(text: str) -> tuple[Decimal, Decimal] | None:
    """A range of percentages off: "save 50-80%", "50% to 80% off", "cut the
    bill by 50–80%", "节省50%~70%": the low and high percentage."""
    for m in _PERCENT_SPAN.finditer(text):
        before, after = text[max(0, m.start() - 60) : m.start()], text[m.end() :]
        if m.group("join") == "and" and not re.search(r"between\s$", before, re.I):
            continue  # "10% and 25%" is two; "between 10% and 25%" a range
        if _COMMISSION.search(before[-10:]) or _ABOUT.match(after) or _THOSE.search(before):
            continue  # "capture those 60 to 90% savings": savings said before
        if not (
            _PERCENT_BEFORE.search(before[-14:])
            or _PERCENT_AFTER.match(after)
            or _CUT_BY.search(before)
            or _AS_VOUCHER.match(after)
        ):
            continue
        low, high = sorted((Decimal(m.group("a")), Decimal(m.group("b"))))
        if 0 < low < high <= 100:
            return tidy(low), tidy(high)
    return None


_HALF_PRICE = re.compile(r"半价|五折优惠|half[- ]price|half off", re.I)
_DISCOUNT_IS = re.compile(r"(?:discount|rebate|折扣|优惠)\s?(?:will be|is|of|为|是)\s?:?\s?$", re.I)
# "获得5%-10%代金券", "返10%的阿里云代金券": a share given back as a voucher
_PCT_VOUCHER = re.compile(r"\d\s?%\s?(?:的\s?)?\S{0,4}?(?:代金券|优惠券|vouchers?)", re.I)
_AS_VOUCHER = re.compile(r"\s?(?:的\s?)?\S{0,4}?(?:代金券|优惠券|vouchers?)", re.I)
_ESTIMATE = re.compile(r"节省幅度|降低|成本|可节省约", re.I)
_EQUIVALENT = re.compile(r"(?:equivalent to|equal to|相当于|约合|≈)\s?$", re.I)
# "Recharge 200 to receive a 20 bonus", "首充 ¥1 得 ¥10", "充值满500送50": a credit
# for a top-up of at least that much; "充值3000-19900 返3%代金券", "充值立返5%":
# a share of the top-up given back as a voucher.
_TOP_UP = r"(?:recharge|top[- ]?up|deposit|首次充值|首充|充值|充)\s?(?:满)?\s?[¥$]?\s?"
_RECHARGE = re.compile(
    rf"{_TOP_UP}(?P<min>{NUM})(?:\s?[-–~]\s?(?:{NUM}))?\s?(?:元|CNY|USD)?\s?(?:及以上|以上|or more)?\s?,?\s?(?:to\s|and\s)?"
    rf"(?:receive|get|earn|得|送|赠送?|获赠|返)\s?(?:an?\s)?[¥$]?\s?(?P<amt>{NUM})(?![\dx×倍])\s?(?P<pct>%)?",
    re.I,
)
_REBATE = re.compile(
    rf"(?:{_TOP_UP}|(?:累计)?(?:新购|消费)?满额?\s?)(?:(?P<min>{NUM})(?:\s?[-–~]\s?(?:{NUM}))?\s?(?:元|及以上|以上)?\s?)?"
    r"(?:立|再)?返\s?(?:(?P<low>\d+(?:\.\d+)?)\s?%?\s?[-–~]\s?)?(?P<pct>\d+(?:\.\d+)?)\s?%",
    re.I,
)


def _recharge(text: str, terms: OfferTerms, default_currency: str | None) -> bool:
    """Reads a bonus for a top-up into `terms`; whether there was one."""
    m = _RECHARGE.search(text)
    if m:
        low, value = decimal_of(m.group("min")), decimal_of(m.group("amt"))
        if not low or not value:
            return False
        terms.min_spend = low
        terms.currency = default_currency or ("USD" if "$" in m.group(0) else "CNY")
        if m.group("pct"):
            terms.percent_off, terms.rebate = value, True
        else:
            terms.amount = value
        return True
    rebate = _REBATE.search(text)
    if rebate:
        terms.percent_off, terms.rebate = Decimal(rebate.group("pct")), True
        if rebate.group("low"):
            terms.percent_off_low = Decimal(rebate.group("low"))
        if rebate.group("min"):
            terms.min_spend = decimal_of(rebate.group("min"))
            terms.currency = default_currency or "CNY"
        return True
    return False


def percent_off(text: str) -> Decimal | None:
    values: set[Decimal] = set()
    for m in _ZHE.finditer(text):
        before = text[max(0, m.start() - 16) : m.start()]
        if EXAMPLE.search(before[-8:]) or _ABOUT.match(text[m.end() :]):
            continue
        if (_ZHE_COMPARISON.search(before) or _ZHE_OF_PRICE.search(before)) and "低至" not in before:
            continue  # "仅为API价格的1折左右" compares prices
        raw = m.group("num")
        if raw[0] in CN_DIGITS:
            paid = Decimal(CN_DIGITS[raw[0]]) + (Decimal(CN_DIGITS[raw[1]]) / 10 if len(raw) > 1 else 0)
        else:
            paid = Decimal(raw)
            if 10 <= paid < 100 and paid == paid.to_integral_value():
                paid /= 10  # "85折" is said for 8.5折
        if 0 < paid < 10:
            values.add(Decimal(100) - paid * 10)
    for m in _PERCENT.finditer(text):
        if _ABOUT.match(text[m.end() :]) or re.match(r"^\s?(?:左右|or so)", text[m.end() :]):
            continue
        if _COMMISSION.search(text[max(0, m.start() - 10) : m.start()]) or _SHARE_OF.match(text, m.end()):
            continue
        if _ESTIMATE.search(text[max(0, m.start() - 12) : m.start()]):
            continue  # "节省幅度: 最高60%", "成本降低30%": what one may save, not an offer
        if _THOSE.search(text[max(0, m.start() - 24) : m.start()]):
            continue  # "those 60 to 90% savings": said before
        if _EQUIVALENT.search(text[max(0, m.start() - 16) : m.start()]):
            continue  # "a 20 bonus (equivalent to 10% off)" says what a bonus is worth
        if (
            _PERCENT_BEFORE.search(text[max(0, m.start() - 14) : m.start()])
            or _PERCENT_AFTER.match(text[m.end() :])
            or _DISCOUNT_IS.search(text[max(0, m.start() - 24) : m.start()])
        ):
            value = Decimal(m.group("num"))
            if 0 < value <= 100:
                values.add(value)
    return tidy(values.pop()) if len(values) == 1 else None  # none, or several: not a guess


def _kind(text: str, terms: OfferTerms) -> OfferKind | None:
    if terms.tiers or terms.rebate or (terms.amount is not None and VOUCHER_WORDS.search(text)):
        return OfferKind.voucher
    if terms.amount is not None and TRIAL_WORTH.search(text) and not CREDIT_WORDS.search(text):
        return OfferKind.free_trial  # a trial package worth a sum, not money to spend
    if terms.amount is not None:
        return OfferKind.startup_credit if STARTUP_WORDS.search(text) else OfferKind.free_credit
    if terms.percent_off is not None:
        if SPOT_WORDS.search(text):
            return OfferKind.spot_discount
        return OfferKind.renewal_discount if renewal(text) else OfferKind.discount
    if terms.gpu_time is not None or TRIAL_KIND.search(text):
        return OfferKind.free_trial
    if CREDIT_WORDS.search(text):
        return OfferKind.free_credit
    if TRIAL_WORDS.search(text):
        return OfferKind.free_trial
    if VOUCHER_WORDS.search(text):
        return OfferKind.voucher
    if re.search(r"% off|折扣|特惠|促销|秒杀|discount|sale|低至|限时", text, re.I):
        return OfferKind.discount
    return None


def parse_terms(text: str, *, default_currency: str | None = None) -> OfferTerms:
    """The terms `text` states. Never raises; unknown values stay None."""
    try:
        return _parse(normal(text), default_currency)
    except (ArithmeticError, ValueError, KeyError, IndexError):  # a pattern we did not foresee: say nothing
        return OfferTerms()


def _parse(text: str, default_currency: str | None) -> OfferTerms:
    ladder = tiers(text) or [Tier(t.min_spend, t.amount, currency=t.currency) for t in off_tiers(text)]
    terms = OfferTerms(tiers=ladder)
    found = moneys(text, default_currency)
    if terms.tiers:
        first = terms.tiers[0]
        terms.min_spend, terms.amount = first.min_spend, first.amount
        terms.currency = first.currency or (
            default_currency if default_currency and default_currency != "USD" else "CNY"
        )
    elif _recharge(text, terms, default_currency):
        pass
    else:
        money = pick_amount(text, found)
        if money is not None:
            terms.amount, terms.currency, terms.spent = money.value, money.currency, money.role == "spent"
            terms.amount_low = money.low
    terms.caps = [m for m in found if m.role == "cap"]
    if not terms.rebate and terms.amount is None and _PCT_VOUCHER.search(text):
        terms.rebate = True
    zhe_range = percent_range(text) or _percent_span(text)
    if zhe_range:
        terms.percent_off_low, terms.percent_off = zhe_range
    elif not terms.rebate:
        terms.percent_off = percent_off(text) or (Decimal(50) if _HALF_PRICE.search(text) else None)
    terms.conditions = conditions(text)
    terms.durations = durations(text)
    terms.duration_days = next((d.days for d in terms.durations if d.role in {"validity", "trial"}), None)
    terms.eligibility = eligibility(text)
    if terms.eligibility is None and "company_age" in terms.conditions:
        terms.eligibility = Eligibility.startups  # "founded within the last 5 years", "成立不超过3年"
    terms.products = [name for name, pattern in PRODUCTS if pattern.search(text)]
    days = dates(text)
    if len(days) >= 2:
        terms.valid_from, terms.valid_until = min(days[:2]), max(days[:2])
    elif days:
        terms.valid_until = days[0]
    terms.gpu_time = parse_gpu_time(text)
    terms.kind = _kind(text, terms)
    return terms
