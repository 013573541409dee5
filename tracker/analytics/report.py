"""One static HTML page of the store: the cheapest price per GPU model,
recent changes, active offers, a chart and source health.

It makes no requests: the CSS is inline and the chart an inline base64 PNG.
Every text that comes from a provider or the store is escaped.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from html import escape
from typing import Any

import pandas as pd
import sqlalchemy as sa

from tracker.analytics.compare import compare_frame
from tracker.analytics.history import changes_frame, history_frame, offers_frame, prices_frame, records, source_health
from tracker.analytics.plot import build_series, render_png
from tracker.analytics.recommend import Needs, recommend
from tracker.analytics.reference import References
from tracker.errors import UserError

MODEL_CLASSES = {
    "on_demand": "on demand",
    "spot": "spot",
    "low_priority": "spot",
    "reserved": "committed",
    "savings_plan": "committed",
    "monthly": "committed",
    "yearly": "committed",
}
CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1200px;
color:#1d2330;background:#f7f8fa;padding:0 1rem}
h1{font-size:1.6rem;margin:0 0 .2rem}h2{font-size:1.15rem;margin:2rem 0 .6rem;border-bottom:2px solid #3b6fd8;
padding-bottom:.2rem}
.meta{color:#5b6475;margin:0 0 1rem}
table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 1px 2px rgba(0,0,0,.08)}
th,td{padding:.35rem .55rem;border-bottom:1px solid #e3e6eb;text-align:left;vertical-align:top}
th{background:#eef2fa;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
.drop{color:#11803a}.rise{color:#b3261e}.bad{color:#b3261e;font-weight:600}.ok{color:#11803a;font-weight:600}
.scroll{overflow-x:auto}.empty{color:#5b6475;font-style:italic}figure{margin:0;background:#fff;padding:.5rem}
figure img{max-width:100%;height:auto}figcaption{color:#5b6475;font-size:.9em}
"""


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    numeric: bool = False


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if isinstance(value, dict):
        return "; ".join(f"{k}: {v}" for k, v in sorted(value.items()))
    if isinstance(value, Decimal):  # a 1/6 GPU slice is stored to 28 places; 6 are plenty to read
        return format(value.quantize(Decimal("0.000001")).normalize() if value.as_tuple().exponent < -6 else value, "f")
    return str(value)


def html_table(rows: Sequence[dict[str, Any]], columns: Sequence[Column], *, empty: str, row_class: Any = None) -> str:
    if not rows:
        return f'<p class="empty">{escape(empty)}</p>'
    head = "".join(f"<th>{escape(c.title)}</th>" for c in columns)
    body = []
    for row in rows:
        css = row_class(row) if row_class else ""
        cells = "".join(f"<td{' class=num' if c.numeric else ''}>{escape(_text(row.get(c.key)))}</td>" for c in columns)
        body.append(f"<tr{f' class={css}' if css else ''}>{cells}</tr>")
    return f"<div class=scroll><table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"


def cheapest_per_gpu(prices: pd.DataFrame, refs: References, currency: str) -> list[dict[str, Any]]:
    """Per GPU model and kind of price (on demand, spot, committed): the cheapest per GPU-hour."""
    ranked = compare_frame(prices, refs, currency=currency)
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for row in records(ranked):
        if not row["gpu_model"]:
            continue
        slot = (row["gpu_model"], MODEL_CLASSES.get(row["price_model"], row["price_model"]))
        best.setdefault(slot, row | {"kind": slot[1]})  # ranked cheapest first
    return [best[k] for k in sorted(best)]


def _change_class(row: dict[str, Any]) -> str:
    return {"price_drop": "drop", "price_increase": "rise", "source_broken": "bad"}.get(row["kind"], "")


def _chart(engine: sa.Engine, refs: References, cheapest: list[dict[str, Any]], currency: str, now: datetime) -> str:
    """A history chart of the cheapest on-demand price of each GPU model (up to 8)."""
    on_demand = [r for r in cheapest if r["kind"] == "on demand"][:8]
    frames = [
        history_frame(
            engine,
            instance_type=r["instance_type"],
            provider=r["provider"],
            region=r["region"],
            price_model="on_demand",
        )
        for r in on_demand
    ]
    frames = [f[f["os"] == "linux"] for f in frames if not f.empty]
    if not frames:
        return '<p class="empty">no price history to chart yet</p>'
    series = build_series(pd.concat(frames, ignore_index=True), refs, currency=currency)
    png = render_png(
        series,
        title="Cheapest on-demand price per GPU model",
        unit=f"{currency} per GPU-hour",
        now=now,
        width=11,
        height=5,
    )
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<figure><img alt="price history chart" src="data:image/png;base64,{data}">'
        f"<figcaption>Step lines: the price in force; dots: a change. {escape(currency)} per GPU-hour."
        "</figcaption></figure>"
    )


def recommendation_section(prices: pd.DataFrame, offers: pd.DataFrame, refs: References, needs: Needs) -> str:
    """The ten best options for `needs` (by default one GPU, always on, for
    three years), or the one sentence that says why there are none."""
    try:
        rows = records(recommend(prices, offers, refs, needs).head(10))
        empty = "no option"
    except UserError as exc:
        rows, empty = [], str(exc)
    what = (
        f"{needs.gpus:f} GPU(s), {needs.workload}, {needs.hours_per_month:f} h/month for {needs.months} months, "
        "offers open to everyone counted"
    )
    return f"<h2>Recommendation: {escape(what)}</h2>" + html_table(
        rows,
        [
            Column("rank", "#", True),
            Column("provider", "provider"),
            Column("region", "region"),
            Column("instance_type", "instance"),
            Column("gpu_model", "GPU"),
            Column("instances", "instances", True),
            Column("mix", "price model"),
            Column("credits", "credits", True),
            Column("total", f"total {needs.currency}", True),
            Column("per_gpu_hour", "per GPU-hour", True),
            Column("why", "why"),
        ],
        empty=empty,
    )


def build_report(
    engine: sa.Engine,
    refs: References,
    *,
    currency: str = "USD",
    days: int = 30,
    now: datetime | None = None,
    needs: Needs | None = None,
) -> str:
    now = now or datetime.now(UTC)
    prices = prices_frame(engine)
    cheapest = cheapest_per_gpu(prices, refs, currency)
    changes = changes_frame(engine, since=now - timedelta(days=days))
    recent = list(reversed(records(changes)))[:100]
    offers = offers_frame(engine)
    health = records(source_health(engine))
    sections = [
        "<h2>Cheapest per GPU model</h2>"
        + html_table(
            cheapest,
            [
                Column("gpu_model", "GPU"),
                Column("kind", "price"),
                Column("per_gpu_hour_converted", f"{currency} / GPU-hour", True),
                Column("provider", "provider"),
                Column("region", "region"),
                Column("instance_type", "instance"),
                Column("gpu_count", "GPUs", True),
                Column("price_model", "model"),
                Column("term", "term"),
                Column("price", "price", True),
                Column("currency", "cur."),
                Column("unit", "per"),
                *([Column("fx", "rate used")] if any(r.get("fx") for r in cheapest) else []),
            ],
            empty="no prices with GPU details yet",
        ),
        "<h2>Price history</h2>" + _chart(engine, refs, cheapest, currency, now),
        f"<h2>Changes in the last {days} days</h2>"
        + html_table(
            recent,
            [
                Column("observed_at", "when"),
                Column("kind", "kind"),
                Column("provider", "provider"),
                Column("region", "region"),
                Column("instance_type", "instance"),
                Column("price_model", "model"),
                Column("old_price", "old", True),
                Column("new_price", "new", True),
                Column("percent", "%", True),
                Column("currency", "cur."),
                Column("detail", "detail"),
            ],
            empty="no changes recorded",
            row_class=_change_class,
        ),
    ]
    if not offers.empty or sa.inspect(engine).has_table("offers"):
        offer_columns = [
            Column(c, c.replace("_", " "))
            for c in (
                "provider",
                "kind",
                "title",
                "amount",
                "currency",
                "percent_off",
                "min_spend",
                "valid_until",
                "eligibility",
            )
            if c in offers.columns
        ]
        sections.append("<h2>Active offers</h2>" + html_table(records(offers), offer_columns, empty="no active offers"))
    sections.append(recommendation_section(prices, offers, refs, needs or Needs(currency=currency)))
    sections.append(
        "<h2>Source health</h2>"
        + html_table(
            health,
            [
                Column("source", "source"),
                Column("status", "last run"),
                Column("last_run_at", "when"),
                Column("last_ok_at", "last good data"),
                Column("failures_since_ok", "failures since", True),
                Column("error", "error"),
            ],
            empty="no runs yet",
            row_class=lambda r: "bad" if r["status"] != "ok" else "",
        )
    )
    rates = sorted({r["fx"] for r in cheapest if r.get("fx")})
    fx_note = f" Converted with {escape('; '.join(rates))}." if rates else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>GPU prices — {escape(now.strftime('%Y-%m-%d'))}</title><style>{CSS}</style></head><body>"
        f'<h1>GPU prices</h1><p class="meta">Generated {escape(_text(now))} by gpu-tracker. '
        f"Prices per GPU-hour in {escape(currency)}; monthly and yearly prices as effective hourly rates "
        f"(720 and 8,760 hours).{fx_note}</p>" + "".join(sections) + "</body></html>\n"
    )
