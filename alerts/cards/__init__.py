"""Cards: what a change says, in words and numbers, before any channel's
escaping. Every card says what was and what is now (a price, a credit, a
discount, a voucher, an availability), where (provider, region, instance,
GPU) and links to the page it was read from.

An offer's terms are written as the offer itself writes them: 满1000减300
and 6折 on a Chinese page, $300 and 40% off elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from alerts.cards import market, spot
from db.money import amount, readable, readable_pair, whole
from db.schema import Change, ChangeKind, effective_hourly


@dataclass(frozen=True)
class Card:
    headline: str
    facts: list[tuple[str, str]]
    link: str = ""
    summary: str = ""  # the one-line form of the facts, for digests
    subject: str = ""  # the headline without its kind and provider, for a digest's groups


KIND_TITLES = {
    ChangeKind.price_drop: "Price drop",
    ChangeKind.price_increase: "Price increase",
    ChangeKind.new_sku: "New price",
    ChangeKind.sku_removed: "Price removed",
    ChangeKind.availability_changed: "Availability changed",
    ChangeKind.offer_added: "New offer",
    ChangeKind.offer_removed: "Offer ended",
    ChangeKind.offer_changed: "Offer changed",
    ChangeKind.credit_changed: "Credit changed",
    ChangeKind.discount_changed: "Discount changed",
    ChangeKind.source_broken: "Source failing",
    ChangeKind.source_recovered: "Source recovered",
    ChangeKind.source_stale: "Source stale",
    ChangeKind.price_suspect: "Prices held as suspect",
    ChangeKind.spot_risk_worse: "Spot risk worse",
}
_UNITS = {"hour": "hour", "month": "month", "year": "year", "gb": "GB", "gb_month": "GB-month"}
OFFER_KINDS = (
    ChangeKind.offer_added,
    ChangeKind.offer_removed,
    ChangeKind.offer_changed,
    ChangeKind.credit_changed,
    ChangeKind.discount_changed,
)
_SOURCE_KINDS = (
    ChangeKind.source_broken,
    ChangeKind.source_recovered,
    ChangeKind.source_stale,
    ChangeKind.price_suspect,
)
# What the alert hook adds: the configured currency, its rate from the
# change's currency and the rate's date (see tracker/run/alerting.py).
FX_KEYS = ("fx_to", "fx_rate", "fx_date")
_CJK = re.compile(r"[\u3400-\u9fff]")
_ARROW = " → "


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, one line, cut between characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _signed(percent: Decimal | None) -> str:
    if percent is None:
        return ""
    return f"+{percent}%" if percent > 0 else f"−{-percent}%" if percent < 0 else "0%"


def _moved(old: str, new: str) -> str:
    """'old → new', or the one that is there."""
    if old and new and old != new:
        return f"{old}{_ARROW}{new}"
    return new or old


def _plain(value: Decimal) -> str:
    """8 for 8.00, 8.5 for 8.50: a count or a rate, not money."""
    return format(value.normalize(), "f")


def _dec(text: str | None) -> Decimal | None:
    try:
        return Decimal(text) if text else None
    except InvalidOperation:
        return None


# --- prices -------------------------------------------------------------------


def _per(change: Change) -> str:
    unit = _UNITS.get(change.unit) or (f"{change.term} term" if change.unit == "term" else change.unit)
    return f"{change.currency}/{unit}" if unit else change.currency


def per_gpu_hour(change: Change, price: Decimal | None) -> Decimal | None:
    if price is None or not change.gpu_count:
        return None
    hourly = effective_hourly(price, change.unit, change.term)
    return None if hourly is None else hourly / change.gpu_count


def _day(text: str) -> str:
    """A validity time at midnight UTC is a date: 2026-08-31."""
    return text.removesuffix("T00:00:00+00:00").removesuffix("T00:00:00Z")


def _words(state: str | None) -> str:
    return (state or "unknown").replace("_", " ")


def _converted(change: Change, old: Decimal | None, new: Decimal | None) -> str:
    """The per-GPU-hour in the configured currency, with the rate's date."""
    to, rate = change.detail.get("fx_to", ""), _dec(change.detail.get("fx_rate"))
    if not to or rate is None or to == change.currency:
        return ""
    a, b = readable_pair(None if old is None else old * rate, None if new is None else new * rate)
    date = change.detail.get("fx_date", "")
    when = f", rate of {date}" if date else ""
    return f"{_moved(a, b)} {to} (1 {change.currency} = {readable(rate)} {to}{when})"


def _price_facts(change: Change, width: int) -> tuple[list[tuple[str, str]], str]:
    old, new, per = change.old_price, change.new_price, _per(change)
    a, b = readable_pair(old, new)
    if change.kind == ChangeKind.sku_removed or new is None:
        price = f"was {a} {per}" if old is not None else "(no price)"
    elif old is not None and old != new:
        price = f"{a}{_ARROW}{b} {per} ({_signed(change.percent)})"
    else:
        price = f"{b} {per}"
    facts = []
    if change.kind == ChangeKind.availability_changed:
        states = _words(change.detail.get("old_availability")), _words(change.detail.get("new_availability"))
        facts.append(("Availability", f"{states[0]}{_ARROW}{states[1]}"))
    facts.append(("Price", price))
    gpu_old, gpu_new = per_gpu_hour(change, old), per_gpu_hour(change, new)
    if change.kind == ChangeKind.sku_removed:
        gpu_new = None
    ga, gb = readable_pair(gpu_old, gpu_new)
    per_gpu = f"{_moved(ga, gb)} {change.currency}" if ga or gb else ""
    converted = _converted(change, gpu_old, gpu_new) if per_gpu else ""
    if per_gpu:
        facts.append(("Per GPU-hour", per_gpu + (f"; {converted}" if converted else "")))
    gpus = f"{_plain(change.gpu_count)} × {change.gpu_model or 'GPU'}" if change.gpu_count else change.gpu_model or ""
    facts.append(("GPU", gpus))
    terms = " · ".join(p for p in (change.price_model, change.term, change.payment_option, change.os) if p)
    facts.append(("Terms", terms))
    where = (change.provider, change.region, change.zone, change.instance_type)
    facts.append(("Where", " · ".join(p for p in where if p)))
    if change.kind == ChangeKind.availability_changed:
        summary = facts[0][1] + f" at {b or a} {per}"
    else:
        summary = price
    if per_gpu:
        summary += f", {per_gpu} per GPU-hour"
    return [(k, clip(v, width)) for k, v in facts if v], summary


def _price_card(change: Change, kind: ChangeKind, title: str, width: int) -> Card:
    pct = f" {_signed(change.percent)}" if kind in (ChangeKind.price_drop, ChangeKind.price_increase) else ""
    if "offers" in change.detail:  # a marketplace group (docs/marketplaces.md)
        headline, subject = market.headline(change, title, pct)
        facts, summary = market.facts(change, _per(change), per_gpu_hour)
        facts = [(k, clip(v, width)) for k, v in facts]
        return Card(clip(headline, 300), facts, change.source_url, summary, subject=clip(subject, 200))
    where = f"{change.instance_type} in {change.region}" if change.region else change.instance_type
    gpus = f"{_plain(change.gpu_count)} × {change.gpu_model}" if change.gpu_count and change.gpu_model else ""
    if gpus:
        where = f"{change.instance_type} ({gpus})" + (f" in {change.region}" if change.region else "")
    pct = f" {_signed(change.percent)}" if kind in (ChangeKind.price_drop, ChangeKind.price_increase) else ""
    facts, summary = _price_facts(change, width)
    subject = clip(where, 200)
    headline = f"{title}{pct}: {change.provider} {subject}"
    return Card(headline, facts, change.source_url, summary, subject=f"{pct.strip()} {subject}".strip())


# --- offers -------------------------------------------------------------------


def _zhe(percent_off: Decimal) -> str:
    """40% off is 6折: the tenths of the price that is paid."""
    return f"{_plain((100 - percent_off) / 10)}折"


def writes_chinese(title: str, currency: str | None) -> bool:
    """Whether an offer's terms read as 满X减Y and N折: a Chinese title or a price in yuan."""
    return currency == "CNY" or bool(_CJK.search(title))


def offer_terms(values: Mapping[str, str | None], zh: bool) -> str:
    """One offer's terms in words: 满1000减300, 30 天; or $300 credit, 40% off."""
    money, currency = _dec(values.get("amount")), values.get("currency") or ""
    spend, percent = _dec(values.get("min_spend")), _dec(values.get("percent_off"))
    days = values.get("duration_days") or ""
    parts = []
    if money is not None and spend is not None:
        parts.append(
            f"满{whole(spend)}减{whole(money)}"
            if zh
            else f"{amount(money, currency)} off a {amount(spend, currency)} spend"
        )
    elif money is not None:
        low = _dec(values.get("amount_low"))
        parts.append(
            f"{amount(low, currency)}–{amount(money, currency)}" if low is not None else amount(money, currency)
        )
    if percent is not None:
        parts.append(_zhe(percent) if zh else f"{_plain(percent)}% off")
    if days:
        parts.append(f"{days} 天" if zh else f"{days} days")
    return ", ".join(parts)


def _side(change: Change, prefix: str) -> dict[str, str]:
    """The old_* or new_* terms the offer diff recorded; for a change stored
    before it recorded them, the moved value alone."""
    d = change.detail
    values = {k.removeprefix(f"{prefix}_"): v for k, v in d.items() if k.startswith(f"{prefix}_") and v}
    value = change.old_price if prefix == "old" else change.new_price
    if value is not None:
        key = "percent_off" if change.unit == "percent_off" else "amount"
        values.setdefault(key, format(value, "f"))
        if key == "amount" and change.currency:
            values.setdefault("currency", change.currency)
    return values


_TERM_KEYS = {"amount", "amount_low", "currency", "min_spend", "percent_off", "duration_days", "conditions"}


def _offer_facts(change: Change, width: int) -> tuple[list[tuple[str, str]], str]:
    d, kind = change.detail, change.kind
    zh = writes_chinese(d.get("title", ""), change.currency)
    old_values, new_values = _side(change, "old"), _side(change, "new")
    # Texts of an older form of the diff, or of a watch page, win: they are the page's words.
    old = d.get("old_terms") or d.get("old") or offer_terms(old_values, zh)
    new = d.get("new_terms") or d.get("new") or d.get("terms") or d.get("text") or offer_terms(new_values, zh)
    facts: list[tuple[str, str]] = []
    if kind == ChangeKind.offer_removed:
        facts.append(("Was", old))
    elif kind == ChangeKind.offer_added:
        facts.append(("Terms", new))
    else:
        facts += [("Was", old), ("Now", new)] if old != new else [("Terms", new)]
    # The conditions read beyond the columns (a claim window, first purchase only ...).
    said_old, said_new = d.get("old_conditions", ""), d.get("new_conditions", "")
    if kind == ChangeKind.offer_removed:
        facts.append(("Conditions", said_old))
    elif said_old and said_new and said_old != said_new:
        facts.append(("Conditions", _moved(said_old, said_new)))
    else:
        facts.append(("Conditions", said_new))
    # Other fields that moved (validity, eligibility, title): old → new each.
    for name in (d.get("changed") or "").split(", "):
        if name and name not in _TERM_KEYS:
            label = name.replace("_", " ").capitalize()
            before, after = (_day(d.get(f"{side}_{name}", "")) or "(none)" for side in ("old", "new"))
            facts.append((label, _moved(before, after)))
    facts.append(("Provider", change.provider))
    if d.get("offer_kind"):
        facts.append(("Kind", _words(d["offer_kind"])))
    shown = {
        "title",
        "offer_id",
        "offer_kind",
        "changed",
        "old_terms",
        "new_terms",
        "old",
        "new",
        "terms",
        "text",
        *FX_KEYS,
    }
    extra = {k: v for k, v in d.items() if k not in shown and not k.startswith(("old_", "new_")) and v}
    facts += [(k.replace("_", " ").capitalize(), v) for k, v in sorted(extra.items())]
    if kind in (ChangeKind.offer_added, ChangeKind.offer_removed):
        summary = clip(new if kind == ChangeKind.offer_added else f"was {old}", 160)
    else:
        summary = _short_move(old, new)
    return [(k, clip(v, width)) for k, v in facts if v], summary


def _short_move(old: str, new: str) -> str:
    """'$300 → $200, 90 days': what moved first, what stayed after."""
    if not (old and new and old != new):
        return clip(new or old, 160)
    a, b = old.split(", "), new.split(", ")
    kept = [p for p in b if p in a]
    gone, came = [p for p in a if p not in kept], [p for p in b if p not in kept]
    moved = f"{clip(', '.join(gone) or '(none)', 80)}{_ARROW}{clip(', '.join(came) or '(none)', 80)}"
    return ", ".join([moved, *kept])


# --- every kind -------------------------------------------------------------


def card(change: Change, width: int = 600) -> Card:
    """The template of the change's kind, filled in (text still unescaped)."""
    kind = ChangeKind(change.kind)
    title = KIND_TITLES.get(kind, str(kind))
    if kind in OFFER_KINDS:
        name = change.detail.get("title") or change.detail.get("offer_id") or change.key
        facts, summary = _offer_facts(change, width)
        name = clip(name, 200)
        return Card(f"{title} ({change.provider}): {name}", facts, change.source_url, summary, subject=name)
    if kind in _SOURCE_KINDS:
        reason = change.detail.get("reason") or change.detail.get("after") or change.detail.get("since") or ""
        label = {"source_broken": "Reason", "source_recovered": "After", "source_stale": "Since"}.get(kind, "Held")
        facts = [(label, clip(reason, width))] if reason else []
        source = change.source or change.provider
        return Card(f"{title}: {source}", facts, change.source_url, clip(reason, 160), subject=source)
    if kind == ChangeKind.spot_risk_worse:
        headline, subject = spot.headline(change, title)
        return Card(headline, spot.facts(change), change.source_url, spot.moved(change), subject=subject)
    return _price_card(change, kind, title, width)
