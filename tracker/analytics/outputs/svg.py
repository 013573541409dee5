"""A price history chart drawn as SVG, for the report and the dashboard:
step lines (the price in force), dots where it changed, a gap where a price
was not listed. No script and no style attribute: it passes a strict
Content-Security-Policy, needs no plotting library, and prints as it shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from html import escape

from db.money import readable

WIDTH, HEIGHT = 760, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 40
COLORS = ("#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a")
# (valid_from, valid_to or None, value) per interval, oldest first.
Steps = list[tuple[datetime, datetime | None, float]]


def _number(value: float) -> str:
    return readable(Decimal(str(round(value, 6))))


def svg_chart(
    lines: Sequence[tuple[str, Steps]], *, title: str, unit: str = "", now: datetime | None = None, caption: str = ""
) -> str:
    """The chart as an inline <figure> (the <svg>, its legend, `caption`), or '' with nothing to draw."""
    lines = [(label, steps) for label, steps in lines if steps]
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
        parts.append(f'<text x="{LEFT - 6}" y="{at + 4:.1f}" text-anchor="end" font-size="11">{_number(value)}</text>')
    if unit:
        parts.append(
            f'<text x="12" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" font-size="11" '
            f'transform="rotate(-90 12 {TOP + plot_h / 2:.1f})">{escape(unit)}</text>'
        )
    for when, anchor in ((start, "start"), (end, "end")):
        parts.append(
            f'<text x="{x(when):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="{anchor}" font-size="11">'
            f"{when:%Y-%m-%d}</text>"
        )
    for n, (label, steps) in enumerate(lines):
        color = COLORS[n % len(COLORS)]
        runs: list[list[str]] = [[]]
        dots: list[str] = []
        for i, (begins, ends, value) in enumerate(steps):
            if i and steps[i - 1][1] is not None and steps[i - 1][1] != begins:
                runs.append([])  # not listed in between: a gap
            runs[-1] += [f"{x(begins):.1f},{y(value):.1f}", f"{x(ends or end):.1f},{y(value):.1f}"]
            if i:
                dots.append(f'<circle cx="{x(begins):.1f}" cy="{y(value):.1f}" r="3" fill="{color}"/>')
        for points in runs:
            parts.append(
                f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{" ".join(points)}">'
                f"<title>{escape(label)}</title></polyline>"
            )
        parts += dots
    parts.append("</svg>")
    legend = "".join(
        f'<li><svg width="14" height="14" aria-hidden="true"><rect width="14" height="14" '
        f'fill="{COLORS[n % len(COLORS)]}"/></svg> {escape(label)}: {_number(steps[-1][2])}</li>'
        for n, (label, steps) in enumerate(lines)
    )
    below = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return f'<figure class="chart">{"".join(parts)}<ul class="legend">{legend}</ul>{below}</figure>'
