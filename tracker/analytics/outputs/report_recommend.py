"""The report's recommendation section: the ten best options for a default
need (one GPU, always on, for three years), from `recommend`
(read by `tracker.answers.report`)."""

from __future__ import annotations

from tracker.analytics.outputs.report_html import Column, ReportData, Section, html_table, money


def recommendation(data: ReportData) -> Section:
    """The best options, or the one sentence that says why there are none."""
    needs, rows, empty = data.needs, data.recommended, data.recommend_empty
    what = (
        f"{needs.gpus:f} GPU(s), {needs.workload}, {needs.hours_per_month:f} h/month for {needs.months} months, "
        "offers open to everyone counted"
    )
    table = html_table(
        rows,
        [
            Column("rank", "#", True),
            Column("provider", "provider"),
            Column("region", "region"),
            Column("instance_type", "instance"),
            Column("gpu_model", "GPU"),
            Column("instances", "instances", True),
            Column("mix", "price model"),
            Column("credits", "credits", True, show=lambda r: money(r.get("credits"))),
            Column("total", f"total {needs.currency}", True, show=lambda r: money(r.get("total"))),
            Column("per_gpu_hour", "per GPU-hour", True, show=lambda r: money(r.get("per_gpu_hour"))),
            Column("why", "why", wrap=True),
        ],
        empty=empty,
    )
    return Section("recommendation", f"Recommendation: {what}", f'<div class="scroll">{table}</div>')


def suspect_table(data: ReportData) -> Section | None:
    """The prices held as suspect (far from their market), left out of every
    ranking above; no section when there are none."""
    rows = data.held
    if not rows:
        return None
    body = html_table(
        rows,
        [
            Column("provider", "provider"),
            Column("region", "region"),
            Column("instance_type", "instance"),
            Column("gpu_model", "GPU"),
            Column("price_model", "price model"),
            Column("price", "price", True, show=lambda r: f"{money(r['price'])} {r['currency']}/{r['unit']}"),
            Column("reason", "why it is held", wrap=True),
        ],
        empty="none",
        row_class=lambda r: "bad",
    )
    note = "<p>Left out of the cheapest prices and the recommendation above (docs/usage.md, suspect prices).</p>"
    return Section("suspect", "Prices held as suspect", note + body)
