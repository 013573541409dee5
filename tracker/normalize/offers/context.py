"""The page a block sits on (issue 39): its title, the heading the block sits
under, and the page's address. A block is read alone, but a startup
program's tier row ("Credits: $1,000; Duration: 12 months") is a startup
credit because its page is about startup programs, and a referral page's
"$10 Cloud Credit" is the referred friend's because its heading says so.

One derivation, `contexts(blocks, address)`, serves the live pages and the
offer corpus alike: the spider's raw fields `page` (the page's h1, else its
<title>) and `section` (the nearest heading above the block: h1 > h2 > h3,
the table's heading for a row) and `headings` (the trail of headings
above it) win where a spider gave them; a page without
them (a JSON page, a block of the corpus) takes its first block's title as
its title, and as a block's section the nearest heading-like block before it
(a short title without words of its own, or for a block without a title,
the last titled block).

What the context may change, and only where the block itself says nothing
(`in_context`): the party (startups, students, the referred friend or the
referrer: a heading or the page says who), the kind (a credit of a startup
program is a startup credit, a bare sum under a heading of vouchers a
voucher), and whether a block is an offer: a share under a referral
program's heading without a discount word is the referrer's commission, no
offer; a list item saying only a share under a heading of discounts or a
loyalty program is a discount (`listed_share`). An FAQ answer is read under
its question (roles.read_offers). Context never turns a price, a rule or a
question into an offer: it relabels what the block states, and the one offer
it reads (`listed_share`) needs a discount heading and a bare share.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from db.kinds import Eligibility, OfferKind
from tracker.normalize.offers.clauses import REFERRAL as REFERRAL_WORDS
from tracker.normalize.offers.clauses import REFERRAL_PROGRAM
from tracker.normalize.offers.text import OfferTerms
from tracker.normalize.offers.words import CREDIT_WORDS, VOUCHER_WORDS, eligibility, normal

STARTUPS, REFERRAL = "startups", "referral"


@dataclass(frozen=True)
class Context:
    """Where a block sits: its page's title, the heading above it, the
    page's address, and what the page is about (`topics`)."""

    page: str = ""
    section: str = ""
    address: str = ""
    topics: frozenset[str] = frozenset()
    trail: tuple[str, ...] = ()  # the headings above the block, outermost first (the section last)


_HEADING_MAX = 80  # a heading is short
# Startup programs by name: not "Activate your account", not a GPU's "accelerators".
STARTUP_PROGRAM = re.compile(
    r"[Ss]tartups?\b|[Ss]tart-ups?\b|STARTUPS?\b|AWS Activate|Activate (?:Founders|Portfolio|credits?)|\bVCs?\b|"
    r"\b[Vv]enture|accelerator program|startup accelerators?|[Ii]ncubators?\b|加速器|初创|创业|云创|孵化|"
    r"[Ff]ounders?\b|スタートアップ|新創|스타트업|창업|jeunes pousses"
)
# What a page is about, by its address, its title, or enough of its blocks' titles.
_TOPICS = (
    (
        STARTUPS,
        re.compile(r"startups?|start-ups?|aws\.amazon\.com/(?:[a-z-]+/)?activate\b|founders|/inception\b", re.I),
        STARTUP_PROGRAM,
        3,
    ),
    (
        REFERRAL,
        re.compile(
            r"referrals?|\brefer(?:-a-friend)?\b|invite[-_]?(?:a[-_])?friends?|/invit(?:e|ation)(?:[/?#]|$)", re.I
        ),
        REFERRAL_PROGRAM,
        2,
    ),
)


def _heading(block: Mapping[str, Any]) -> str:
    title = str(block.get("title") or "").strip()
    return title if title and not str(block.get("text") or "").strip() and len(title) <= _HEADING_MAX else ""


def _trail(block: Mapping[str, Any]) -> tuple[str, ...]:
    headings = block.get("headings") or ([block["section"]] if block.get("section") else [])
    return tuple(normal(str(h)) for h in headings)


def topics(page: str, titles: Sequence[str], address: str = "") -> frozenset[str]:
    """What a page is about: startup programs, a referral program."""
    found = set()
    for topic, in_address, words, enough in _TOPICS:
        if in_address.search(address) or words.search(page) or sum(1 for t in titles if words.search(t)) >= enough:
            found.add(topic)
    return frozenset(found)


def contexts(blocks: Sequence[Mapping[str, Any]], address: str = "") -> list[Context]:
    """Each block's context, the blocks being one page's in page order."""
    titles = [normal(str(b.get("title") or "")) for b in blocks]
    if any("page" in b or "section" in b or "headings" in b for b in blocks):  # a spider read the headings
        pages = [normal(str(b.get("page") or "")) for b in blocks]
        about = topics(next((p for p in pages if p), ""), titles, address)
        return [
            Context(page, normal(str(b.get("section") or "")), address, about, _trail(b))
            for b, page in zip(blocks, pages, strict=True)
        ]
    page = titles[0] if titles else ""
    about = topics(page, titles, address)
    out = []
    heading, titled = "", ""
    for block in blocks:
        title = str(block.get("title") or "").strip()
        section = normal(heading if title else titled or heading)
        out.append(Context(page, section, address, about, (section,) if section else ()))
        if title:
            titled = title
            heading = _heading(block) or heading
    return out


# Who a referral page's section speaks of ("What your friend gets", "邀请人奖励").
_REFERRAL_SECTION = (
    (
        Eligibility.referred,
        re.compile(
            r"(?:friends?|referrals?|invitees?) (?:gets?|receives?|will (?:get|receive))|for (?:your |the )?(?:friends?|invitees?)|"
            r"被邀请|受邀|好友(?:可)?(?:获得|得|奖励|福利)",
            re.I,
        ),
    ),
    (
        Eligibility.referrers,
        re.compile(
            r"\byou (?:get|earn|receive)\b|your (?:rewards?|earnings|commission)|for referrers|"
            r"邀请人|推荐人|(?:你|您)(?:可)?(?:获得|得|赚)",
            re.I,
        ),
    ),
)


def _party(context: Context) -> Eligibility | None:
    """Who the context names: a referral page's section its party, a section
    naming startups or students them; else a startup program's page its
    startups, and a referral page the friend who signs up (the referrer's
    reward is said as such: "you earn", "邀请人")."""
    if REFERRAL in context.topics or REFERRAL_WORDS.search(context.section):
        for who, pattern in _REFERRAL_SECTION:
            if pattern.search(context.section):
                return who
    if any(STARTUP_PROGRAM.search(h) for h in (context.section, *context.trail)):
        return Eligibility.startups  # a heading above the block names a startup program
    if eligibility(context.section) == Eligibility.students:
        return Eligibility.students
    if STARTUPS in context.topics:
        return Eligibility.startups
    if REFERRAL in context.topics:
        return Eligibility.referred
    return None


def in_context(offers: list[OfferTerms], block: str, context: Context | None) -> list[OfferTerms]:
    """The block's offers with what its context says and it does not: the
    party; for a startup program's credit, its kind; under a heading of
    vouchers ("充值返券"), a sum the block gives without a word of its own
    ("充值 500 返 60") is a voucher."""
    if context is None or not offers:
        return offers
    who = _party(context) if eligibility(block) is None else None
    voucher = _voucher_section(context.section) and not (CREDIT_WORDS.search(block) or VOUCHER_WORDS.search(block))
    # under a referral program's heading, a share said without a discount word is the referrer's commission
    commission = REFERRAL_WORDS.search(context.section) is not None and not _DISCOUNT_WORDS.search(block)
    out = []
    for terms in offers:
        if commission and terms.percent_off is not None and terms.amount is None:
            continue
        kind = terms.kind
        if voucher and kind == OfferKind.free_credit:
            kind = OfferKind.voucher
        if who is not None and terms.eligibility in (None, Eligibility.all):
            if who == Eligibility.startups and kind == OfferKind.free_credit:
                kind = OfferKind.startup_credit
            terms = replace(terms, eligibility=who)
        out.append(replace(terms, kind=kind) if kind != terms.kind else terms)
    return out


def _voucher_section(section: str) -> bool:
    return (
        bool(section)
        and bool(VOUCHER_WORDS.search(section) or _RETURNED_VOUCHERS.search(section))
        and not CREDIT_WORDS.search(section)
    )


_DISCOUNT_WORDS = re.compile(
    r"\boff\b|discount|\bsave|savings|rabatt|réduction|折|优惠|特惠|减|coupon|voucher|券|割引|オフ|할인", re.I
)
_RETURNED_VOUCHERS = re.compile(r"送券|领券")


# A heading of discounts or a loyalty program (not of credits, SLAs or commissions).
_DISCOUNT_HEADING = re.compile(r"discounts?\b|loyalty|rabatt|réductions?|折扣|优惠|割引", re.I)
_NOT_DISCOUNT_HEADING = re.compile(
    r"credits?\b|SLA|service level|commission|affiliate|referr|返佣|佣金|赔偿|补偿", re.I
)
# A list item saying a label and a share only: "2 years - 2%,", "3 年：5%"
_LISTED_SHARE = re.compile(r"^[^%\d]{0,20}?\d{0,3}\s?[^%\d]{0,12}?[-–:：]\s?(?P<p>\d{1,2}(?:\.\d+)?)\s?%\s?[.,;，；]?$")


def listed_share(block: str, context: Context) -> list[OfferTerms]:
    """A list item that says only a share ("2 years - 2%,") under a heading of
    discounts or a loyalty program: a discount of that share. Anywhere else
    a bare percentage is no offer."""
    m = _LISTED_SHARE.match(block.strip())
    section = context.section
    if not m or not _DISCOUNT_HEADING.search(section) or _NOT_DISCOUNT_HEADING.search(section):
        return []
    return [OfferTerms(kind=OfferKind.discount, percent_off=Decimal(m.group("p")))]
