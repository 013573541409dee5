"""The notations of promotion text, in English and Chinese, each with its role.

`parse_terms(text)` reads what one text says: the amount and currency of a
credit, the percentage off, the minimum spend, the validity, the eligibility,
the products, the GPU time and the kind; `roles.read_offers` decides
from these which offers a block states. Never raises on any text, and never
makes up a number: a value it cannot read unambiguously stays None.

Every number is read with its role, so that only an offer's own terms become
terms:
- money: an amount (beside a credit or voucher word), a price or rate ("99元/年",
  "9.9 元起", "低至", "仅需", "首月1元"), a cap ("每小时…上限为0.833元"), a
  reference to a credit stated elsewhere ("the $300 credit"), an example
  ("比如“满1000减100”");
- percentages: "N% off", "save N%", "N折" (pay N/10: "3折" is 70% off, "85折"
  15% off, "0.73折" 92.7% off), never a comparison ("仅为API价格的1折左右",
  "降低30%左右") or a share ("85% of", "覆盖90%+");
- durations: a validity or trial length, never an order-length limit
  ("订单时长限1年": a condition), a commitment term ("3-year commitment",
  "续费一年"), an inactivity rule ("inactive for more than 90 days") or a
  policy ("the 12-month duration of your free account", "expires after 60
  days", "within 90 days of accepting").
Currencies: 元, ￥, ¥, RMB, CNY, 人民币, $, USD, US$, HK$, S$, €, EUR, £; 万 is
ten thousand and 亿 a hundred million; full-width digits are read as ASCII.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from db.kinds import Eligibility, OfferKind
from tracker.normalize.gpu_time import GpuTime, parse_gpu_time
from tracker.normalize.numbers import CN_DIGITS, EN_WORDS, NUM, decimal_of, small_number, tidy
from tracker.normalize.offers.clauses import bare_low, conditions, joined, off_tiers, percent_range

_PREFIX_CURRENCY = {"us$": "USD", "usd": "USD", "$": "USD", "hk$": "HKD", "s$": "SGD", "€": "EUR", "eur": "EUR"}
_PREFIX_CURRENCY |= {"£": "GBP", "¥": "CNY", "rmb": "CNY", "cny": "CNY", "gbp": "GBP", "jpy": "JPY", "krw": "KRW"}
_PREFIX_CURRENCY |= {"₩": "KRW", "₹": "INR", "inr": "INR", "rs.": "INR", "sgd": "SGD", "hkd": "HKD", "a$": "AUD"}
_SUFFIX_CURRENCY = {"元": "CNY", "块": "CNY", "人民币": "CNY", "rmb": "CNY", "cny": "CNY", "usd": "USD"}
_SUFFIX_CURRENCY |= {"dollars": "USD", "us dollars": "USD", "eur": "EUR", "euros": "EUR", "美元": "USD", "欧元": "EUR"}
_SUFFIX_CURRENCY |= {"円": "JPY", "日元": "JPY", "jpy": "JPY", "원": "KRW", "krw": "KRW", "inr": "INR", "gbp": "GBP"}
_SUFFIX_CURRENCY |= {"英镑": "GBP", "港元": "HKD", "港币": "HKD", "hkd": "HKD", "sgd": "SGD", "新元": "SGD"}
_MULT = r"(?P<mult>百万|万|亿|千|[kK](?![a-zA-Z]))?"
_MONEY_PREFIX = re.compile(
    rf"(?P<cur>US\$|HK\$|S\$|A\$|USD|EUR|GBP|JPY|KRW|INR|SGD|HKD|RMB|CNY|Rs\.|\$|€|£|¥|₩|₹)\s?(?P<num>{NUM})\s?{_MULT}\+?"
)
_MONEY_SUFFIX = re.compile(
    rf"(?<![\d.$¥€£₩₹])(?P<num>{NUM})\s?{_MULT}\+?\s?(?P<cur>元|块|人民币|美元|欧元|英镑|港元|港币|新元|日元|円|원|RMB|CNY|USD|JPY|"
    r"KRW|INR|GBP|SGD|HKD|us dollars|dollars|EUR|euros)",
    re.IGNORECASE,
)
_BARE_CREDIT = re.compile(
    rf"(?P<num>{NUM})\s?{_MULT}\s?(?:元)?\s?(?:代金券|优惠券|抵用券|额度|赠金|抵扣金|试用金|试用点)"
)
_UNIT = r"(?:hours?|hr|h\b|小时|时|months?|mo\b|月|years?|yr|年|days?|天|GB|核|vCPU)"
_PER_AFTER = re.compile(rf"^\s?(?:/|per\s|每)\s?{_UNIT}", re.I)
_PER_BEFORE = re.compile(r"(?:每小时|每月|每天|每日|每年|per hour|per month|hourly|monthly)[^。;；,，]{0,12}$", re.I)
_AFTER_PER = re.compile(
    r"(?:领取|可领|发放|赠送?|获得)[^。;；,，]{0,4}$"
)  # "每年可领取的300元": a yearly gift, not a rate
_CAP_WORDS = re.compile(r"上限|封顶|最多|最高|at most|capped|cap\b|limit", re.I)
_PRICE_BEFORE = re.compile(
    r"(?:低至|仅需|只需|仅售|售价|价格|特价|只要|首月|首年|首购|首单|from|as low as|starting at|for only)\s?$", re.I
)
_PRICE_AFTER = re.compile(r"^\s?(?:/\s?\S{1,2}\s?)?起|^\s?(?:transaction|charge|fee)", re.I)
_THRESHOLD = re.compile(r"^\s?(?:以上|以下|未満|or more|or less|and above)", re.I)
_GIFT_BEFORE = re.compile(
    r"(?:give you|gives you|you(?:'ll| will) (?:get|receive)|will receive|获得|可得|可获|赠送?)\s?$", re.I
)
_REFERENCE = re.compile(r"(?:\bthe|\byour|\bthis|\binitial|\bremaining)\s$", re.I)
_SPENT = re.compile(r"spen[dt]\s(?:all\s)?(?:of\s)?(?:your\s)?$", re.I)
# Sums a person pays, buys or must spend, and credits someone already has.
_PAID = re.compile(
    r"(?:\bbuys?|\bbought|purchased?|purchases|\bloads?|loaded|\bspends?|\bbilled|\bcosts?|minimum|\bmin\.|at least|"
    r"requires? an?)\s(?:(?:their|the|a|first|of|an?|in)\s){0,3}$|最低|至少|充值\s?$",
    re.I,
)
_HAD = re.compile(
    r"(?:if you(?:'ve)? (?:received|receive|have|got|were approved for|are approved for|earned)|approved for|"
    r"you've earned|you have earned|\breceived|\bmy)\s(?:an?\s)?$",
    re.I,
)
_EXAMPLE = re.compile(r"(?:比如|例如|譬如|such as|e\.g\.|for example|如)[\s:：,，]{0,2}[“\"「『'(（]?$", re.I)

_CREDIT_WORDS = re.compile(
    r"credits?\b|额度|赠金|抵扣金|现金券|试用金|试用点|赠送|送|bonus|クレジット|積分|抵用金|크레딧|crédits?\b|créditos?\b|"
    r"क्रेडिट|Guthaben",
    re.I,
)
_VOUCHER_WORDS = re.compile(r"代金券|优惠券|抵用券|優惠券|voucher|coupon|红包|クーポン|쿠폰", re.I)
_STARTUP_WORDS = re.compile(
    r"startups?\b|start-ups?\b|\bActivate\b|初创|创业|云创|孵化|founders?\b|Founders|スタートアップ|新創"
)
_RENEWAL_WORDS = re.compile(r"续费|续订|renewal|renewing|renew\b", re.I)
_SPOT_WORDS = re.compile(r"\bspot\b|抢占式|竞价|preemptible|low[- ]priority", re.I)
_TRIAL_KIND = re.compile(r"免费试用|免费体验|试用|0元体验|free trial|trial|free tier", re.I)
_TRIAL_WORDS = re.compile(r"免费|试用|体验|(?<![\d.])0元|\bfree\b|trial", re.I)

_FULL_REDUCTION = re.compile(
    rf"(?P<each>每)?满\s?(?P<min>{NUM})\s?(?P<mmult>万|千)?\s?(?:元)?\s?[减立减省]+\s?(?P<off>{NUM})\s?(?P<omult>万|千)?\s?(?:元)?"
)
_ZHE = re.compile(r"(?P<num>\d+(?:\.\d+)?|[一二三四五六七八九][一二三四五六七八九]?)\s?折(?!扣)")
_ZHE_COMPARISON = re.compile(r"(?:仅为|只有|相当于|约为|约|是)[^。;；,，]{0,14}$")
_ZHE_OF_PRICE = re.compile(r"价格?的\s?$")
_ABOUT = re.compile(r"^\s?(?:左右|上下|以上|以内|\+|of\b|的(?!\s?(?:深度|额外)?\s?(?:折扣|优惠)))", re.I)
# A commission on someone's spend is not a discount ("返佣最高34%", "earn 3% of").
_COMMISSION = re.compile(r"返佣|返利|佣金|commission|earn|返现比例", re.I)
_PERCENT = re.compile(r"(?P<num>\d+(?:\.\d+)?)\s?%")
_PERCENT_BEFORE = re.compile(
    r"(?:save|saving|savings|discount|节省|省|优惠|低至|立减|up to|最高|最多)\W{0,3}(?:up to\s)?$", re.I
)
_PERCENT_AFTER = re.compile(r"^\s?(?:off|discount|的?\s?折扣|的?\s?优惠|lower|cheaper|less)", re.I)
_UP_TO = re.compile(r"(?:up to|最高|最多|高达|至多|至高)\s?(?:可得|可获|领取|享)?\s?(?:价值)?\s?$", re.I)

_DURATION = re.compile(
    rf"(?<![A-Za-z\d.])(?P<num>\d+|[一二两三四五六七八九十]+|{EN_WORDS})"
    r"[\s-]?(?P<unit>days?|日間|天|日|weeks?|周(?!岁)|星期|months?|个月|ヶ月|か月|カ月|月|years?|年間|年)(?![a-zA-Z])",
    re.I,
)
_HALF_YEAR = re.compile(r"半年|half a year|six-month", re.I)
_FIRST_MONTH = re.compile(r"(?:the )?first month|首月", re.I)
_POLICY_BEFORE = re.compile(
    r"inactiv|notif|notice|activate|expires?\s(?:after|in)|\bafter\s$|every\s$|注册时间|激活|退订|无理由|提前|起算|"
    r"过期|每\s?$|第\s?$|hear back|founded|within the last\s$|成立|设立|注册满|less than\s$|at least\s$",
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
_TERM_BEFORE = re.compile(r"(?:续费|续订|包|renew(?:al)?\s(?:for\s)?)\s?$", re.I)
_TERM_AFTER = re.compile(r"^\s?(?:commitment|term|plan|reserved|期|包)", re.I)
_DATE = re.compile(r"(?P<y>20\d{2})\s?(?:[-/.]|年)\s?(?P<m>\d{1,2})\s?(?:[-/.]|月)\s?(?P<d>\d{1,2})")

_ALL = re.compile(
    r"不限新老|新老同享|新老用户|新老客户|所有用户|全部用户|全员|all (?:customers|users|accounts)|everyone"
)
_ALL_EITHER = re.compile(r"个人[^。;；]{0,8}企业|企业[^。;；]{0,8}个人|均可")
_ELIGIBILITY = (
    (Eligibility.students, re.compile(r"学生|高校|students?\b|universit", re.I)),
    (
        Eligibility.startups,
        re.compile(r"初创|创业|云创|startups?\b|founders?\b|\bActivate\b|スタートアップ|新創", re.I),
    ),
    (
        Eligibility.enterprise,
        re.compile(r"企业(?:用户|客户|认证|实名认证|专享|免费|新用户|新客)|enterprise|business customers", re.I),
    ),
    (
        Eligibility.new_users,
        re.compile(
            r"新用户|新客|新人|新注册|新账号|new[- ](?:customers?|users?|accounts?|sign-?ups?)|first[- ]time|"
            r"(?:aren't|are not|not) yet an? [^.;]{0,40}customer|never been a paying customer|"
            r"(?:days|months?) (?:after|of) (?:your )?sign(?:ing)?[- ]?up|注册(?:后|之日起)\s?\d+\s?(?:天|日|个月)内|"
            r"when you sign(?:ed)? up|sign up and get|注册即(?:送|可|领|得)|注册就送|新規登録",
            re.I,
        ),
    ),
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


@dataclass(frozen=True)
class Money:
    start: int
    end: int
    value: Decimal
    currency: str
    role: str  # amount, spent, paid, price, rate, cap, reference, example
    per: str | None = None
    low: Decimal | None = None  # the low end of a range or of alternatives ("$5-$25", "$3 or $8")


@dataclass(frozen=True)
class Tier:
    """One step of a 满减 ladder: `amount` off a purchase of at least `min_spend`."""

    min_spend: Decimal
    amount: Decimal
    each: bool = False  # 每满: off every full `min_spend`
    currency: str | None = None  # stated with the sums ("$5 OFF $15"); else the source's


@dataclass(frozen=True)
class Duration:
    days: int
    role: str  # validity, trial (tied to a free or trial word), order, term, policy


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

    def says_something(self) -> bool:
        """An amount, a percentage, GPU time, or for a trial its length."""
        return (
            self.amount is not None
            or self.percent_off is not None
            or self.gpu_time is not None
            or (self.kind == OfferKind.free_trial and self.duration_days is not None)
        )


def _role(text: str, start: int, end: int) -> tuple[str, str | None]:
    before, after = text[max(0, start - 24) : start], text[end : end + 14]
    if _EXAMPLE.search(before[-8:]):
        return "example", None
    per = _PER_AFTER.match(after) or _PER_BEFORE.search(before)
    if per and not _AFTER_PER.search(before):
        unit = next((name for name, p in _RATE_UNITS if p.search(per.group(0))), None)
        return ("cap" if _CAP_WORDS.search(before[-14:]) else "rate"), unit
    if _PRICE_AFTER.match(after) or _PRICE_BEFORE.search(before[-8:]) or _THRESHOLD.match(after):
        return "price", None
    if _REFERENCE.search(before[-12:]) or _HAD.search(before):
        return "reference", None
    if _SPENT.search(before[-24:]):
        return "spent", None
    if _PAID.search(before):
        return "paid", None
    return "amount", None


def moneys(text: str, default_currency: str | None = None) -> list[Money]:
    """Every sum of money in `text` with its role; zero sums are left out ("0元试用" says free)."""
    found: list[Money] = []
    taken: list[tuple[int, int]] = []
    patterns = [(_MONEY_PREFIX, _PREFIX_CURRENCY), (_MONEY_SUFFIX, _SUFFIX_CURRENCY)]
    if default_currency:
        patterns.append((_BARE_CREDIT, {}))
    for pattern, table in patterns:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            value = decimal_of(m.group("num"), m.group("mult"))
            if not value:
                continue
            currency = table[m.group("cur").lower()] if table else default_currency
            taken.append((m.start(), m.end()))
            role, per = _role(text, m.start(), m.end())
            found.append(Money(m.start(), m.end(), value, str(currency), role, per))
    return _ranges(text, sorted(found, key=lambda m: m.start))


def _ranges(text: str, found: list[Money]) -> list[Money]:
    """Ranges and alternatives as one sum worth up to the high end: "$5-$25",
    "between $5 and $500", "$3 or $8", "10 元 ~ 80 元", "200~400 元"."""
    out: list[Money] = []
    for m in found:
        last = out[-1] if out else None
        same = last is not None and last.currency == m.currency and last.low is None
        if last is not None and same and last.value < m.value and joined(text, last.end, m.start):
            role, per = _role(text, last.start, m.end)
            out[-1] = Money(last.start, m.end, m.value, m.currency, role, per, low=last.value)
            continue
        bare = bare_low(text, m.start)
        if bare and bare[1] < m.value and not (last and last.end > bare[0]):
            role, per = _role(text, bare[0], m.end)
            m = Money(bare[0], m.end, m.value, m.currency, role, per, low=bare[1])
        out.append(m)
    return out


def _near(pattern: re.Pattern[str], text: str, start: int, end: int, before: int = 24, after: int = 24) -> bool:
    """`pattern` within `before` characters before [start, end), in it, or within `after` after it."""
    return bool(pattern.search(text, max(0, start - before), end + after))


def pick_amount(text: str, found: list[Money]) -> Money | None:
    """The one amount the offer is about: beside a credit or voucher word (or
    a budget "spent" on a trial); several different ones are ambiguous unless
    exactly one value is said "up to"."""
    pool = [
        m
        for m in found
        if (
            m.role == "amount"
            and (
                _near(_CREDIT_WORDS, text, m.start, m.end)
                or _near(_VOUCHER_WORDS, text, m.start, m.end)
                or _GIFT_BEFORE.search(text[max(0, m.start - 16) : m.start])
            )
        )
        or (m.role == "spent" and _TRIAL_WORDS.search(text))
    ]
    if len({(m.value, m.currency) for m in pool}) == 1:
        return pool[0]
    capped = [m for m in pool if _UP_TO.search(text[max(0, m.start - 12) : m.start])]
    return capped[0] if len({(m.value, m.currency) for m in capped}) == 1 else None


def tiers(text: str) -> list[Tier]:
    """Every step of a 满减 ladder, in order; none inside an example."""
    found: list[Tier] = []
    for m in _FULL_REDUCTION.finditer(text):
        if _EXAMPLE.search(text[max(0, m.start() - 8) : m.start()]):
            continue
        low, off = decimal_of(m.group("min"), m.group("mmult")), decimal_of(m.group("off"), m.group("omult"))
        if low and off and off < low and all(t.min_spend != low for t in found):
            found.append(Tier(low, off, bool(m.group("each"))))
    return found


def percent_off(text: str) -> Decimal | None:
    values: set[Decimal] = set()
    for m in _ZHE.finditer(text):
        before = text[max(0, m.start() - 16) : m.start()]
        if _EXAMPLE.search(before[-8:]) or _ABOUT.match(text[m.end() :]):
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
        if _COMMISSION.search(text[max(0, m.start() - 10) : m.start()]):
            continue
        if _PERCENT_BEFORE.search(text[max(0, m.start() - 14) : m.start()]) or _PERCENT_AFTER.match(text[m.end() :]):
            value = Decimal(m.group("num"))
            if 0 < value <= 100:
                values.add(value)
    return tidy(values.pop()) if len(values) == 1 else None  # none, or several: not a guess


def _days(num: str, unit: str) -> int | None:
    n = small_number(num)
    if n is None or n <= 0:
        return None
    unit = unit.lower()
    if unit.startswith("day") or unit in {"天", "日", "日間"}:
        return n
    if unit.startswith("week") or unit in {"周", "星期"}:
        return n * 7
    if unit.startswith("month") or unit in {"个月", "月", "ヶ月", "か月", "カ月"}:
        return n // 12 * 365 + n % 12 * 30
    return n * 365


def durations(text: str) -> list[Duration]:
    """Every length of time in `text`, with what it is the length of."""
    found = []
    for m in _DURATION.finditer(text):
        num, unit = m.group("num"), m.group("unit").lower()
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
        elif _TERM_BEFORE.search(before[-6:]) or _TERM_AFTER.match(after):
            role = "term"
        elif _POLICY_BEFORE.search(before[-18:]) or _POLICY_AFTER.match(after) or re.search(r"\bthe\s$", before):
            role = "policy"
        elif _near(_TRIAL_WORDS, text, m.start(), m.end(), before=14, after=10) and not re.search(
            r"[。;；]", after[:6]
        ):
            role = "trial"
        else:
            role = "validity"
        found.append(Duration(days, role))
    if not any(d.role in {"validity", "trial"} for d in found):
        if _HALF_YEAR.search(text):
            found.append(Duration(182, "trial" if _TRIAL_WORDS.search(text) else "validity"))
        elif _FIRST_MONTH.search(text):
            found.append(Duration(30, "validity"))
    return found


def _dates(text: str) -> list[datetime]:
    found = []
    for m in _DATE.finditer(text):
        try:
            found.append(datetime(int(m.group("y")), int(m.group("m")), int(m.group("d")), tzinfo=UTC))
        except ValueError:
            continue
    return found


def eligibility(text: str) -> Eligibility | None:
    """Who may take the offer: "all users" phrases win over "new users" ones;
    "personal or enterprise verification" is everyone."""
    if _ALL.search(text):
        return Eligibility.all
    for who, pattern in _ELIGIBILITY:
        if pattern.search(text):
            if who == Eligibility.enterprise and _ALL_EITHER.search(text):
                continue
            return who
    return None


def _kind(text: str, terms: OfferTerms) -> OfferKind | None:
    if terms.tiers or (terms.amount is not None and _VOUCHER_WORDS.search(text)):
        return OfferKind.voucher
    if terms.amount is not None:
        return OfferKind.startup_credit if _STARTUP_WORDS.search(text) else OfferKind.free_credit
    if terms.percent_off is not None:
        if _SPOT_WORDS.search(text):
            return OfferKind.spot_discount
        return OfferKind.renewal_discount if _RENEWAL_WORDS.search(text) else OfferKind.discount
    if terms.gpu_time is not None or _TRIAL_KIND.search(text):
        return OfferKind.free_trial
    if _CREDIT_WORDS.search(text):
        return OfferKind.free_credit
    if _TRIAL_WORDS.search(text):
        return OfferKind.free_trial
    if _VOUCHER_WORDS.search(text):
        return OfferKind.voucher
    if re.search(r"% off|折扣|特惠|促销|秒杀|discount|sale|低至|限时", text, re.I):
        return OfferKind.discount
    return None


def normal(text: str | None) -> str:
    return unicodedata.normalize("NFKC", text or "")


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
    else:
        money = pick_amount(text, found)
        if money is not None:
            terms.amount, terms.currency, terms.spent = money.value, money.currency, money.role == "spent"
            terms.amount_low = money.low
    terms.caps = [m for m in found if m.role == "cap"]
    zhe_range = percent_range(text)
    if zhe_range:
        terms.percent_off_low, terms.percent_off = zhe_range
    else:
        terms.percent_off = percent_off(text)
    terms.conditions = conditions(text)
    terms.durations = durations(text)
    terms.duration_days = next((d.days for d in terms.durations if d.role in {"validity", "trial"}), None)
    terms.eligibility = eligibility(text)
    terms.products = [name for name, pattern in _PRODUCTS if pattern.search(text)]
    dates = _dates(text)
    if len(dates) >= 2:
        terms.valid_from, terms.valid_until = min(dates[:2]), max(dates[:2])
    elif dates:
        terms.valid_until = dates[0]
    terms.gpu_time = parse_gpu_time(text)
    terms.kind = _kind(text, terms)
    return terms


_RATE_UNITS = (
    ("hour", re.compile(r"hour|hr|h\b|小时|时", re.I)),
    ("month", re.compile(r"month|mo\b|月", re.I)),
    ("year", re.compile(r"year|yr|年", re.I)),
    ("day", re.compile(r"day|天|日", re.I)),
)


def parse_rate(text: str) -> tuple[Decimal, str, str] | None:
    """The one price with a unit in `text` ("$3.06/hour", "¥1200/月"): value,
    currency and unit (hour, month, year); None when there is none, or
    several different ones."""
    text = normal(text)
    found = set()
    for pattern, table in ((_MONEY_PREFIX, _PREFIX_CURRENCY), (_MONEY_SUFFIX, _SUFFIX_CURRENCY)):
        for m in pattern.finditer(text):
            per = _PER_AFTER.match(text[m.end() :])
            value = decimal_of(m.group("num"), m.group("mult"))
            if not per or value is None:
                continue
            unit = next((name for name, p in _RATE_UNITS[:3] if p.search(per.group(0))), None)
            if unit:
                found.add((value, table[m.group("cur").lower()], unit))
    return found.pop() if len(found) == 1 else None
