"""A price history chart drawn on the server as SVG: step lines (the price in
force), dots where it changed. No script and no style attribute: it passes the
dashboard's Content-Security-Policy and prints as it shows."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from html import escape
from typing import Any

from db.money import effective_hourly, readable

WIDTH, HEIGHT = 760, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 40
COLORS = ("#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a")
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
    """The chart as an inline <svg> element, or '' with nothing to draw."""
    lines = series_of(intervals)
    if not lines:
        return ""
    now = now or datetime.now(UTC)
    start = min(s[0] for _, steps in lines for s in steps)
    end = max(now, *(s[1] or now for _, steps in lines for s in steps))
    values = [s[2] for _, steps in lines for s in steps]
    low, high = min(values), max(values)
    if high == low:
        low, high = low * 0.9, high * 1.1 or 1.0
    span = (end - start).total_seconds() or 1.0
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(at: datetime) -> float:
        return LEFT + (at - start).total_seconds() / span * plot_w

    def y(value: float) -> float:
        return TOP + (1 - (value - low) / (high - low)) * plot_h

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}" '
        'xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#d0d7de"/>',
    ]
    for i in range(5):
        value = low + (high - low) * i / 4
        at = y(value)
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{at:.1f}" y2="{at:.1f}" stroke="#eaeef2"/>')
        label = readable(Decimal(str(round(value, 6))))
        parts.append(f'<text x="{LEFT - 6}" y="{at + 4:.1f}" text-anchor="end" font-size="11">{label}</text>')
    for when, anchor in ((start, "start"), (end, "end")):
        parts.append(
            f'<text x="{x(when):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="{anchor}" font-size="11">'
            f"{when:%Y-%m-%d}</text>"
        )
    for n, (label, steps) in enumerate(lines):
        color = COLORS[n % len(COLORS)]
        points: list[str] = []
        dots: list[str] = []
        for i, (begins, ends, value) in enumerate(steps):
            points += [f"{x(begins):.1f},{y(value):.1f}", f"{x(ends or end):.1f},{y(value):.1f}"]
            if i:
                dots.append(f'<circle cx="{x(begins):.1f}" cy="{y(value):.1f}" r="3" fill="{color}"/>')
        parts.append(
            f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{" ".join(points)}">'
            f"<title>{escape(label)}</title></polyline>"
        )
        parts += dots
    parts.append("</svg>")
    legend = "".join(
        f'<li><svg width="14" height="14" aria-hidden="true"><rect width="14" height="14" fill="{COLORS[n]}"/></svg> '
        f"{escape(label)}: {readable(Decimal(str(round(steps[-1][2], 6))))}</li>"
        for n, (label, steps) in enumerate(lines)
    )
    return f'<figure class="chart">{"".join(parts)}<ul class="legend">{legend}</ul></figure>'
