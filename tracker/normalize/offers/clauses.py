"""The notations of promotion text that span more than one number or one
sentence (issue 39), in English and Chinese:

- ranges and alternatives of money: "$200-$900", "between $5 and $500",
  "$1,000 to $5,000", "$3 or $8", "10 元 ~ 80 元", "200~400 元" (one amount,
  worth up to the high end, with its low end), and of 折: "6折至3.8折";
- "$X off $Y", "$X off orders over $Y", "$5 OFF $15" (a voucher with its
  minimum spend, as 满15减5);
- the clauses of a block, so that a block stating two offers (a credit and an
  extra one on a later step, what the referred friend gets and what the
  referrer earns) gives both;
- questions and example headings, which are context, not offers;
- the two parties of a referral program;
- conditions that are not a validity: a window to claim ("within 180 days of
  registration"), an account's age ("2周岁用户", "less than 90 days old"), a
  company's age ("founded within the last 5 years"), an order's length
  ("续费时长为1年").
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from decimal import Decimal

from db.kinds import Eligibility
from tracker.normalize.numbers import NUM, decimal_of, tidy
from tracker.normalize.offers.words import CALCULATION

_JOIN = r"\s?(?:-|–|—|~|〜|～|至|到|to|and|or|或者|或)\s?"
_BETWEEN = re.compile(r"(?:between|from|anywhere between)\s$|(?:介于|从)\s?$", re.I)
_BARE_BEFORE = re.compile(rf"(?P<num>{NUM})\s?(?:-|–|—|~|〜|～|至|到)\s?$")


def joined(text: str, end: int, start: int) -> bool:
    """Whether the words between two sums join them as a range or alternatives."""
    return re.fullmatch(_JOIN, text[end:start], re.I) is not None


def bare_low(text: str, start: int) -> tuple[int, Decimal] | None:
    """A number without a currency just before a sum, joined to it ("200~400
    元"): its start and value."""
    m = _BARE_BEFORE.search(text[max(0, start - 16) : start])
    if not m:
        return None
    value = decimal_of(m.group("num"))
    return (start - len(m.group(0)), value) if value else None


_BARE_AFTER = re.compile(
    rf"\s?(?:-|–|—|~|〜|～|to)\s?(?P<num>{NUM})(?![\d.,]|\s?(?:%|元|[kKmM]\b|GB|hours?|hrs?\b|小时|/))"
)


def bare_high(text: str, end: int) -> tuple[int, Decimal] | None:
    """A number without a currency just after a sum, joined to it ("$300-1200"):
    its end and value."""
    m = _BARE_AFTER.match(text, end)
    if not m:
        return None
    value = decimal_of(m.group("num"))
    return (m.end(), value) if value else None


_ZHE_RANGE = re.compile(r"(?P<a>\d+(?:\.\d+)?)\s?折\s?(?:-|–|~|〜|～|至|到)\s?(?P<b>\d+(?:\.\d+)?)\s?折")


def _paid(raw: str) -> Decimal:
    paid = Decimal(raw)
    return paid / 10 if 10 <= paid < 100 and paid == paid.to_integral_value() else paid


# "2年7折、3年5折", "1年5折，2年4.5折": one discount, deeper for a longer term
_TERM_ZHE = re.compile(r"(?:\d|[一两二三四五])\s?年(?:付|期)?\s?(?P<z>\d+(?:\.\d+)?)\s?折")
_TERM_ZHE_JOIN = re.compile(r"\s?(?:[、,，和及与]|以及)\s?")


def _term_ladder(text: str) -> tuple[Decimal, Decimal] | None:
    found = list(_TERM_ZHE.finditer(text))
    ladder = [found[0]] if found else []
    for a, b in itertools.pairwise(found):
        if _TERM_ZHE_JOIN.fullmatch(text[a.end() : b.start()]):
            ladder.append(b)
        elif len(ladder) < 2:
            ladder = [b]
    if len(ladder) < 2:
        return None
    values = sorted(tidy(Decimal(100) - _paid(m.group("z")) * 10) for m in ladder)
    return (values[0], values[-1]) if 0 < values[0] < values[-1] < 100 else None


def percent_range(text: str) -> tuple[Decimal, Decimal] | None:
    """A range of 折 ("6折至3.8折", "2年7折、3年5折"): the low and high
    percentage off."""
    m = _ZHE_RANGE.search(text)
    if not m:
        return _term_ladder(text)
    values = sorted(Decimal(100) - _paid(m.group(g)) * 10 for g in ("a", "b"))
    if not all(0 < v < 100 for v in values) or values[0] == values[1]:
        return None
    return values[0], values[1]


@dataclass(frozen=True)
class OffTier:
    """ "$5 OFF $15", "$10 off orders over $50": an amount off a minimum spend."""

    amount: Decimal
    min_spend: Decimal
    currency: str


def _money(n: int) -> str:
    return rf"(?P<c{n}>US\$|\$|€|£|¥|₹|USD\s?|EUR\s?)(?P<n{n}>{NUM})"


_OFF = re.compile(
    _money(1)
    + r"\s?off\s?(?:(?:your\s)?(?:orders?|purchases?|spend(?:ing)?|bills?)\s)?(?:(?:of|over|above|from)\s)?"
    + _money(2),
    re.I,
)
_SIGNS = {"$": "USD", "us$": "USD", "usd": "USD", "€": "EUR", "eur": "EUR", "£": "GBP", "¥": "CNY", "₹": "INR"}


def off_tiers(text: str) -> list[OffTier]:
    found = []
    for m in _OFF.finditer(text):
        amount, low = decimal_of(m.group("n1")), decimal_of(m.group("n2"))
        if amount and low and amount < low:
            found.append(OffTier(amount, low, _SIGNS[m.group("c1").strip().lower()]))
    return found


# --- clauses, questions, examples --------------------------------------------

_CLAUSE = re.compile(
    r"(?<=[.!?])\s+(?=[A-Z\"'(])|(?<=[。!?;；])|(?<=[^\d\s]),|、|\s\+\s|(?<=\))\s?と(?=\s?\d)|"
    r"\s(?=(?:and|plus)\s(?:up to\s)?(?:an? (?:extra|additional)\s)?[$€£¥₹]\d)|\s(?=and\s(?:you\s)?(?:get|earn|receive)\s)|\s(?=and\san?\s[^.,;$]{0,40}?[$€£¥₹]\d)|\s(?=(?:老用户|新用户)[^,。;]{0,4}(?:开通|获得|可))"
)


_WHOLE_SENTENCE = re.compile(r"(?:[^.!?。！？;；]|(?<=\d)\.(?=\d))*(?:[.!?。！？;；]|$)")  # "4.5折" is one number


def _clause_split(text: str) -> list[str]:
    """The text cut at its clauses; a sentence that works a sum out stays whole
    ("总的补贴金额为7元，补贴金额计算如下"): its sums are the calculation's."""
    out: list[str] = []
    for sentence in _WHOLE_SENTENCE.findall(text):
        out.extend([sentence] if CALCULATION.search(sentence) else _CLAUSE.split(sentence))
    return out


def clauses(text: str) -> list[str]:
    """The clauses of a block: sentences, and the parts of a sentence that
    commas, enumeration commas and "と" keep apart."""
    out: list[str] = []
    for part in (c.strip() for c in _clause_split(text) if c and c.strip()):
        if out and part.startswith("and ") and re.search(r"between\s\S+$", out[-1], re.I):
            out[-1] = f"{out[-1]} {part}"  # "between $5 and $500" is one range
        else:
            out.append(part)
    return out


_QUESTION_START = re.compile(
    r"^\s*(?:Q\s?[:.：]|问\s?[:：]|問\s?[:：︰]|how\b|what\b|when\b|why\b|where\b|which\b|who\b|can\b|do\b|does\b|is\b|are\b|"
    r"will\b|should\b|I\b[^.?]*\?)",
    re.I,
)


def is_question(title: str) -> bool:
    """A heading that asks (an FAQ's question): its amounts are context."""
    title = title.strip()
    return bool(title) and (title.endswith(("?", "？")) or bool(_QUESTION_START.match(title) and "?" in title))


def is_example(title: str) -> bool:
    return bool(
        re.match(r"\s*(?:examples?\b|for example|例如|示例|举例|比如)", title, re.I) or re.search(r"举例|示例", title)
    )


_SENTENCE = re.compile(r"[^.!?。！？]*[?？]")


# A sentence that gives an example: "For example, if a voucher is worth 100 CNY ...",
# "比如你有张满500减100的券", "举例:用户于...", "e.g., 1 core for 1 hour costs 0.6 credits".
_EXAMPLE_SENTENCE = re.compile(
    r"(?:^|(?<=[.!?。！？;；:：]))\s*(?:for example|for instance|e\.g\.|例如|比如|譬如|举例|举个例子)[^.!?。！？]*[.!?。！？]?|"
    r"(?<=\s)(?:举例|举个例子|例)\s?\d{0,2}\s?[:：][^。！？!?]*[。！？!?]?|"
    r"[;；,，]\s*(?:e\.g\.|例如|比如|譬如)[^.!?。！？]*[.!?。！？]?",
    re.I,
)


def drop_questions(text: str) -> str:
    """The text without its questions ("How many times can I get the $25
    credit?")."""
    return _SENTENCE.sub(" ", text).strip()


def drop_examples(text: str) -> str:
    """The text without its examples ("For example, if a voucher is worth 100
    CNY and 30 CNY is used ...", "举例:用户于...")."""
    return _EXAMPLE_SENTENCE.sub(" ", text).strip()


# --- referral programs -----------------------------------------------------------

REFERRAL = re.compile(
    r"\brefer(?:s|red|ral|rals|rer|rers)?\b|\binvit|\b(?:every|your|a) friends?\b|好友|邀请|推荐|受邀|邀新|拉新|云推官|老带新|拉取?[^。;；,，]{0,3}新用户|双方各(?!自)",
    re.I,
)
REFERRAL_PROGRAM = re.compile(
    r"referral (?:program|link|code|bonus|reward|credit)s?|refer (?:a|your) friends?|invite (?:your )?friends|"
    r"\byou refer\b|邀请好友|邀请码|推荐有礼|老带新|拉新|邀新|云推官|邀请人|受邀|被邀请",
    re.I,
)
_REFERRED = re.compile(
    r"(?:anyone|someone|friends?|people|users?|person|customers?)\s(?:who\s|that\s)?you\srefer\b|"
    r"referred\s(?:users?|accounts?|friends?|customers?)\b|\byour\s(?:friends?|referrals?)\s(?:gets?|receives?|will)|"
    r"\bfriends?\sgets?\b|referrals? of yours|\binvitees?\b|通过(?:我的|您的)?邀请链接|\bthey(?:\sw?ill)?\s(?:get|receive)\b|\bgive\s(?:your\s)?friends?\b|\byou\s(?:send|gift)\b|new users? (?:who|that) (?:sign|use)|被邀请|受邀|被推荐|通过邀请码|接受邀请|新用户[^,。;]{0,16}(?:邀请|推荐)",
    re.I,
)
_REFERRER = re.compile(
    r"\breferrers?\b|\binviters?\b|\byourself\b|^earn\b|\bearn\s[$€£¥₹]|\bwe(?:'ll|\swill)?\sgive\syou\b|\byou(?:'ll|\swill)?\s(?:also\s)?(?:receive|get|earn)\b|\byou\searn\b|"
    r"\byou (?:can|could|may) (?:receive|get|earn)\b|\b(?:if|when|once|after) your (?:friend|referral)s?(?:'s)?\b|"
    r"邀请人|推荐人|老用户获得|邀请\s?\d+\s?人|云推官|每(?:邀请|拉取?|推荐)\s?(?:一|1)?\s?(?:个|位|名)?\s?新?(?:用户|好友)",
    re.I,
)
_BOTH = re.compile(r"both (?:of you|you and (?:your|the person)|the referrer and)|双方", re.I)
_YOU_REFERRED = re.compile(
    r"\byou\s(?:sign(?:ed)?[- ]?up|register(?:ed)?|join(?:ed)?)\s(?:via|with|using|through)\s(?:an?\s|the\s|a friend's\s)?referral",
    re.I,
)


def referral_roles(clause: str, at: int | None = None) -> list[Eligibility]:
    """Who of a referral program's parties a clause's offer is for: the
    referred friend, the referrer, both, or neither said."""
    if _BOTH.search(clause):
        return [Eligibility.referred, Eligibility.referrers]
    if _YOU_REFERRED.search(clause):
        return [Eligibility.referred]
    found = []
    for who, pattern in ((Eligibility.referred, _REFERRED), (Eligibility.referrers, _REFERRER)):
        m = pattern.search(clause)
        if m:
            found.append((m.start(), who))
    if not found:
        return []
    if len(found) == 2 and at is not None:
        before = [f for f in found if f[0] < at]
        return [max(before)[1]] if before else [min(found)[1]]
    return [min(found)[1]]


# --- conditions that are not a validity -----------------------------------------

_CONDITIONS = (
    (
        "claim_window",
        re.compile(
            r"within (?:the first )?\d+\s?(?:days?|months?) (?:of|after|from) (?:registration|sign(?:ing)?[- ]?up|"
            r"account creation|accepting|joining)|"
            r"(?:claim(?:ed)?|redeem(?:ed)?|appl(?:y|ied)|request(?:ed)?)\b[^.;]{0,30}\b(?:in|within) the first \d+\s?days|注册(?:后|之日起)\s?\d+\s?(?:天|日|个月)内|"
            r"(?:领取|激活)(?:期限|时间)为?\s?\d+\s?天",
            re.I,
        ),
    ),
    ("account_age", re.compile(r"\d+\s?周岁|accounts? (?:\w+ ){0,3}\d+\s?(?:days?|years?) old|注册满\s?\d+", re.I)),
    (
        "company_age",
        re.compile(
            r"founded within the last \d+|设立\s?(?:未满|不超过)?\s?\d+\s?年|成立\s?(?:未满|不超过|\d+\s?年内)|設立から",
            re.I,
        ),
    ),
    ("order_length", re.compile(r"续费时长为?|订单时长|购买时长|order length", re.I)),
    (
        "inactivity",
        re.compile(
            r"inactiv\w*[^.;。]{0,24}?\d+\s?(?:days?|months?)|\d+\s?(?:days?|months?) of inactivity|连续\s?\d+\s?天未|闲置",
            re.I,
        ),
    ),
)


# "a $200 credit to use within the first 30 days after sign-up": a time to use
# the credit in, its validity, not a window to claim it.
_USE_BEFORE = re.compile(r"\b(?:use|used|spend|spent|consume[d]?)\b[^.;。]{0,12}$", re.I)


def _stated(text: str) -> list[tuple[str, tuple[int, int]]]:
    found = []
    for name, pattern in _CONDITIONS:
        for m in pattern.finditer(text):
            if name == "claim_window" and _USE_BEFORE.search(text, max(0, m.start() - 24), m.start()):
                continue
            found.append((name, m.span()))
    return found


def conditions(text: str) -> list[str]:
    """The conditions a text states that are not a validity, by name."""
    return list(dict.fromkeys(name for name, _ in _stated(text)))


def condition_spans(text: str) -> list[tuple[int, int]]:
    """Where the text states such a condition: a length inside one is not a validity."""
    return [span for _, span in _stated(text)]
