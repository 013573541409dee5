"""The report in headless Chromium, as a person would open it: at a desktop
and a phone width nothing runs past the page edge (wide tables scroll in
their own box), the summary comes first, a click on a column heading sorts
the table, and the page asks for nothing but itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

from spiders.crawling.runner import BROWSER_ARGS
from tests.helpers.report_data import LONG_TITLE, add_offers, load_prices
from tracker.config.settings import CrawlSettings

# The launch arguments that work in containers (see the STACK notes): the crawler's own.
CHROMIUM_ARGS = BROWSER_ARGS
CHROMIUM = CrawlSettings().browser_path
BROWSER = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")

# Every element outside a sideways-scrolling box, that sticks out of the viewport.
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth, out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.closest(".scroll");
    if (box && box !== el) continue;
    if (el === box && getComputedStyle(el).overflowX !== "auto") out.push("a .scroll box that does not scroll");
    const r = el.getBoundingClientRect();
    if (r.width && (r.left < -1 || r.right > width + 1)) out.push(`${el.tagName}.${el.className} ${r.left}..${r.right}`);
  }
  return {out, page: document.documentElement.scrollWidth, width};
}"""
COLUMN_JS = """(table) => {
  const col = [...table.tHead.rows[0].cells].findIndex((th) => th.getAttribute("aria-sort"));
  return [...table.tBodies[0].rows].map((row) => row.cells[col].dataset.sort ?? row.cells[col].textContent.trim());
}"""

pytestmark = pytest.mark.skipif(BROWSER is None, reason="Chromium is not installed (apt-get install chromium)")


def _not_blank(path: Path) -> None:
    rgb = image.imread(path)[..., :3].reshape(-1, 3)
    assert rgb.std() > 0.05 and len(np.unique((rgb * 255).astype(np.uint8), axis=0)) > 20


@pytest.mark.slow
def test_report_layout_in_chromium(sqlite_cli, home: Path, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    load_prices(sqlite_cli, tmp_path)
    add_offers(f"sqlite:///{home / 'tracker.db'}")
    out = tmp_path / "report.html"
    assert sqlite_cli("report", "--out", str(out), "--days", "100000").code == 0
    requested: list[str] = []
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=BROWSER, args=CHROMIUM_ARGS)
        try:
            for width in (1280, 390):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.on("request", lambda r: requested.append(r.url))
                page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e: problems.append(str(e)))
                page.goto(out.as_uri())
                assert page.title().startswith("GPU prices")

                layout = page.evaluate(OVERFLOW_JS)
                assert layout["out"] == [] and layout["page"] <= width, layout
                # The long offer title wraps onto several lines instead of widening its table past its box.
                title = page.locator("#offers td").filter(has_text=LONG_TITLE)
                box, frame = title.bounding_box(), page.locator("#offers .scroll").bounding_box()
                assert box and frame and box["width"] < frame["width"] and box["height"] > 40

                # The summary comes first: above the charts, with the cheapest table and the recent changes.
                sections = page.locator("main > section").evaluate_all("s => s.map(e => e.id)")
                assert sections[0] == "summary"
                summary, charts = page.locator("#summary").bounding_box(), page.locator("#history").bounding_box()
                assert summary and charts and summary["y"] < charts["y"]
                assert page.locator("#summary #cheapest-by-gpu tbody tr").count() >= 2
                assert "Recent changes" in page.locator("#summary").inner_text()
                chart = page.locator("#history svg.chart").first.bounding_box()
                assert chart and chart["width"] > 300 and chart["height"] > 100
                assert page.locator("#history svg.chart polyline").count() >= 2

                page.screenshot(path=str(tmp_path / f"report-{width}.png"), full_page=True)
                page.close()

            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(out.as_uri())
            table = page.locator("#cheapest table")
            per_gpu = table.locator("thead th").filter(has_text="USD / GPU-hour")
            per_gpu.click()
            assert per_gpu.get_attribute("aria-sort") == "ascending"
            values = [float(v) for v in table.evaluate(COLUMN_JS)]
            assert values == sorted(values) and len(values) >= 3
            per_gpu.click()
            assert per_gpu.get_attribute("aria-sort") == "descending"
            assert [float(v) for v in table.evaluate(COLUMN_JS)] == sorted(values, reverse=True)
            provider = table.locator("thead th").filter(has_text="provider")
            provider.click()
            names = table.evaluate(COLUMN_JS)
            assert names == sorted(names) and per_gpu.get_attribute("aria-sort") is None
        finally:
            browser.close()
    assert set(requested) == {out.as_uri()}
    assert problems == []  # a script the policy blocked would show here
    for width in (1280, 390):
        _not_blank(tmp_path / f"report-{width}.png")
