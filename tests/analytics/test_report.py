"""`gpu-tracker report`: one self-contained HTML page, its sections in order,
provider text escaped, numbers at a precision a person reads; and the
formatting helpers on their own."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path

from tests.helpers.report_data import HOSTILE, HOSTILE_ESCAPED, add_offers, load_prices
from tracker.analytics.outputs.report_html import change_text, gpu_count, money, offer_value, percent, rate, rate_label


class _Structure(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.sections: list[str] = []
        self.links: list[str] = []
        self.sources: list[str] = []
        self.script_src: list[str] = []
        self.csp = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        found = dict(attrs)
        if tag == "section":
            self.sections.append(found["id"] or "")
        if tag == "a":
            self.links.append(found.get("href") or "")
        if "src" in found:
            self.sources.append(found["src"] or "")
        if tag == "meta" and found.get("http-equiv") == "Content-Security-Policy":
            self.csp = found["content"] or ""


def test_report_is_one_self_contained_escaped_page(cli, db_url: str, tmp_path: Path) -> None:
    load_prices(cli, tmp_path)
    add_offers(db_url)
    out = tmp_path / "report.html"
    result = cli("report", "--out", str(out), "--days", "100000")
    assert result.code == 0, result.err
    html = out.read_text(encoding="utf-8")
    page = _Structure()
    page.feed(html)
    # The made-up H100 at 5 USD for 8 GPUs is far below its typical price: held, in its own section.
    assert page.sections == [
        "summary",
        "history",
        "cheapest",
        "changes",
        "offers",
        "recommendation",
        "suspect",
        "health",
    ]
    assert page.tags.count("table") >= 5 and page.tags.count("script") == 1 and "link" not in page.tags
    # Nothing is fetched: the two charts are inline SVG, the policy forbids the rest.
    assert page.sources == [] and html.count('<svg class="chart"') == 2
    assert "USD per GPU-hour</text>" in html and "<polyline" in html
    assert page.csp.startswith("default-src 'none'; img-src data:;") and "script-src 'sha256-" in page.csp
    # Links go to this page's sections or to a provider's https page, never to javascript:.
    assert set(page.links) == {f"#{s}" for s in page.sections} | {"https://cloud.google.com/free"}
    assert HOSTILE not in html and html.count(HOSTILE_ESCAPED) >= 3  # price row, change, offer
    assert "javascript:" not in html
    assert "price drop" in html and "mycorp" in html
    # The tencent row is in CNY; its rate is shown once, to four figures, with its date.
    assert re.search(r"1 CNY = 0\.\d{1,4} USD \(rate of \d{4}-\d\d-\d\d\)", html)
    assert "55.04 → 50.00 USD/hour (−9.2%)" in html
    assert "300 CNY off a spend of 1,000" in html


def test_report_on_an_empty_store(sqlite_cli, tmp_path: Path) -> None:
    out = tmp_path / "empty.html"
    assert sqlite_cli("report", "--out", str(out)).code == 0
    html = out.read_text(encoding="utf-8")
    assert "no prices with GPU details yet" in html and "no price history to chart yet" in html


def test_report_to_an_unwritable_place(sqlite_cli, tmp_path: Path) -> None:
    result = sqlite_cli("report", "--out", str(tmp_path / "missing" / "report.html"))
    assert result.code == 1 and "cannot write it" in result.err and "Traceback" not in result.err


def test_numbers_at_a_readable_precision() -> None:
    assert [money(Decimal(v)) for v in ("15032.0", "8.44", "0.264264", "0.053777", "0.0012345", "0")] == [
        "15,032.00",
        "8.440",
        "0.2643",
        "0.0538",
        "0.001234",
        "0",
    ]
    assert [rate(Decimal(v)) for v in ("0.14084507042253521126760563", "7.1", "100", "25380.2")] == [
        "0.1408",
        "7.1",
        "100",
        "25,380",
    ]
    assert rate_label("CNY", "USD", Decimal("0.14084507042253521126760563"), "2026-11-30") == (
        "1 CNY = 0.1408 USD (rate of 2026-11-30)"
    )
    assert [gpu_count(Decimal(1) / Decimal(6)), gpu_count(Decimal("0.125")), gpu_count(Decimal(8))] == [
        "1/6",
        "1/8",
        "8",
    ]
    assert (percent(Decimal("-10.00")), percent(Decimal("3.25"))) == ("−10.0%", "+3.2%")


def test_changes_and_offers_in_words() -> None:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    drop = {
        "kind": "price_drop",
        "old_price": Decimal("18.8"),
        "new_price": Decimal("16.92"),
        "percent": Decimal("-10.00"),
        "currency": "CNY",
        "unit": "hour",
        "detail": {},
        "observed_at": at,
    }
    assert change_text(drop) == "18.80 → 16.92 CNY/hour (−10.0%)"
    sold = drop | {
        "kind": "availability_changed",
        "old_price": Decimal(5),
        "new_price": Decimal(5),
        "detail": {"old_availability": "available", "new_availability": "sold_out"},
    }
    assert change_text(sold) == "available → sold out"
    assert change_text(drop | {"kind": "new_sku", "old_price": None}) == "listed at 16.92 CNY/hour"
    assert offer_value({"amount": Decimal(300), "currency": "USD"}) == "300 USD"
    assert offer_value({"percent_off": Decimal(70)}) == "70% off"
    assert offer_value({"amount": Decimal(500), "currency": "CNY", "min_spend": Decimal(10000)}) == (
        "500 CNY off a spend of 10,000"
    )
