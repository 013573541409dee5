"""One static HTML page of the store that reads like a dashboard: a summary
first (cheapest price per GPU model, recent changes, current offers), charts
of price history, then sortable detail tables and source health.

It makes no requests: CSS and script are inline, the charts inline SVG.
The page is a list of sections (`SECTIONS`), each built from one `ReportData`
(what `tracker.answers.report.data` read: rendering reads nothing more);
a new part of the report is one more builder in that list.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from tracker.analytics.outputs.report_html import (
    Column,
    ReportData,
    Section,
    as_decimal,
    card,
    cell,
    change_subject,
    change_text,
    fx_text,
    gpu_count,
    html_table,
    money,
    offer_value,
    page,
    percent,
    text,
    when,
    whole,
    words,
)
from tracker.analytics.outputs.report_recommend import recommendation, suspect_table
from tracker.analytics.outputs.series import Series
from tracker.analytics.outputs.svg import svg_chart

KINDS = ("on demand", "spot", "committed")
CHART_SERIES = 8
SUMMARY_ROWS = 8
CHANGE_ROWS = 500  # the newest changes the report lists


def _change_class(row: dict[str, Any]) -> str:
    return {"price_drop": "drop", "price_increase": "rise", "source_broken": "bad"}.get(row["kind"], "")


def _cards(data: ReportData) -> str:
    models = {r["gpu_model"] for r in data.cheapest}
    providers = {r["provider"] for r in data.cheapest}
    drops = data.change_counts.get("price_drop", 0)
    rises = data.change_counts.get("price_increase", 0)
    total = sum(data.change_counts.values())
    failing = [h["source"] for h in data.health if h["status"] != "ok"]
    cards = [
        card("GPU models priced", str(len(models)), f"from {len(providers)} providers"),
        card(f"Changes in {data.days} days", str(total), f"{drops} price drops, {rises} rises"),
    ]
    if data.offers is not None:
        offering = {o["provider"] for o in data.offers}
        cards.append(card("Active offers", str(len(data.offers)), f"from {len(offering)} providers"))
    cards.append(
        card(
            "Sources failing" if failing else "Sources",
            str(len(failing)) if failing else f"{len(data.health)} ok",
            ", ".join(failing) if failing else "every last run succeeded",
            css="bad" if failing else "ok",
        )
    )
    return f'<div class="cards">{"".join(cards)}</div>'


def _pivot(data: ReportData) -> str:
    """One row per GPU model: its cheapest on-demand, spot and committed price per GPU-hour."""
    by_model: dict[str, dict[str, dict[str, Any]]] = {}
    for row in data.cheapest:
        by_model.setdefault(row["gpu_model"], {})[row["kind"]] = row
    if not by_model:
        return '<p class="empty">no prices with GPU details yet</p>'
    head = '<th><button type="button">GPU</button></th>' + "".join(
        f'<th class="num"><button type="button">{k}</button></th>' for k in KINDS
    )
    body = []
    for model, kinds in sorted(by_model.items()):
        cells = [cell(escape(model))]
        for kind in KINDS:
            best = kinds.get(kind)
            if best is None:
                cells.append(cell("", numeric=True))
                continue
            who = f"{best['provider']} {best['instance_type']}" + (f" {best['term']}" if best.get("term") else "")
            cells.append(
                cell(
                    f'{escape(money(best["per_gpu_hour_converted"]))}<span class="small">{escape(who)}</span>',
                    numeric=True,
                    sort=best["per_gpu_hour_converted"],
                )
            )
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="scroll"><table class="sortable" id="cheapest-by-gpu"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _recent(data: ReportData) -> str:
    rows = data.changes[:SUMMARY_ROWS]
    table = html_table(
        rows,
        [
            Column("observed_at", "when", show=lambda r: when(r["observed_at"])[:10]),
            Column("instance_type", "what", wrap=True, show=change_subject),
            Column("kind", "change", wrap=True, show=lambda r: change_text(r) or words(r["kind"])),
        ],
        empty=f"no changes in the last {data.days} days",
        row_class=_change_class,
    )
    total = sum(data.change_counts.values())
    more = f'<p class="more"><a href="#changes">all {total} changes</a></p>' if total > SUMMARY_ROWS else ""
    return f'<div class="panel"><h3>Recent changes</h3>{table}{more}</div>'


def _current_offers(data: ReportData) -> str:
    if data.offers is None:
        return ""
    valued = sorted(
        (o for o in data.offers if offer_value(o)),
        key=lambda o: (-(as_decimal(o.get("amount")) or 0), o["provider"]),
    )
    table = html_table(
        valued[:SUMMARY_ROWS],
        [
            Column("provider", "provider"),
            Column("title", "offer", wrap=True, link="source_url"),
            Column("amount", "worth", wrap=True, show=offer_value),
        ],
        empty="no active offers",
    )
    more = f'<p class="more"><a href="#offers">all {len(data.offers)} offers</a></p>' if data.offers else ""
    return f'<div class="panel"><h3>Current offers</h3>{table}{more}</div>'


def summary(data: ReportData) -> Section:
    pivot = (
        f'<div class="panel"><h3>Cheapest per GPU model, {escape(data.currency)} per GPU-hour</h3>{_pivot(data)}</div>'
    )
    side = f'<div class="stack">{_recent(data)}{_current_offers(data)}</div>'
    return Section("summary", "Summary", _cards(data) + f'<div class="split">{pivot}{side}</div>')


def _figure(series: list[Series], title: str, caption: str, data: ReportData) -> str:
    # The rates are in the page header, once; drawn as SVG, no plotting library loaded.
    lines = [(s.label, s.steps) for s in series]
    chart = svg_chart(lines, title=title, unit=f"{data.currency} per GPU-hour", now=data.now, caption=caption)
    # On a phone the chart keeps a readable size and scrolls sideways in its own box.
    return f'<div class="scroll">{chart}</div>'


def charts(data: ReportData) -> Section:
    figures = []
    step = "Step lines: the price in force; dots: a change."
    if lines := data.cheapest_lines:
        figures.append(_figure(lines, "Cheapest on-demand price per GPU model", step, data))
    if moved := data.moved_lines:
        figures.append(_figure(moved, f"Prices that moved in the last {data.days} days", step, data))
    body = "".join(figures) or '<p class="empty">no price history to chart yet</p>'
    return Section("history", "Price history", body)


def _filled(rows: list[dict[str, Any]], columns: list[Column]) -> list[Column]:
    """The columns that show something other than blank or 0 in some row: no column of blanks."""

    def shown(column: Column, row: dict[str, Any]) -> str:
        return column.show(row) if column.show else text(row.get(column.key))

    return [c for c in columns if any(shown(c, r) not in ("", "0") for r in rows)]


def cheapest_table(data: ReportData) -> Section:
    columns = [
        Column("gpu_model", "GPU"),
        Column("kind", "price"),
        Column(
            "per_gpu_hour_converted",
            f"{data.currency} / GPU-hour",
            True,
            show=lambda r: money(r["per_gpu_hour_converted"]),
        ),
        Column("provider", "provider"),
        Column("region", "region"),
        Column("instance_type", "instance"),
        Column("gpu_count", "GPUs", True, show=lambda r: gpu_count(r["gpu_count"])),
        Column("price_model", "model", show=lambda r: words(r["price_model"])),
        Column("term", "term"),
        Column("payment_option", "payment", show=lambda r: words(r.get("payment_option"))),
        Column("price", "price", True, show=lambda r: money(r["price"])),
        Column("upfront_fee", "upfront", True, show=lambda r: money(r.get("upfront_fee"))),
        Column("currency", "cur."),
        Column("unit", "per"),
    ]
    columns.append(Column("fx", "rate used", show=fx_text))
    body = html_table(data.cheapest, _filled(data.cheapest, columns), empty="no prices with GPU details yet")
    return Section("cheapest", "Cheapest prices in detail", body)


def changes_table(data: ReportData) -> Section:
    body = html_table(
        data.changes[:CHANGE_ROWS],
        [
            Column("observed_at", "when", show=lambda r: when(r["observed_at"])),
            Column("kind", "kind", show=lambda r: words(r["kind"])),
            Column("provider", "provider"),
            Column("region", "region"),
            Column("instance_type", "instance"),
            Column("price_model", "model", show=lambda r: words(r["price_model"])),
            Column("percent", "%", True, show=lambda r: percent(r.get("percent"))),
            Column("detail", "change", wrap=True, show=change_text),
        ],
        empty="no changes recorded",
        row_class=_change_class,
    )
    return Section("changes", f"Changes in the last {data.days} days", body)


def offers_table(data: ReportData) -> Section | None:
    if data.offers is None:
        return None
    columns = _filled(
        data.offers,
        [
            Column("provider", "provider"),
            Column("kind", "kind", show=lambda r: words(r["kind"])),
            Column("title", "title", wrap=True, link="source_url"),
            Column("amount", "worth", show=offer_value),
            Column("duration_days", "days", True, show=lambda r: whole(r.get("duration_days"))),
            Column("offer_valid_until", "until", show=lambda r: when(r.get("offer_valid_until"))[:10]),
            Column("eligibility", "for", show=lambda r: words(r.get("eligibility"))),
        ],
    )
    body = html_table(data.offers, columns, empty="no active offers")
    return Section("offers", "Active offers", body)


def health_table(data: ReportData) -> Section:
    body = html_table(
        data.health,
        [
            Column("source", "source"),
            Column("status", "last run"),
            Column("last_run_at", "when"),
            Column("last_ok_at", "last good data"),
            Column("failures_since_ok", "failures since", True),
            Column("error", "error", wrap=True),
        ],
        empty="no runs yet",
        row_class=lambda r: "bad" if r["status"] != "ok" else "",
    )
    return Section("health", "Source health", body)


SECTIONS: list[Callable[[ReportData], Section | None]] = [
    summary,
    charts,
    cheapest_table,
    changes_table,
    offers_table,
    recommendation,
    suspect_table,
    health_table,
]


def render(data: ReportData) -> str:
    """The page of what `tracker.answers.report.data` read (it reads nothing more)."""
    sections = [s for s in (build(data) for build in SECTIONS) if s is not None]
    rates = sorted({fx_text(r) for r in data.cheapest if r.get("fx")})
    fx_note = f" Converted with {'; '.join(rates)}." if rates else ""
    meta = (
        f"Generated {when(data.now)} by gpu-tracker. Prices per GPU-hour in {data.currency}; monthly and yearly "
        f"prices as effective hourly rates (720 and 8,760 hours).{fx_note}"
    )
    return page(title=f"GPU prices — {data.now:%Y-%m-%d}", meta=escape(meta), sections=sections)
