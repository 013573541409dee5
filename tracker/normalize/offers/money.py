"""Sums of money in promotion text, each with its role: an amount (beside a
credit or voucher word), a price or rate ("99元/年", "9.9 元起", "低至"), a cap
("每小时…上限为0.833元"), a reference to a credit stated elsewhere ("the $300
credit"), a sum someone pays or has spent, an example ("比如“满1000减100”").
Ranges and alternatives ("$5-$25", "$3 or $8", "200~400 元") are one sum with
its low end.

Currencies: 元, ￥, ¥, RMB, CNY, 人民币, $, USD, US$, HK$, S$, A$, €, EUR, £,
GBP, JPY, 円, KRW, ₩, INR, ₹, SGD, HKD, RUB (rubles, ₽); 万 is ten thousand and 亿 a hundred
million.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal

from tracker.normalize.numbers import NUM, decimal_of
from tracker.normalize.offers.clauses import bare_high, bare_low, joined
from tracker.normalize.offers.words import (
    CALCULATION,
    CREDIT_WORDS,
    EXAMPLE,
    STARTUP_WORDS,
    TRIAL_WORDS,
    VOUCHER_WORDS,
    near,
    normal,
)

_PREFIX_CURRENCY = {
    "usd$": "USD",
    "us$": "USD",
    "usd": "USD",
    "$": "USD",
    "hk$": "HKD",
    "s$": "SGD",
    "€": "EUR",
    "eur": "EUR",
}
_PREFIX_CURRENCY |= {"£": "GBP", "¥": "CNY", "rmb": "CNY", "cny": "CNY", "gbp": "GBP", "jpy": "JPY", "krw": "KRW"}
_PREFIX_CURRENCY |= {"rub": "RUB", "₽": "RUB"}
_PREFIX_CURRENCY |= {"₩": "KRW", "₹": "INR", "inr": "INR", "rs.": "INR", "sgd": "SGD", "hkd": "HKD", "a$": "AUD"}
_SUFFIX_CURRENCY = {"元": "CNY", "块": "CNY", "人民币": "CNY", "rmb": "CNY", "cny": "CNY", "usd": "USD"}
_SUFFIX_CURRENCY |= {"dollars": "USD", "us dollars": "USD", "eur": "EUR", "euros": "EUR", "美元": "USD", "欧元": "EUR"}
_SUFFIX_CURRENCY |= {"円": "JPY", "日元": "JPY", "jpy": "JPY", "원": "KRW", "krw": "KRW", "inr": "INR", "gbp": "GBP"}
_SUFFIX_CURRENCY |= {"ドル": "USD", "달러": "USD", "$": "USD"}  # "300 ドル", "5만달러", "300 $" (French)
_SUFFIX_CURRENCY |= {
    "€": "EUR",
    "£": "GBP",
    "英镑": "GBP",
    "港元": "HKD",
    "港币": "HKD",
    "hkd": "HKD",
    "sgd": "SGD",
    "新元": "SGD",
}
_SUFFIX_CURRENCY |= {"rubles": "RUB", "roubles": "RUB", "rub": "RUB", "₽": "RUB", "руб": "RUB"}  # "100,000 rubles"
_MULT = r"(?P<mult>百万|万|亿|千|만|억|[kK](?![a-zA-Z])|M(?![a-zA-Z])|\s?(?:million|billion|mn|bn)\b)?"
_MONEY_PREFIX = re.compile(
    rf"(?P<cur>USD\$|US\$|HK\$|S\$|A\$|USD|EUR|GBP|JPY|KRW|INR|SGD|HKD|RMB|CNY|RUB|Rs\.|\$|€|£|¥|₩|₹|₽)\s?(?P<num>{NUM})\s?{_MULT}\+?"
)
_MONEY_SUFFIX = re.compile(
    rf"(?<![\d.$¥€£₩₹])(?P<num>{NUM})\s?{_MULT}\+?\s?(?P<cur>元|块|人民币|美元|欧元|英镑|港元|港币|新元|日元|円|원|ドル|달러|RMB|CNY|USD|JPY|"
    r"KRW|INR|GBP|SGD|HKD|RUB|us dollars|dollars|EUR|euros|r(?:o)?ubles|руб|₽|€|£|\$(?!\s?\d))",
    re.IGNORECASE,
)
# "crédits Azure (50 000 $)": thousands apart by a space (NFKC makes the narrow no-break space one)
_MONEY_SPACED = re.compile(
    r"(?<![\d.,])(?P<num>\d{1,3}(?: \d{3})+)(?P<mult>)\s?(?P<cur>\$(?!\s?\d)|€|euros|EUR|USD|r(?:o)?ubles)", re.I
)
_BARE_CREDIT = re.compile(
    rf"(?P<num>{NUM})\s?{_MULT}\s?(?:元)?\s?(?:代金券|优惠券|抵用券|算力券|额度|赠金|抵扣金|试用金|试用点|体验金)"
)
_UNIT = r"(?:hours?|hr|h\b|小时|时|months?|mo\b|月|years?|yr|年|days?|天|GB|TB|核|vCPU|tokens?|次|requests?|calls?)"
# "per GPU hour", "/千 tokens", "per 1M tokens": a rate of some unit
_PER_AFTER = re.compile(rf"^\s?(?:/|per\s|每)\s?(?:(?:[A-Za-z]{{1,6}}|千|万|百万|\d+[KkM]?)[\s-]?)?{_UNIT}", re.I)
_PER_BEFORE = re.compile(r"(?:每小时|每月|每天|每日|每年|per hour|per month|hourly|monthly)[^。;；,，]{0,12}$", re.I)
_AFTER_PER = re.compile(
    r"(?:领取|可领|发放|赠送?|获得|收到)[^。;；,，]{0,4}$"
)  # "每年可领取的300元", "每月都会免费收到 USD$100": a yearly or monthly gift, not a rate
_CAP_WORDS = re.compile(r"上限|封顶|最多|最高|at most|capped|cap\b|limit", re.I)
_PRICE_BEFORE = re.compile(
    r"(?:低至|仅需|只需|仅售|售价|价格|特价|只要|首月|首年|首购|首单|(?<![\u4e00-\u9fff])按|from|as low as|starting at|for only)\s?$",
    re.I,
)
_PRICE_AFTER = re.compile(r"^\s?(?:/\s?\S{1,2}\s?)?起|^\s?(?:transaction|charge|fee)", re.I)
# "超出部分的使用费将计入 Google Cloud 300 美元试用赠金", "charged against your $300 credit": a credit had
_CHARGED_TO = re.compile(r"(?:计入|记入|charged (?:to|against)|deducted from)[^,，。.;；]{0,20}$", re.I)
_USABLE = re.compile(r"\s?(?:可用|可使用|才可使用|使用|可抵扣)")
_THRESHOLD = re.compile(r"^\s?(?:以上|以下|及以上|或以上|未満|or more|or less|and above|ou plus|oder mehr|o más)", re.I)
_GIFT_BEFORE = re.compile(
    r"(?:give you|gives you|\bgive (?:your )?(?:friends?|referrals?|them)|you(?:'ll| will) (?:get|receive)|will receive|"
    r"\bget|\bearn|\b(?:can|may) (?:receive|get|earn)|获得|可得|可获|赠送?|双方各|各得|各获)\s?(?:up to\s|a maximum of\s)?$",
    re.I,
)
_MOST_OFF = re.compile(
    r"(?:最高|最多|上限)\s?(?:减免|可减|抵扣|优惠|立减)\s?$|(?:max(?:imum)?|capped at)\s(?:discount\s)?(?:of\s)?$", re.I
)
# A bound of a rule, not a sum given: "not have received more than $350,000", "营收不超过1000万元"
_LIMIT = re.compile(
    r"(?:more|less|fewer) than\s$|\bover\s$|exceed(?:s|ing)?\s$|no more than\s$|\bat most\s$|(?<!get )(?<!receive )(?<!earn )a maximum of\s$|"
    r"不超过\s?$|超过\s?$|低于\s?$|concurrence de\s$|dans la limite de\s$|plafond de\s$|within the limit\s?\(?\s?$|"
    # a grant to be spent is one had: "the Client should spend the standard Grant of 200 000 rubles"
    r"\bspend (?:the|your) (?:\w+\s)?(?:grant|credits?) of\s$",
    re.I,
)
# "A $100 negative balance limit": a limit named after its sum
_LIMIT_AFTER = re.compile(r"\s?(?:negative balance|spending|usage|credit)?\s?(?:limit|cap|threshold)\b", re.I)
# "a free trial package worth $300-$1200", "40 products worth $300-1200 for free": a trial worth that much
TRIAL_WORTH = re.compile(
    r"trial\s(?:[\w-]+\s){0,2}worth\s\S+|worth\s[$€£¥]?[\d.,]+(?:\s?[-–]\s?[$€£¥]?[\d.,]+)?\s(?:for free|free)\b", re.I
)
_CREDIT_OF = re.compile(r"(?:crédits?|credits?|Guthaben|kredit)\b[^.;:,$€£¥\d]{0,30}\s(?:de|von|of)\s$", re.I)
_IN_CREDIT = re.compile(r"\s?(?:in|of)\s(?:[\w-]+\s){0,3}credits?\b", re.I)  # "$5 in Paperspace account credit"
_REFERENCE = re.compile(r"(?:\bthe|\byour|\bthis|\binitial|\bremaining)\s$", re.I)
_SPENT = re.compile(r"spen[dt]\s(?:all\s)?(?:of\s)?(?:your\s)?$", re.I)
# Sums a person pays, buys or must spend, and credits someone already has.
_PAID = re.compile(
    r"(?:\bbuys?|\bbought|purchased?|purchases|\bloads?|loaded|top[- ]?up|topped up|recharge|deposit|\bspends?|\bbilled|\bcosts?|minimum|\bmin\.|at least|"
    r"requires? an?)\s(?:(?:their|the|a|first|of|an?|in)\s){0,3}$|最低|至少|充值\s?$",
    re.I,
)
_HAD = re.compile(
    r"(?:if you(?:'ve)? (?:received|receive|have|got|were approved for|are approved for|earned)|approved for|"
    r"if you (?:were|have been|'ve been) (?:issued|given|granted|awarded)|"
    r"\bI(?:'ll| will)? be granted|\bI (?:was|got|am) (?:granted|given|offered|promised)|\bgives? me|\bgiven me|"
    r"you've earned|you have earned|\byou have|drops? to|falls? to|goes down to|\breceived|\bmy|(?:account|balance|wallet) (?:has|holds|includes|contains|of))\s(?:an?\s)?$",
    re.I,
)
# "免费额度 ¥300/月", "free credit of $10/month": a credit given each month, not a rate
_SECTION = re.compile(r"(?<![\d.])\d+(?:\.\d+)+\s(?!元)")
_FREE_QUOTA = re.compile(r"(?:免费额度|赠送额度|额度|free (?:credits?|quota)(?: of)?)\s?[:：]?\s?$", re.I)
# "The credit of $200 you received expires ...": a credit someone was given, said again
_HAD_AFTER = re.compile(
    r"\s?(?:(?:in\s)?credits?\s)?(?:that\s)?you(?:'ve| have)? (?:received|got|were given|were issued)\b", re.I
)
_LEFT = re.compile(r"\s?(?:of\s)?(?:remaining|left|unused)\b", re.I)  # "$25 of remaining credit"
# A credit used up is one had: "$300のクレジットを使い切った場合", "300 美元赠金用完时", "once your credit is used up"
_USED_UP = re.compile(
    r"\s?の?\s?(?:クレジット)?\s?を?\s?(?:使い切|使い果た)|"
    r"\s?的?\s?(?:赠金|额度|抵扣金|代金券|credits?)?\s?(?:已\s?)?(?:用完|用尽|耗尽|用光|消耗完)|"
    r"\s?(?:(?:of\s)?credits?\s)?(?:is|are|has been|have been)\s(?:used up|exhausted|spent)",
    re.I,
)
# "they used to give coupon codes for $10 credit": an offer no longer made
_PAST = re.compile(r"\b(?:used to|no longer|formerly|previously)\b[^.;!?]*$", re.I)
# "giving you credits from $1000 to $100000": a range of credits, not a price "from" a sum
_CREDITS_FROM = re.compile(r"(?:credits?|grants?|vouchers?|coupons?)\s(?:\w+\s)?from\s?$", re.I)
_GOODS_WORTH = re.compile(r"价值\s?$")
_GOODS = re.compile(r"[A-Za-z\u4e00-\u9fff]")  # a thing named right after the sum
_TRIAL_AFTER = re.compile(r"\s?分?の?\s?(?:無料トライアル|free trial)", re.I)  # "300 ドルの無料トライアル"
# A sum worked out, not given: "补贴金额为2元（2 * 1）", "= 1800元", "计算如下" (issue 39, noise)
_ARITHMETIC_AFTER = re.compile(r"^\s?(?:[（(]\s?[\d.,\s]+[-+*×xX/÷][\d.,\s%*+×xX/÷-]*[)）]|=|＝)")
# What is paid back or paid for a loss, or earned by a seller or host, is no offer: a refund, a
# compensation for an outage, a payout, a penalty ("Refunds of up to $500", "将补偿 100 元代金券",
# "a refund credit of $5", "earnings reach $50")
_PAYBACK = re.compile(
    r"退款|退还|退费|补偿|赔偿|赔付|提现|收益|分成|罚款|违约金|滞纳金|refund\w*|compensat\w*|reimburs\w*|"
    r"payouts?|paid out|earnings|penalt(?:y|ies)|late fees?",
    re.I,
)
_UP_TO = re.compile(r"(?:up to|最高|最多|高达|至多|至高|最大|최대)\s?(?:可得|可获|领取|享)?\s?(?:价值)?\s?$", re.I)


@dataclass(frozen=True)
class Money:
    start: int
    end: int
    value: Decimal
    currency: str
    role: str  # amount, spent, paid, limit, price, rate, cap, reference, example
    per: str | None = None
    low: Decimal | None = None  # the low end of a range or of alternatives ("$5-$25", "$3 or $8")


def _role(text: str, start: int, end: int) -> tuple[str, str | None]:
    before, after = text[max(0, start - 24) : start], text[end : end + 14]
    if EXAMPLE.search(before[-8:]) or _ARITHMETIC_AFTER.match(after) or _worked_out(text, start):
        return "example", None
    if _PAYBACK.search(_clause_before(text, start)):
        return "payback", None
    if _PAST.search(text, max(0, start - 80), start):
        return "reference", None
    per = _PER_AFTER.match(after) or _PER_BEFORE.search(before)
    if per and not _AFTER_PER.search(before) and not _FREE_QUOTA.search(before[-10:]):
        unit = next((name for name, p in _RATE_UNITS if p.search(per.group(0))), None)
        return ("cap" if _CAP_WORDS.search(before[-14:]) else "rate"), unit
    if (
        _PRICE_AFTER.match(after) or _PRICE_BEFORE.search(before[-8:]) or _THRESHOLD.match(after)
    ) and not _CREDITS_FROM.search(before):
        return "price", None
    rest = after.lstrip(" 的")
    if (
        _GOODS_WORTH.search(before[-6:])
        and _GOODS.match(rest)
        and not (CREDIT_WORDS.match(rest) or VOUCHER_WORDS.match(rest))
    ):
        return "price", None  # "最高送价值 8000 元 IPad": what a prize of goods is worth
    if before.endswith("满") and _USABLE.match(after):
        return "limit", None  # "满¥100可用": what an order must reach for a voucher to be used
    if (
        _REFERENCE.search(before[-12:])
        or _HAD.search(before)
        or _CHARGED_TO.search(before)
        or _LEFT.match(after)
        or _HAD_AFTER.match(text, end)
        or _USED_UP.match(after)
    ):
        return "reference", None
    if _SPENT.search(before[-24:]):
        return "spent", None
    if _PAID.search(before):
        return "paid", None
    if _MOST_OFF.search(before[-10:]):
        return "cap", "order"  # "享7.5折，单笔最高减免12500元": the most a discount takes off
    if _LIMIT.search(text[max(0, start - 40) : start]) or _LIMIT_AFTER.match(text, end):
        return "limit", None
    return "amount", None


def _clause_before(text: str, start: int) -> str:
    """The words of the clause before `start` (back to a stop, a semicolon or a comma)."""
    cut = max(text.rfind(c, 0, start) for c in ".!?。！？;；,，:：")
    return text[cut + 1 : start]


def _worked_out(text: str, start: int) -> bool:
    """Whether the sentence around `start` works a sum out ("计算如下", "= 退款金额")."""
    cut = max(text.rfind(c, 0, start) for c in ".!?。！？;；")
    ends = [i for i in (text.find(c, start) for c in ".!?。！？;；") if i >= 0]
    return bool(CALCULATION.search(text[cut + 1 : min(ends) if ends else len(text)]))


def moneys(text: str, default_currency: str | None = None) -> list[Money]:
    """Every sum of money in `text` with its role; zero sums are left out ("0元试用" says free)."""
    found: list[Money] = []
    taken: list[tuple[int, int]] = []
    patterns = [(_MONEY_SPACED, _SUFFIX_CURRENCY), (_MONEY_PREFIX, _PREFIX_CURRENCY), (_MONEY_SUFFIX, _SUFFIX_CURRENCY)]
    if default_currency:
        patterns.append((_BARE_CREDIT, {}))
    for pattern, table in patterns:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            value = decimal_of(m.group("num").replace(" ", ""), m.group("mult"))
            if not value or (not table and _SECTION.match(text, m.start())):
                continue  # "1.1 代金券的来源" is a heading's number
            currency = table[m.group("cur").lower()] if table else default_currency
            if table and m.group("cur") == "¥" and default_currency == "JPY":
                currency = "JPY"  # ¥ is the yen on a Japanese page
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
        high = bare_high(text, m.end) if m.low is None else None
        if high and high[1] > m.value:
            role, per = _role(text, m.start, high[0])
            m = Money(m.start, high[0], high[1], m.currency, role, per, low=m.value)
        out.append(m)
    return _listed(text, out)


_LIST_SEP = re.compile(r"\s?[、,，/]\s?")
_VARIES = re.compile(r"\s?(?:不等|等不同|等面额)")


def _listed(text: str, found: list[Money]) -> list[Money]:
    """ "面额分别为50元、100元、200元、500元不等": sums listed as the ones
    an offer comes in, one offer worth up to the highest."""
    out: list[Money] = []
    run: list[Money] = []
    for m in [*found, None]:
        if (
            m is not None
            and run
            and m.currency == run[-1].currency
            and _LIST_SEP.fullmatch(text[run[-1].end : m.start])
        ):
            run.append(m)
            continue
        if len(run) >= 2 and _VARIES.match(text, run[-1].end):
            values = [r.value for r in run]
            out.append(replace(run[0], end=run[-1].end, value=max(values), low=min(values)))
        else:
            out.extend(run)
        run = [m] if m is not None else []
    return out


# "The $5,000 Founders tier", "$1,000 for Builders", "a $1,000 credit package":
# the sums of a startup program's tiers
_TIER_NEAR = re.compile(r"\b(?:tiers?|packages?|awards?|grants?|ceiling)\b", re.I)
_FOR_PARTY = re.compile(r"\s?for\s(?:eligible\s)?(?:[\w-]+\s){0,3}?(?:startups?|founders|builders)\b", re.I)


def _program_tier(text: str, m: Money) -> bool:
    if not STARTUP_WORDS.search(text):
        return False
    return bool(_FOR_PARTY.match(text, m.end) or _TIER_NEAR.search(text, m.end, m.end + 20))


def _credit_sentence(text: str, at: int) -> bool:
    """Whether the sentence around `at` names a credit or voucher."""
    start = max(text.rfind(c, 0, at) for c in ".!?。！？;；") + 1
    ends = [i for i in (text.find(c, at) for c in ".!?。！？;；") if i >= 0]
    sentence = text[start : min(ends) if ends else len(text)]
    return bool(CREDIT_WORDS.search(sentence) or VOUCHER_WORDS.search(sentence))


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
                near(CREDIT_WORDS, text, m.start, m.end)
                or near(VOUCHER_WORDS, text, m.start, m.end)
                or _IN_CREDIT.match(text, m.end)
                or _TRIAL_AFTER.match(text, m.end)
                or _CREDIT_OF.search(text, max(0, m.start - 48), m.start)
                or any(w.start() <= m.start < w.end() for w in TRIAL_WORTH.finditer(text))
                or _GIFT_BEFORE.search(text[max(0, m.start - 24) : m.start])
                or (_UP_TO.search(text[max(0, m.start - 12) : m.start]) and _credit_sentence(text, m.start))
                or _program_tier(text, m)
            )
        )
        or (m.role == "spent" and TRIAL_WORDS.search(text))
    ]
    if len({(m.value, m.currency) for m in pool}) == 1:
        return pool[0]
    capped = [m for m in pool if _UP_TO.search(text[max(0, m.start - 12) : m.start])]
    if len({(m.value, m.currency) for m in capped}) == 1:
        return capped[0]
    # "사업화 자금 최대 3억원 ... AWS는 최대 5만달러의 클라우드 크레딧": of the sums said "up to" in a
    # credit's sentence, the one beside the credit word
    beside = [
        m for m in capped if near(CREDIT_WORDS, text, m.start, m.end) or near(VOUCHER_WORDS, text, m.start, m.end)
    ]
    return beside[0] if len({(m.value, m.currency) for m in beside}) == 1 else None


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
