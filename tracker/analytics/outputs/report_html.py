"""The HTML pieces of the report: what its sections are built from
(`ReportData`), numbers, changes and offers in words a person reads, sortable
tables, summary cards and the page around the sections.

Everything that comes from a provider or the store goes through `escape`.
The page's only script sorts tables; a Content-Security-Policy with its hash
lets that script run and nothing else, and forbids every network request.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracker.analytics.facts.reference import References
    from tracker.analytics.outputs.series import Series
    from tracker.analytics.recommend import Needs

CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC","PingFang SC",
"Microsoft YaHei",sans-serif;margin:0;color:#1d2330;background:#f4f6f9}
main{max-width:1240px;margin:0 auto;padding:1.2rem 1rem 3rem}
header h1{font-size:1.6rem;margin:0 0 .2rem}
.meta{color:#5b6475;margin:0 0 .8rem;overflow-wrap:anywhere}
nav{display:flex;flex-wrap:wrap;gap:.3rem .9rem;margin:0 0 1rem;font-size:.95em}
nav a{color:#2f5fc4;text-decoration:none}nav a:hover{text-decoration:underline}
section{margin:0 0 2rem}
h2{font-size:1.15rem;margin:0 0 .7rem;border-bottom:2px solid #3b6fd8;padding-bottom:.2rem}
h3{font-size:1rem;margin:0 0 .5rem}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,210px),1fr));gap:.8rem;margin:0 0 1rem}
.card,.panel{background:#fff;border-radius:6px;box-shadow:0 1px 3px rgba(0,0,0,.09);padding:.8rem 1rem;min-width:0}
.card .label{color:#5b6475;font-size:.85em;text-transform:uppercase;letter-spacing:.03em}
.card .value{font-size:1.5rem;font-weight:650;margin:.1rem 0}.card .note{color:#5b6475;font-size:.9em}
.split{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1rem;align-items:start}
.stack{display:grid;gap:1rem;min-width:0}
@media (max-width:900px){.split{grid-template-columns:minmax(0,1fr)}}
.scroll{overflow-x:auto;max-width:100%;background:#fff;border-radius:6px;box-shadow:0 1px 3px rgba(0,0,0,.09)}
.panel .scroll{box-shadow:none}
table{border-collapse:collapse;width:100%}
th,td{padding:.35rem .55rem;border-bottom:1px solid #e3e6eb;text-align:left;vertical-align:top;white-space:nowrap}
th{background:#eef2fa;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.wrap{white-space:normal;min-width:14em;max-width:34em;overflow-wrap:anywhere}
th button{all:unset;cursor:pointer}th button:focus-visible{outline:2px solid #3b6fd8}
th[aria-sort=ascending] button::after{content:" \\25B2"}th[aria-sort=descending] button::after{content:" \\25BC"}
.small{display:block;color:#5b6475;font-size:.85em;white-space:normal;overflow-wrap:anywhere;min-width:7em}
.panel td.wrap{min-width:8em}
.drop{color:#11803a}.rise{color:#b3261e}.bad{color:#b3261e;font-weight:600}.ok{color:#11803a;font-weight:600}
.empty{color:#5b6475;font-style:italic}.more{margin:.4rem 0 0;font-size:.9em}
figure{margin:0 0 1rem;background:#fff;padding:.5rem;border-radius:6px;box-shadow:0 1px 3px rgba(0,0,0,.09)}
figcaption{color:#5b6475;font-size:.9em}
a{color:#2f5fc4}
table.sortable tr>:first-child{position:sticky;left:0;background:#fff;z-index:1}
table.sortable thead tr>:first-child{background:#eef2fa}
#cheapest-by-gpu td:first-child{white-space:normal;min-width:5.5em}
@media (max-width:600px){main{padding:.8rem .6rem 2rem}.card,.panel{padding:.6rem .7rem}
th,td{padding:.3rem .4rem}.cards{grid-template-columns:repeat(2,minmax(0,1fr));gap:.5rem}
.card .value{font-size:1.25rem}header h1{font-size:1.35rem}}
.chart{box-shadow:none}
figure.chart{min-width:560px;max-width:960px;margin:0 auto 1rem}svg.chart{width:100%;height:auto;font-family:inherit}
svg.chart text{fill:#5b6475}ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3em 1.2em;font-size:.88em}
"""
# Click a column heading to sort by it; again to reverse. Numbers sort by their
# exact value (data-sort), blanks always last.
SORT_JS = """
for (const th of document.querySelectorAll("table.sortable th")) {
  th.addEventListener("click", () => {
    const table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
    const dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    for (const other of table.tHead.rows[0].cells) other.removeAttribute("aria-sort");
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    const value = (row) => { const cell = row.cells[col]; return cell.dataset.sort ?? cell.textContent.trim(); };
    const numeric = th.classList.contains("num");
    const rows = [...body.rows].sort((a, b) => {
      const x = value(a), y = value(b);
      if (x === "" || y === "") return (x === "") - (y === "");
      const order = numeric ? Number(x) - Number(y) : x.localeCompare(y, undefined, {numeric: true});
      return dir * order;
    });
    body.append(...rows);
  });
}
"""


def _csp() -> str:
    digest = base64.b64encode(hashlib.sha256(SORT_JS.encode()).digest()).decode()
    return f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"


@dataclass(frozen=True)
class Section:
    """One part of the page: an anchor id, a heading and its HTML body."""

    id: str
    title: str
    body: str


@dataclass(frozen=True)
class ReportData:
    """What every section is built from, read from the store once
    (`tracker.answers.report.data`): the page reads nothing more."""

    refs: References
    currency: str
    days: int
    now: datetime
    cheapest: list[dict[str, Any]]  # per GPU model and kind of price, see tracker.answers.report.cheapest
    changes: list[dict[str, Any]]  # of the last `days` days, newest first (the newest 500)
    offers: list[dict[str, Any]] | None  # None: the store keeps no offers
    health: list[dict[str, Any]]
    needs: Needs  # the default need the recommendation answers (one GPU, always on, for three years)
    change_counts: dict[str, int] = field(default_factory=dict)  # of the last `days` days, by kind
    moved: list[dict[str, Any]] = field(default_factory=list)  # the latest move of each price that moved, latest first
    # The price history charted: the cheapest on-demand price of the most offered GPU models, and the moved prices.
    cheapest_lines: list[Series] = field(default_factory=list)
    moved_lines: list[Series] = field(default_factory=list)
    # The recommendation's ten best options, or the sentence that says why there are none.
    recommended: list[dict[str, Any]] = field(default_factory=list)
    recommend_empty: str = "no option"
    held: list[dict[str, Any]] = field(default_factory=list)  # the prices held as suspect


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    numeric: bool = False
    wrap: bool = False  # long free text: wraps instead of widening the table
    show: Callable[[dict[str, Any]], str] | None = None  # the cell's text, when not the value as is
    link: str = ""  # the key of a URL the text links to


def as_decimal(value: Any) -> Decimal | None:
    if value is None or value == "" or (isinstance(value, float) and value != value):
        return None
    return value if isinstance(value, Decimal) else Decimal(str(value))


def money(value: Any) -> str:
    """An amount with as many decimals as its size needs: 15,032.00, 8.440,
    0.2643, 0.053777."""
    amount = as_decimal(value)
    if amount is None:
        return ""
    if amount == 0:
        return "0"
    size = abs(amount)
    places = 2 if size >= 10 else 3 if size >= 1 else 4 if size >= Decimal("0.01") else 6
    return f"{amount:,.{places}f}"


def percent(value: Any) -> str:
    number = as_decimal(value)
    if number is None:
        return ""
    return f"{number:+.1f}%".replace("-", "\u2212")


def rate(value: Any) -> str:
    """An exchange rate to 4 significant digits (0.1408, 7.1, 149.5); large ones whole (25,380)."""
    number = as_decimal(value)
    if number is None:
        return ""
    if number == 0 or abs(number) >= 1000:
        return f"{number:,.0f}"
    places = max(4 - (number.adjusted() + 1), 0)
    return format(number.quantize(Decimal(1).scaleb(-places)).normalize(), "f")


def rate_label(source: str, target: str, value: Any, date: str) -> str:
    when = f" (rate of {date})" if date else ""
    return f"1 {source} = {rate(value)} {target}{when}"


def gpu_count(value: Any) -> str:
    """Whole counts as they are; a slice of a GPU as a fraction (1/6, not 0.1666666667)."""
    count = as_decimal(value)
    if count is None:
        return ""
    if count == count.to_integral_value():
        return str(int(count))
    share = Fraction(count).limit_denominator(64)
    return f"{share.numerator}/{share.denominator}"


def words(value: Any) -> str:
    """on_demand -> on demand."""
    return "" if value is None else str(value).replace("_", " ")


def when(value: Any) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return "" if value is None else str(value)


def text(value: Any) -> str:
    if type(value) is str:  # most cells: nothing to work out
        return value
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, datetime):
        return when(value)
    if isinstance(value, dict):
        return "; ".join(f"{words(k)}: {words(v)}" for k, v in sorted(value.items()))
    if isinstance(value, Decimal):
        return money(value)
    return str(value)


def fx_text(row: dict[str, Any]) -> str:
    if not row.get("fx"):
        return ""
    return rate_label(row["currency"], row["target_currency"], row["fx_rate"], row["fx_date"])


def change_text(row: dict[str, Any]) -> str:
    """What changed, in words and numbers: 18.80 → 16.92 CNY/hour (−10.0%), sold out → available."""
    per = {"gb": "GB", "gb_month": "GB-month"}.get(str(row.get("unit")), row.get("unit") or "")  # side costs' units
    old, new, unit = row.get("old_price"), row.get("new_price"), f"{row.get('currency') or ''}/{per}"
    detail = row.get("detail") or {}
    if old is not None and new is not None and old != new:
        change = f" ({percent(row['percent'])})" if row.get("percent") is not None else ""
        return f"{money(old)} → {money(new)} {unit}{change}"
    if "old_availability" in detail or "new_availability" in detail:
        return f"{words(detail.get('old_availability'))} → {words(detail.get('new_availability'))}"
    if row["kind"] == "new_sku" and new is not None:
        return f"listed at {money(new)} {unit}"
    if row["kind"] == "sku_removed" and old is not None:
        return f"no longer listed (was {money(old)} {unit})"
    shown = {k: v for k, v in detail.items() if k not in ("offer_id",)}
    return "; ".join(f"{words(k)}: {words(v)}" for k, v in sorted(shown.items()))


def change_subject(row: dict[str, Any]) -> str:
    where = " ".join(str(row[k]) for k in ("provider", "region", "instance_type") if row.get(k))
    return f"{where} {words(row.get('price_model'))}".strip()


def whole(value: Any) -> str:
    """An offer's round amount without cents: 100,000, not 100,000.00."""
    amount = as_decimal(value)
    if amount is not None and amount == amount.to_integral_value():
        return f"{amount:,.0f}"
    return money(amount)


def offer_value(row: dict[str, Any]) -> str:
    """300 USD; 70% off; 500 CNY off a spend of 10,000."""
    currency = f" {row['currency']}" if row.get("currency") else ""
    parts = []
    if row.get("amount"):
        parts.append(f"{whole(row['amount'])}{currency}")
    if row.get("percent_off"):
        parts.append(f"{whole(row['percent_off'])}% off")
    if row.get("min_spend"):
        parts[-1:] = [f"{parts[-1] if parts else ''} off a spend of {whole(row['min_spend'])}".strip()]
    return "; ".join(parts)


def cell(content: str, *, numeric: bool = False, wrap: bool = False, sort: Any = None) -> str:
    """A <td> around already-escaped content; `sort` is the exact value a numeric column sorts by."""
    return f"{_td(numeric, wrap)}{_sort(sort)}>{content}</td>"


def _sort(value: Any) -> str:
    """A numeric cell's exact sort value as its attribute; nothing for none."""
    return f' data-sort="{escape(str(value))}"' if value is not None else ""


def _td(numeric: bool, wrap: bool) -> str:
    """A cell's opening, short of its sort value and `>`."""
    classes = " ".join(c for c, on in (("num", numeric), ("wrap", wrap)) if on)
    return f'<td class="{classes}"' if classes else "<td"


def html_table(
    rows: Sequence[dict[str, Any]],
    columns: Sequence[Column],
    *,
    empty: str,
    row_class: Callable[[dict[str, Any]], str] | None = None,
) -> str:
    """A table that sorts on a click on its headings, in a box that scrolls
    sideways on its own rather than widening the page."""
    if not rows:
        return f'<p class="empty">{escape(empty)}</p>'
    head = "".join(
        f'<th{" class=num" if c.numeric else ""}><button type="button">{escape(c.title)}</button></th>' for c in columns
    )
    # What each column's cells share, worked out once: a table of the
    # report can hold tens of thousands of rows (the prices held as suspect).
    plan = [(c.key, c.show, c.numeric, c.link, _td(c.numeric, c.wrap)) for c in columns]
    body = []
    for row in rows:
        cells = []
        for key, show, numeric, link, td in plan:
            raw = row.get(key)
            content = escape(show(row) if show else text(raw))
            if link:
                url = str(row.get(link) or "")
                if url.startswith(("https://", "http://")):  # never javascript: or data: from a page
                    content = f'<a href="{escape(url)}" rel="noopener noreferrer">{content}</a>'
            exact = as_decimal(raw) if numeric and isinstance(raw, (Decimal, int, float)) else None
            cells.append(f"{td}{_sort(exact)}>{content}</td>")
        css = row_class(row) if row_class else ""
        body.append(f"<tr{f' class={css}' if css else ''}>{''.join(cells)}</tr>")
    return (
        f'<div class="scroll"><table class="sortable"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def card(label: str, value: str, note: str = "", *, css: str = "") -> str:
    return (
        f'<div class="card"><div class="label">{escape(label)}</div>'
        f'<div class="value{f" {css}" if css else ""}">{escape(value)}</div>'
        f'<div class="note">{escape(note)}</div></div>'
    )


def page(*, title: str, meta: str, sections: Sequence[Section]) -> str:
    """The whole document; `meta` is already escaped."""
    nav = "".join(f'<a href="#{escape(s.id)}">{escape(s.title)}</a>' for s in sections)
    body = "".join(f'<section id="{escape(s.id)}"><h2>{escape(s.title)}</h2>{s.body}</section>' for s in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_csp()}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body><main>"
        f'<header><h1>GPU prices</h1><p class="meta">{meta}</p><nav>{nav}</nav></header>'
        f"{body}</main><script>{SORT_JS}</script></body></html>\n"
    )
