"""A price history chart drawn on the server as SVG: step lines (the price in
force), dots where it changed. No script and no style attribute: it passes the
dashboard's Content-Security-Policy and prints as it shows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from db.money import effective_hourly
from tracker.analytics.outputs.svg import COLORS, svg_chart

MAX_SERIES = len(COLORS)


def series_of(intervals: list[dict[str, Any]]) -> list[tuple[str, list[tuple[datetime, datetime | None, float]]]]:
    """One series per price (region, price model, term, OS, zone), its hourly
    rate per interval, cheapest series first, at most MAX_SERIES."""
    found: dict[str, list[tuple[datetime, datetime | None, float]]] = {}
    for row in intervals:
        hourly = effective_hourly(row["price"], row["unit"], row.get("term") or "", row.get("upfront_fee"))
        if hourly is None or row.get("valid_from") is None:
            continue
        parts = [row["region"], row.get("zone"), row["price_model"], row.get("term"), row.get("os"), row["currency"]]
        label = " ".join(str(p) for p in parts if p)
        found.setdefault(label, []).append((row["valid_from"], row.get("valid_to"), float(hourly)))
    ordered = sorted(found.items(), key=lambda item: (item[1][-1][2], item[0]))
    return [(label, sorted(steps, key=lambda s: s[0])) for label, steps in ordered[:MAX_SERIES]]


def svg(intervals: list[dict[str, Any]], *, title: str, now: datetime | None = None) -> str:
    """The chart as an inline <figure>, or '' with nothing to draw."""
    return svg_chart(series_of(intervals), title=title, now=now)
