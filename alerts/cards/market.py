"""The card of a marketplace change (a change whose detail names `offers`;
docs/marketplaces.md): stock first, as the people who watch a marketplace
read it: "8 × H100 available again on vastai in europe", "1 × A800 80GB
sold out on autodl in beijing-B (北京B区)"; then the lowest price of the
group, per GPU-hour, its median and how many offers stand behind it."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from db.money import readable, readable_pair
from db.schema import Change, ChangeKind

_ARROW = " → "


def _dec(text: str | None) -> Decimal | None:
    try:
        return Decimal(text) if text else None
    except InvalidOperation:
        return None


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _offers(text: str | None) -> str:
    if text in (None, ""):
        return ""
    return "none" if text == "0" else f"{text} offer{'' if text == '1' else 's'}"


def headline(change: Change, title: str, signed: str) -> tuple[str, str]:
    """(headline, subject): what happened to which group where."""
    d = change.detail
    gpus = f"{_plain(change.gpu_count)} × {change.gpu_model}" if change.gpu_count and change.gpu_model else ""
    group = gpus or change.instance_type
    if d.get("tier"):
        group += f" {d['tier']}"
    where = change.region + (f" ({d['region_name']})" if d.get("region_name") else "")
    new = d.get("new_availability")
    if new == "sold_out":
        return f"{group} sold out on {change.provider} in {where}", f"{group} in {where}"
    if new == "available":
        again = " again" if d.get("old_availability") == "sold_out" else ""
        return f"{group} available{again} on {change.provider} in {where}", f"{group} in {where}"
    subject = f"{change.instance_type} in {where}"
    return f"{title}{signed}: {change.provider} {subject}", f"{signed.strip()} {subject}".strip()


def facts(
    change: Change, per: str, per_gpu_hour: Callable[[Change, Decimal | None], Decimal | None]
) -> tuple[list[tuple[str, str]], str]:
    """The card's facts and its one-line summary. `per` is "USD/hour";
    `per_gpu_hour(change, price)` divides an hourly price by the GPU count."""
    d = change.detail
    old_offers, new_offers = _offers(d.get("old_offers")), _offers(d.get("offers"))
    gone = d.get("new_availability") == "sold_out"
    if d.get("new_availability") == "available" and d.get("old_availability") == "sold_out":
        stock = f"sold out{_ARROW}{new_offers}"
    elif gone:
        stock = f"{old_offers or 'offers'}{_ARROW}none"
    elif old_offers and old_offers != new_offers:
        stock = f"{old_offers}{_ARROW}{new_offers}"
    else:
        stock = new_offers
    old, new = change.old_price, None if gone else change.new_price
    a, b = readable_pair(
        old if change.kind in (ChangeKind.price_drop, ChangeKind.price_increase) or gone else None, new
    )
    if gone:
        lowest = f"was {a} {per}"
    elif a and a != b:
        percent = change.percent
        sign = "" if percent is None else f" ({'+' if percent > 0 else '−'}{abs(percent)}%)"
        lowest = f"{a}{_ARROW}{b} {per}{sign}"
    else:
        lowest = f"{b} {per}"
    out = [("Stock", stock), ("Lowest", lowest)]
    gpu_old = per_gpu_hour(change, old) if a else None
    gpu_new = None if gone else per_gpu_hour(change, new)
    ga, gb = readable_pair(gpu_old, gpu_new)
    if ga or gb:
        out.append(
            ("Per GPU-hour", (f"{ga}{_ARROW}{gb}" if ga and gb and ga != gb else gb or ga) + f" {change.currency}")
        )
    median, old_median = _dec(d.get("median_price")), _dec(d.get("old_median_price"))
    if median is not None and not gone:
        moved = f"{readable(old_median)}{_ARROW}" if old_median is not None and old_median != median else ""
        out.append(("Median", f"{moved}{readable(median)} {per}"))
    gpus = f"{_plain(change.gpu_count)} × {change.gpu_model or 'GPU'}" if change.gpu_count else change.gpu_model or ""
    out.append(("GPU", gpus))
    out.append(("Terms", " · ".join(p for p in (change.price_model, d.get("tier", "")) if p)))
    where = (change.provider, change.region, d.get("region_name", ""), change.instance_type)
    out.append(("Where", " · ".join(p for p in where if p)))
    summary = stock if gone else f"{stock}, from {b or a} {per}"
    if gb and not gone:
        summary += f", {gb} {change.currency} per GPU-hour"
    return [(k, v) for k, v in out if v], summary
