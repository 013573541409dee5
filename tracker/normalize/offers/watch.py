"""What the matches of a watch page mean: the offers each states (none for a
match that states no offer, counted in the run's note; every tier of a 满减
ladder its own), or with `kind = "price"` one price each. A page none of
whose matches states an offer fails the run with one sentence, as a source
that lists no offers does. The user's ignore patterns and the built-in
volatile patterns are taken out of the text first, so a countdown or a stock
counter never looks like a change.

A match's identity is its element's own id (data-offer-id, data-id, id...)
or else its position on the page, so that a credit going from 300 to 200 is
the same offer changing."""

from __future__ import annotations

from collections.abc import Iterable

from db.schema import OfferKind, PriceModel, PriceQuote, Unit
from spiders.items import WatchItem
from tracker.normalize import Normalized, NormalizeError, parse_time
from tracker.normalize.offers import NO_OFFER, build_offers, settle_dropped, slug
from tracker.normalize.offers.money import parse_rate
from tracker.normalize.volatile import IgnorePatternError, clean_text, compile_ignore

_RATE_MODELS = {
    "hour": (PriceModel.on_demand, Unit.hour, ""),
    "month": (PriceModel.monthly, Unit.month, "1mo"),
    "year": (PriceModel.yearly, Unit.year, "1yr"),
}


def _price(item: WatchItem, ident: str, text: str) -> PriceQuote:
    rate = parse_rate(text)
    if rate is None:
        raise NormalizeError(
            f"watch:{item['watch']}: match {ident} has no single price with a unit "
            f"(such as $3.06/hour or ¥1200/月): {text[:120]!r}"
        )
    value, currency, unit = rate
    model, unit_value, term = _RATE_MODELS[unit]
    return PriceQuote(
        provider=item["provider"],
        region="watch",
        instance_type=ident,
        price_model=model,
        term=term,
        price=value,
        currency=currency,
        unit=unit_value,
        source_url=item["source_url"],
        observed_at=parse_time(item["observed_at"]),
        attrs={"watch": item["watch"]},
    )


def normalize(items: Iterable[WatchItem]) -> Normalized:
    out = Normalized()
    dropped: dict[str, str] = {}
    name = ""
    for item in items:
        data = item["data"]
        name = f"watch:{item['watch']}"
        try:
            ignore = compile_ignore(item.get("ignore") or [])
        except IgnorePatternError as exc:
            raise NormalizeError(f"{name}: {exc}") from None
        ident = slug(data.get("id") or "") or str(data["index"])
        if item.get("offer_kind") == "price":
            out.quotes.append(_price(item, ident, clean_text(data["text"], ignore)))
            continue
        hint = OfferKind(item["offer_kind"]) if item.get("offer_kind") else None
        built = build_offers(
            provider=item["provider"],
            offer_id=f"{name}:{ident}",
            data={"title": data["text"], "kind": hint},
            observed_at=parse_time(item["observed_at"]),
            source_url=item["source_url"],
            default_currency=item.get("currency"),
            ignore=ignore,
        )
        out.offers.extend(built.offers)
        if not built.offers:
            dropped[f"{name}:{ident}"] = built.why_not
    settle_dropped(out, name, dropped, f"{name}: none of the {len(dropped)} matches of the page {NO_OFFER}")
    return out
