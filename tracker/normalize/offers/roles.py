"""A block read clause by clause (issue 39): a block that states two offers
gives both, each with its own terms and its own party.

`read_clauses` reads the block as a whole (`reader.read_block`), and
where that is not the whole story, clause by clause:

- a referral program's block: what the referred friend gets and what the
  referrer earns are two offers ("anyone you refer ... will receive $10 ...
  we'll give you $25 ..."), and "both of you get ..." is one for each;
- a block whose sums or percentages are several and different, each in its
  own clause ("年付享85折,3年期最高可获4.5折优惠", "1,000 USD 分 ... と 350
  USD 分 ...").

A heading that asks a question, questions inside the text, and headings of
examples are context: their amounts are never offers.
"""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

from db.kinds import Eligibility, OfferKind
from tracker.normalize.offers.clauses import (
    REFERRAL,
    REFERRAL_PROGRAM,
    clauses,
    drop_examples,
    drop_questions,
    is_example,
    is_question,
    referral_roles,
)
from tracker.normalize.offers.context import Context, in_context, listed_share
from tracker.normalize.offers.money import moneys
from tracker.normalize.offers.reader import Reading, read_block
from tracker.normalize.offers.text import OfferTerms
from tracker.normalize.offers.words import FREE_SERVICES, SPOT_WORDS, STARTUP_WORDS, eligibility, normal, renewal

_LIMITS = re.compile(r"限制")
_RETIRED = re.compile(
    r"(?:what you get|you get|offer|benefits?)\s?:?\s?none(?: currently)?\b|\bno longer (?:available|offered)\b|"
    r"\b(?:has|have) been discontinued\b|活动已(?:结束|下线)|已停止(?:发放|提供)",
    re.I,
)
_STORY = re.compile(
    r"\s*(?:a few|some|several|two|three|\d+) (?:years|months|weeks) (?:back|ago),? (?:I|we)\b|\s*(?:last year|back in \d{4}),? (?:I|we)\b",
    re.I,
)
_TOTAL = re.compile(r"\s*(?:total|grand total|sum|合计|总计|小计)\s*[:：]?\s*$", re.I)
_EXISTING = re.compile(r"老用户|老客户|existing (?:customers|users)", re.I)
_CONTRAST = re.compile(r"(?:while|whereas)\b", re.I)
# "$100 USD for faculty members and $50 for students": teachers are no students (an offer for all)
_FACULTY = re.compile(r"\bfaculty\b|\bteachers?\b|\beducators?\b|\binstructors?\b|教师|老师|教职工", re.I)
_COMMITMENT = re.compile(r"reserved|commit|savings plans?|prepa(?:y|id)|预留|包年|承诺", re.I)


def read_clauses(text: str, title: str, default_currency: str | None) -> Reading:
    if title and is_example(title):
        return Reading(why_not="an example")
    body = text if title and is_question(title) else " ".join(p for p in (title, text) if p)
    if _RETIRED.search(text):
        return Reading(why_not="no longer offered")  # "What You Get: None currently — GCP merged these into ..."
    if _STORY.match(text):
        return Reading(why_not="a story")  # "A few years back I was helping a startup cut their bill ... 80% cheaper"
    if title and _TOTAL.match(title):
        return Reading(why_not="a total")  # a table's "Total" row sums the offers above it
    if title and _LIMITS.search(title):
        return Reading(why_not="a rule")  # "4、抢券数量限制", "使用限制": what limits an offer stated elsewhere
    body = drop_examples(body)
    if not body:
        return Reading(why_not="an example")
    body = drop_questions(body) or ("" if title and is_question(title) else body)
    if not body:
        return Reading(why_not="a question")
    whole = read_block(body, default_currency)
    parts = clauses(body)
    referral = is_referral(body)
    if len(parts) < 2 and not referral:
        return whole
    found = _by_clause(body, parts, whole, referral, default_currency)
    if referral and not found and whole.offers:
        # the block's offers, for the party it names ("邀请人 ... 可获得一张 3 天会员卡")
        roles = referral_roles(body, _first_amount(body, default_currency))
        found = [replace(t, eligibility=r) for t in whole.offers for r in roles]
    # a range's ends are not offers of their own; a range and another offer are two
    ranged = {
        v
        for t in whole.offers
        if t.amount_low is not None or t.percent_off_low is not None
        for v in (t.amount, t.amount_low, t.percent_off, t.percent_off_low)
        if v is not None
    }
    ends = bool(ranged) and all(t.amount in ranged or t.percent_off in ranged for t in found)
    more = len(found) > len(whole.offers) and not ends
    if more or (referral and found and _roles_differ(found, whole.offers)):
        # the block's conditions (a claim window, an inactivity rule) are every offer's
        block = whole.block.conditions
        whole.offers = [replace(t, conditions=list(dict.fromkeys([*t.conditions, *block]))) for t in found]
        whole.why_not = ""
    return whole


def is_referral(body: str) -> bool:
    """A referral program's block: referral words, and on a startup program's
    page ("referred by an Activate Provider", "invited by a VC partner") the
    words of a program that rewards referring someone."""
    if not REFERRAL.search(body):
        return False
    return not STARTUP_WORDS.search(body) or bool(REFERRAL_PROGRAM.search(body))


def _roles_differ(found: list[OfferTerms], before: list[OfferTerms]) -> bool:
    return [t.eligibility for t in found] != [t.eligibility for t in before]


def _by_clause(
    body: str, parts: list[str], whole: Reading, referral: bool, default_currency: str | None
) -> list[OfferTerms]:
    out: list[OfferTerms] = []
    said: dict[tuple[object, ...], int] = {}  # an offer read, and the sentence it was read in
    # the block's party goes to a first clause that names none, unless the clauses name several
    named = {eligibility(p) or (Eligibility.all if _CONTRAST.match(p) or _FACULTY.search(p) else None) for p in parts}
    named -= {None}
    carried = whole.block.eligibility if len(named) <= 1 else None
    parties: list[Eligibility] = []
    sentence = 0
    said_in = ""
    last_money: OfferTerms | None = None
    last_percent: OfferTerms | None = None
    for i, part in enumerate(parts):
        if i and _SENTENCE_END.search(parts[i - 1]):
            sentence += 1
            said_in = part
        else:
            said_in = f"{said_in} {part}" if i else part  # the sentence so far
        reading = read_block(part, default_currency)
        # a clause says who it is for, or goes on with the last one that did;
        # "老用户" (existing customers) is everyone; so with a referral's party
        who = Eligibility.all if _EXISTING.search(part) else eligibility(part)
        if who is None and (_CONTRAST.match(part) or _FACULTY.search(part)):
            who = Eligibility.all  # "PhD students can receive $1,000, while faculty ... $5,000": another party
        carried = who or carried
        if referral:
            parties = referral_roles(part, _first_amount(part, default_currency)) or parties
        offers = reading.offers or _going_on(part, last_money, default_currency)
        if not offers and i and last_percent is not None and parts[i - 1].rstrip().endswith((";", ",", "；", "，")):
            offers = _elided_percent(part, last_percent)
        for terms in offers:
            if (
                terms.kind == OfferKind.free_trial
                and terms.gpu_time is None
                and whole.offers
                and not FREE_SERVICES.search(part)
            ):
                continue  # a length said in a clause is the whole block's ("a 90-day program ... with $300")
            terms = replace(terms, kind=_kind(terms.kind, body, said_in))
            terms.eligibility = carried
            if terms.amount is not None:
                last_money = terms
            if terms.percent_off is not None:
                last_percent = terms
            for one in [replace(terms, eligibility=role) for role in parties] or [terms]:
                key = _key(one)
                if said.get(key, sentence) != sentence:
                    continue  # the same offer said again in a later sentence: a restatement
                said[key] = sentence
                out.append(one)
    return out


_SENTENCE_END = re.compile(r"[.!?。！？]\s*$")
_GOING_ON = re.compile(r"^(?:and|or|plus|as well as|以及|和|或|及)\b", re.I)
# "...; three-year commitments 50-60%.": a few words and a percentage or range, nothing else
_ELIDED = re.compile(
    r"^[^%\d.!?]{1,40}?\s?[-–:]?\s?(?P<a>\d+(?:\.\d+)?)\s?%?\s?(?:(?:-|–|to)\s?(?P<b>\d+(?:\.\d+)?)\s?)?%\s?[.,;]?$"
)


def _elided_percent(part: str, last: OfferTerms) -> list[OfferTerms]:
    """A clause that says only a percentage after a clause that read one: the
    same kind of discount, at that percentage."""
    m = _ELIDED.match(part)
    if not m:
        return []
    values = sorted(Decimal(v) for v in (m.group("a"), m.group("b")) if v)
    if not 0 < values[-1] <= 100:
        return []
    low = values[0] if len(values) == 2 and values[0] < values[1] else None
    return [replace(last, percent_off=values[-1], percent_off_low=low)]


def _going_on(part: str, last: OfferTerms | None, default_currency: str | None) -> list[OfferTerms]:
    """ "... up to $200,000 in credits for startups and up to $350,000 for
    AI-first ones": a clause going on with "and" or "or" and one sum of the
    same currency is another offer of the same kind."""
    if last is None or not _GOING_ON.match(part):
        return []
    sums = {
        (m.value, m.low) for m in moneys(part, default_currency) if m.role == "amount" and m.currency == last.currency
    }
    if len(sums) != 1:
        return []
    value, low = sums.pop()
    return [replace(last, amount=value, amount_low=low)]


def _key(terms: OfferTerms) -> tuple[object, ...]:
    who = terms.eligibility or Eligibility.all
    return (terms.kind, terms.amount, terms.amount_low, terms.currency, terms.percent_off, who)


def _first_amount(text: str, default_currency: str | None) -> int | None:
    found = [m for m in moneys(text, default_currency) if m.role == "amount"]
    return found[0].start if found else None


def _kind(kind: OfferKind | None, body: str, part: str = "") -> OfferKind | None:
    """A clause's kind in the light of its block: a 折 of a renewal page is a
    renewal discount, a credit of a startup program a startup credit, a
    discount of a block on spot prices a spot discount (unless its clause
    names a commitment: "Reserved 1-year commitments ... 35-40% off")."""
    if kind == OfferKind.discount and renewal(body):
        return OfferKind.renewal_discount
    if kind == OfferKind.discount and SPOT_WORDS.search(body) and not _COMMITMENT.search(part):
        return OfferKind.spot_discount
    if kind == OfferKind.free_credit and STARTUP_WORDS.search(body):
        return OfferKind.startup_credit
    return kind


def read_offers(
    text: str, *, title: str | None = None, default_currency: str | None = None, context: Context | None = None
) -> Reading:
    """The offers `text` states (under its heading `title`, when given apart:
    a question or an example heading is context, not an offer), with what
    the page around it says (`context`) where the block does not; never
    raises."""
    try:
        text, title = normal(text), normal(title)
        reading = read_clauses(text, title, default_currency)
        if title and is_question(title):  # an FAQ's answer: its question is its nearest heading
            context = replace(context or Context(), section=title)
            reading.offers = in_context(reading.offers, text, context)
        else:
            reading.offers = in_context(reading.offers, f"{title} {text}", context)
        if not reading.offers and context is not None and not (title and text):
            # "2 years - 2%," under "Loyalty program" (a list item: its words, or a spider's title alone)
            reading.offers = listed_share(title or text, context)
        return reading
    except (ArithmeticError, ValueError, KeyError, IndexError):
        return Reading(why_not="unreadable")
