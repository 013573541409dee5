"""What a raw offer item means: the normalizer of every `<provider>-offers`
source.

An offer item is `{"kind": "offer", "provider", "observed_at", "source_url",
"currency"?, "data": {...}}`, where the page object filled `data` with the
values as seen: `id` and `title` (required), `text`, and where the page
states them separately, `kind`, `eligibility`, `products`, `amount`,
`currency`, `percent_off`, `min_spend`, `duration_days`, `valid_from`,
`valid_until`, `url`. Stated values win over what the text says; the text is
read by `offer_text.parse_terms` after its volatile parts are taken out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from db.schema import Eligibility, Offer, OfferKind, stable_hash
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.offer_text import OfferTerms, parse_terms
from tracker.normalize.volatile import clean_text, clean_url

_SLUG = re.compile(r"[^0-9a-z\u4e00-\u9fff]+")


def slug(raw: object) -> str:
    return _SLUG.sub("-", str(raw).lower()).strip("-")


def _stated_decimal(data: dict[str, Any], name: str, where: str) -> Decimal | None:
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


def build_offer(
    *,
    provider: str,
    offer_id: str,
    data: dict[str, Any],
    observed_at: datetime,
    source_url: str,
    default_currency: str | None = None,
    ignore: Sequence[re.Pattern[str]] = (),
    fallback_kind: OfferKind | None = None,
) -> Offer:
    """One Offer from what a page said about it."""
    where = f"{provider}: offer {offer_id}"
    title = clean_text(str(data.get("title") or ""), ignore)[:120]
    text = clean_text(" ".join(str(p) for p in (data.get("title"), data.get("text")) if p), ignore)
    if not title and not text:
        raise NormalizeError(f"{where} has neither a title nor a text")
    terms: OfferTerms = parse_terms(text, default_currency=default_currency)
    amount = _stated_decimal(data, "amount", where)
    if amount is not None:
        terms.amount, terms.currency = amount, data.get("currency") or terms.currency or default_currency
    for name in ("percent_off", "min_spend"):
        stated = _stated_decimal(data, name, where)
        if stated is not None:
            setattr(terms, name, stated)
    if data.get("duration_days") not in (None, ""):
        terms.duration_days = int(str(data["duration_days"]))
    kind = _enum(OfferKind, data.get("kind"), where) or terms.kind or fallback_kind or OfferKind.discount
    terms.kind = kind
    eligibility = _enum(Eligibility, data.get("eligibility"), where) or terms.eligibility or Eligibility.all
    products = sorted(set(terms.products) | {str(p) for p in data.get("products") or []})
    return Offer(
        provider=provider,
        offer_id=offer_id,
        kind=kind,
        title=title or text[:80],
        amount=terms.amount,
        currency=terms.currency if terms.amount is not None or terms.min_spend is not None else None,
        percent_off=terms.percent_off,
        min_spend=terms.min_spend,
        duration_days=terms.duration_days,
        eligibility=eligibility,
        products=products,
        valid_from=_stated_time(data.get("valid_from")) or terms.valid_from,
        valid_until=_stated_time(data.get("valid_until")) or terms.valid_until,
        source_url=clean_url(str(data.get("url") or source_url)),
        observed_at=observed_at,
        text=text,
        text_hash=stable_hash((text,), length=16),
        unparsed=not terms.says_something(),
    )


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    out = Normalized()
    for item in items:
        if item.get("kind") != "offer":
            raise NormalizeError(f"an offer source gave an item of kind {item.get('kind')!r}")
        data = item["data"]
        provider = str(item["provider"])
        if not data.get("id"):
            raise NormalizeError(f"{provider}: an offer on {item['source_url']} has no id")
        offer = build_offer(
            provider=provider,
            offer_id=f"{provider}:{slug(data['id'])}",
            data=data,
            observed_at=parse_time(item["observed_at"]),
            source_url=item["source_url"],
            default_currency=item.get("currency"),
        )
        if offer.unparsed:
            out.notes.append(f"{offer.offer_id}: no amount or percentage could be read; stored as unparsed")
        out.offers.append(offer)
    return out
