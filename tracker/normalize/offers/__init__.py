"""What a raw offer item means: the normalizer of every `<provider>-offers`
source.

An offer item is `{"kind": "offer", "provider", "observed_at", "source_url",
"currency"?, "data": {...}}`, where the page object filled `data` with the
values as seen: `id` and `title` (required), `text`, and where the page
states them separately, `kind`, `eligibility`, `products`, `amount`,
`currency`, `percent_off`, `min_spend`, `duration_days`, `valid_from`,
`valid_until`, `url`. Stated values win over what the text says; the text is
read by `roles.read_offers` after its volatile parts are taken out.

Precision first: a block that states no offer (a heading, an FAQ answer, a
price, a rule) is left out and counted in the run's note, never stored as a
"discount"; a page none of whose blocks states an offer is judged like a page
that lists none (the run fails with one sentence, a `source_broken` change).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from db.schema import Eligibility, Offer, OfferKind, stable_hash
from spiders.items import OfferItem
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.offers.context import Context, contexts
from tracker.normalize.offers.reader import terms_record
from tracker.normalize.offers.roles import read_offers
from tracker.normalize.offers.text import OfferTerms
from tracker.normalize.volatile import clean_text, clean_url

_SLUG = re.compile(r"[^0-9a-z\u4e00-\u9fff]+")


def slug(raw: object) -> str:
    return _SLUG.sub("-", str(raw).lower()).strip("-")


def _stated_decimal(data: Mapping[str, Any], name: str, where: str) -> Decimal | None:
    value = data.get(name)
    if value in (None, ""):
        return None
    try:
        return to_decimal(value, what=name)
    except MoneyError as exc:
        raise NormalizeError(f"{where}: {exc}") from None


def _stated_time(value: object) -> datetime | None:
    if value in (None, ""):
        return None
    text = str(value)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return datetime.fromisoformat(text).replace(tzinfo=UTC)
    return parse_time(text)


def _enum(cls: type[OfferKind] | type[Eligibility], value: object, where: str) -> Any:
    if value in (None, ""):
        return None
    try:
        return cls(str(value))
    except ValueError:
        raise NormalizeError(f"{where}: unknown {cls.__name__} {value!r}") from None


@dataclass
class Built:
    """What one block of a page gave: its offers, or why it gave none."""

    offers: list[Offer] = field(default_factory=list)
    why_not: str = ""


def _stated_days(data: Mapping[str, Any], where: str) -> int | None:
    days = _stated_decimal(data, "duration_days", where)
    if days is None:
        return None
    if days != days.to_integral_value() or days <= 0:
        raise NormalizeError(f"{where}: duration_days {data['duration_days']!r} is not a whole number of days")
    return int(days)


def _stated_terms(
    data: Mapping[str, Any], block: OfferTerms, where: str, default_currency: str | None
) -> OfferTerms | None:
    """The one offer a page states in separate fields (a JSON `amount`,
    `discount`...), the words filling what it leaves out; None when it
    states no amount, percentage or length."""
    amount = _stated_decimal(data, "amount", where)
    percent = _stated_decimal(data, "percent_off", where)
    spend = _stated_decimal(data, "min_spend", where)
    days = _stated_days(data, where)
    stated_kind = _enum(OfferKind, data.get("kind"), where)
    if amount is None and percent is None and not (days is not None and stated_kind is not None):
        return None
    terms = replace(block, tiers=[], caps=list(block.caps))
    if amount is not None:
        terms.amount, terms.currency = amount, data.get("currency") or block.currency or default_currency
        terms.min_spend = spend
    if percent is not None:
        terms.percent_off = percent
    if days is not None:
        terms.duration_days = days
    if stated_kind is None:
        stated_kind = OfferKind.voucher if spend is not None else terms.kind
    terms.kind = stated_kind or (OfferKind.free_credit if amount is not None else OfferKind.discount)
    return terms


def build_offers(
    *,
    provider: str,
    offer_id: str,
    data: Mapping[str, Any],
    observed_at: datetime,
    source_url: str,
    default_currency: str | None = None,
    ignore: Sequence[re.Pattern[str]] = (),
    context: Context | None = None,
) -> Built:
    """The offers one block of a page states (each tier of a 满减 ladder its
    own, `<offer_id>-<threshold>`), or none and why; `context` (the page's
    title, the heading above the block, what the page is about) says whom
    and what they are for where the block does not."""
    where = f"{provider}: offer {offer_id}"
    title = clean_text(str(data.get("title") or ""), ignore)[:120]
    text = clean_text(" ".join(str(p) for p in (data.get("title"), data.get("text")) if p), ignore)
    if not title and not text:
        raise NormalizeError(f"{where} has neither a title nor a text")
    body = clean_text(str(data.get("text") or ""), ignore)
    heading = clean_text(str(data.get("title") or ""), ignore)
    reading = read_offers(body, title=heading or None, default_currency=default_currency, context=context)
    stated = _stated_terms(data, reading.block, where, default_currency)
    found = [stated] if stated is not None else reading.offers
    if not found:
        return Built(why_not=UNREAD if looks_like_offer(text) else reading.why_not)
    hint = _enum(OfferKind, data.get("kind"), where)
    if stated is None and hint is not None and len(found) == 1:
        found[0].kind = hint  # a kind the page (or the watch's configuration) names
    ladder = offer_id if len(found) > 1 and all(t.tiers for t in found) else None
    eligibility = _enum(Eligibility, data.get("eligibility"), where)
    products = {str(p) for p in data.get("products") or []}
    offers = []
    for terms in found:
        if ladder:
            ident = f"{offer_id}-{slug(format(terms.tiers[0].min_spend, 'f'))}"
        elif terms is found[0]:
            ident = offer_id
        else:
            ident = f"{offer_id}-{slug(str(terms.kind))}"
        offers.append(
            Offer(
                provider=provider,
                offer_id=ident,
                kind=terms.kind or OfferKind.free_trial,
                title=title or text[:80],
                amount=terms.amount,
                currency=terms.currency if terms.amount is not None or terms.min_spend is not None else None,
                percent_off=terms.percent_off,
                min_spend=terms.min_spend,
                duration_days=terms.duration_days,
                eligibility=eligibility or terms.eligibility or Eligibility.all,
                products=sorted(set(terms.products) | products),
                valid_from=_stated_time(data.get("valid_from")) or terms.valid_from,
                valid_until=_stated_time(data.get("valid_until")) or terms.valid_until,
                source_url=clean_url(str(data.get("url") or source_url)),
                observed_at=observed_at,
                text=text,
                text_hash=stable_hash((text,), length=16),
                terms=terms_record(terms, reading.conditions, ladder=ladder),
            )
        )
    return Built(offers)


def build_offer(**block: Any) -> Offer:
    """The one offer a block states (see `build_offers`); a NormalizeError
    when it states none, or several."""
    built = build_offers(**block)
    if len(built.offers) != 1:
        what = built.why_not or f"{len(built.offers)} offers"
        raise NormalizeError(f"{block.get('provider')}: offer {block.get('offer_id')} states {what}, not one offer")
    return built.offers[0]


UNREAD = "looks like an offer but could not be read"
# An amount or a percentage beside an offer word: a block a person would read as an offer.
_LOOKS = re.compile(
    r"(?:[$€£¥₹]\s?\d|\d\s?(?:元|円|USD|EUR|%|折))[^。.;；]{0,40}(?:券|credit|free|免费|减|off\b|赠|送|bonus|优惠|discount)|"
    r"(?:券|credit|free|免费|减|off\b|赠|送|bonus|优惠|discount)[^。.;；]{0,40}(?:[$€£¥₹]\s?\d|\d\s?(?:元|円|USD|EUR|%|折))",
    re.I,
)


def looks_like_offer(text: str) -> bool:
    return bool(_LOOKS.search(text))


def dropped_note(what: str, dropped: dict[str, str]) -> str:
    """One sentence for the run's note: how many blocks stated no offer, and
    why; then the blocks that look like offers but could not be read, by name,
    so that a person can report them."""
    stated = {k: v for k, v in dropped.items() if v != UNREAD}
    unread = [k for k, v in dropped.items() if v == UNREAD]
    parts = []
    if stated:
        reasons = Counter(stated.values())
        why = "; ".join(f"{reason}: {n}" for reason, n in reasons.most_common())
        sample = ", ".join(list(stated)[:3]) + (", ..." if len(stated) > 3 else "")
        parts.append(f"{what}: {len(stated)} blocks stated no offer and were left out ({why}): {sample}")
    if unread:
        names = ", ".join(unread)
        parts.append(
            f"{what}: {len(unread)} blocks look like offers but could not be read (please report them): {names}"
        )
    return "; ".join(parts)


NO_OFFER = "states an offer (a credit, voucher, discount or free time with its amount or size)"


def states_no_offer(error: str | None) -> bool:
    """Whether a run failed because its page states no offer (the demo shows
    that, as any source broken for that reason, and goes on)."""
    return bool(error) and NO_OFFER in str(error)


def normalize(items: Iterable[OfferItem]) -> Normalized:
    out = Normalized()
    dropped: dict[str, str] = {}
    provider = ""
    given = list(items)
    for item, context in zip(given, _contexts(given), strict=True):
        if item.get("kind") != "offer":
            raise NormalizeError(f"an offer source gave an item of kind {item.get('kind')!r}")
        data = item["data"]
        provider = str(item["provider"])
        if not data.get("id"):
            raise NormalizeError(f"{provider}: an offer on {item['source_url']} has no id")
        ident = f"{provider}:{slug(data['id'])}"
        built = build_offers(
            provider=provider,
            offer_id=ident,
            data=data,
            observed_at=parse_time(item["observed_at"]),
            source_url=item["source_url"],
            default_currency=item.get("currency"),
            context=context,
        )
        out.offers.extend(built.offers)
        if not built.offers:
            dropped[ident] = built.why_not
    settle_dropped(out, provider, dropped, f"{provider}: none of the {len(dropped)} blocks read {NO_OFFER}")
    return out


def _contexts(items: Sequence[OfferItem]) -> list[Context | None]:
    """Each block's context (`context.contexts`), the blocks of one page (one
    `source_url`) in the order the spider gave them."""
    pages: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        pages.setdefault(str(item.get("source_url") or ""), []).append(i)
    out: list[Context | None] = [None] * len(items)
    for address, where in pages.items():
        blocks = [items[i].get("data") or {} for i in where]
        for i, context in zip(where, contexts(blocks, address), strict=True):
            out[i] = context
    return out


def settle_dropped(out: Normalized, what: str, dropped: dict[str, str], broken: str) -> None:
    """The blocks of a page that gave no offer, by offer id and why. A block
    that looks like an offer but could not be read is new words, not a page
    whose structure is gone: the run goes on, names it, and keeps what was
    read of it before (`unread_offers`). Only a page none of whose blocks even
    looks like an offer (and that priced nothing) is broken: `broken` is then
    raised."""
    if not dropped:
        return
    out.unread_offers = [k for k, v in dropped.items() if v == UNREAD]
    if not out.offers and not out.quotes and not out.unread_offers:
        raise NormalizeError(broken)
    out.notes.append(dropped_note(what, dropped))
