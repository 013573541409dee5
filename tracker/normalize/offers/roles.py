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

from db.kinds import Eligibility, OfferKind
from tracker.normalize.offers.clauses import (
    REFERRAL,
    clauses,
    drop_questions,
    is_example,
    is_question,
    referral_roles,
)
from tracker.normalize.offers.money import moneys
from tracker.normalize.offers.reader import Reading, read_block
from tracker.normalize.offers.text import OfferTerms
from tracker.normalize.offers.words import RENEWAL_WORDS, STARTUP_WORDS, eligibility, normal

_EXISTING = re.compile(r"老用户|老客户|existing (?:customers|users)", re.I)


def read_clauses(text: str, title: str, default_currency: str | None) -> Reading:
    if title and is_example(title):
        return Reading(why_not="an example")
    body = text if title and is_question(title) else " ".join(p for p in (title, text) if p)
    body = drop_questions(body) or ("" if title and is_question(title) else body)
    if not body:
        return Reading(why_not="a question")
    whole = read_block(body, default_currency)
    parts = clauses(body)
    referral = bool(REFERRAL.search(body))
    if len(parts) < 2 and not referral:
        return whole
    found = _by_clause(body, parts, whole, referral, default_currency)
    if len(found) > len(whole.offers) or (referral and found and _roles_differ(found, whole.offers)):
        whole.offers = found
        whole.why_not = ""
    return whole


def _roles_differ(found: list[OfferTerms], before: list[OfferTerms]) -> bool:
    return [t.eligibility for t in found] != [t.eligibility for t in before]


def _by_clause(
    body: str, parts: list[str], whole: Reading, referral: bool, default_currency: str | None
) -> list[OfferTerms]:
    read = [(part, read_block(part, default_currency)) for part in parts]
    out: list[OfferTerms] = []
    carried = whole.block.eligibility
    for part, reading in read:
        # a clause says who it is for, or goes on with the last one that did;
        # "老用户" (existing customers) is everyone
        who = Eligibility.all if _EXISTING.search(part) else eligibility(part)
        carried = who or carried
        for terms in reading.offers:
            if terms.kind == OfferKind.free_trial and terms.gpu_time is None and whole.offers:
                continue  # a length said in a clause is the whole block's ("a 90-day program ... with $300")
            terms = replace(terms, kind=_kind(terms.kind, body))
            terms.eligibility = carried
            roles = referral_roles(part, _first_amount(part, default_currency)) if referral else []
            if not roles:
                out.append(terms)
            for role in roles:
                out.append(replace(terms, eligibility=role))
    return out


def _first_amount(text: str, default_currency: str | None) -> int | None:
    found = [m for m in moneys(text, default_currency) if m.role == "amount"]
    return found[0].start if found else None


def _kind(kind: OfferKind | None, body: str) -> OfferKind | None:
    """A clause's kind in the light of its block: a 折 of a renewal page is a
    renewal discount, a credit of a startup program a startup credit."""
    if kind == OfferKind.discount and RENEWAL_WORDS.search(body):
        return OfferKind.renewal_discount
    if kind == OfferKind.free_credit and STARTUP_WORDS.search(body):
        return OfferKind.startup_credit
    return kind


def read_offers(text: str, *, title: str | None = None, default_currency: str | None = None) -> Reading:
    """The offers `text` states (under its heading `title`, when given apart:
    a question or an example heading is context, not an offer); never raises."""
    try:
        return read_clauses(normal(text), normal(title), default_currency)
    except (ArithmeticError, ValueError, KeyError, IndexError):
        return Reading(why_not="unreadable")
