"""The dashboard in headless Chromium, as a person uses it: every page loads
on the demo store without an error or a blocked resource, nothing runs past
the page edge at 1280 and 390 px (wide tables scroll in their own box), the
filters and the recommend form work, and so does the keyboard alone.

One browser and one server for the module."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.analytics.test_report_layout import BROWSER, CHROMIUM_ARGS, OVERFLOW_JS
from tests.helpers.stores import DemoRun
from tests.web.conftest import Served, serving

pytestmark = [
    pytest.mark.skipif(BROWSER is None, reason="Chromium is not installed (apt-get install chromium)"),
    pytest.mark.xdist_group("web-browser"),
    pytest.mark.slow,  # the fast loop keeps the API and security tests of the web room
]
PAGES = {
    "overview": "/",
    "prices": "/prices",
    "prices filtered": "/prices?gpu=A100&region_group=us&sort=price_per_gpu_hour",
    "instance": "/instances/aws/p5.48xlarge",
    "changes": "/changes",
    "offers": "/offers",
    "recommend": "/recommend",
    "recommended": "/recommend?gpus=8&min_gpu_memory=70&hours_per_month=500&months=12",
    "sources": "/sources",
    "a bad parameter": "/prices?price_model=free",
}


@pytest.fixture(scope="module")
def site(demo_run: DemoRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("web-browser")
    shutil.copyfile(demo_run.home / "tracker.db", home / "tracker.db")
    with serving(f"sqlite:///{home / 'tracker.db'}", home) as served:
        yield served


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        found = p.chromium.launch(executable_path=BROWSER, args=CHROMIUM_ARGS)
        yield found
        found.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    found = context.new_page()
    problems: list[str] = []
    found.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    found.on("pageerror", lambda e: problems.append(str(e)))
    # A request the next navigation cancels (net::ERR_ABORTED, e.g. the icon
    # while the test moves on to the other width) is not a missing resource.
    found.on(
        "requestfailed",
        lambda r: None if "ERR_ABORTED" in (r.failure or "") else problems.append(f"failed: {r.url} ({r.failure})"),
    )
    found.problems = problems
    yield found
    context.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_loads_and_fits(site: Served, page: Any, name: str) -> None:
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        answer = page.goto(site.base + PAGES[name])
        assert answer.status == (400 if name == "a bad parameter" else 200)
        assert page.locator("h1").count() == 1 and page.title()
        found = page.evaluate(OVERFLOW_JS)
        assert not found["out"], (name, width, found["out"][:5])
        assert found["page"] <= found["width"], (name, width, found)
    if name == "a bad parameter":  # the page itself is the 400 the console reports
        page.problems[:] = [p for p in page.problems if "status of 400" not in p]
    assert not page.problems, page.problems  # no script error, no blocked or missing resource


def test_the_price_filters_narrow_sort_and_stay_in_the_url(site: Served, page: Any) -> None:
    page.goto(site.base + "/prices")
    everything = page.locator("nav.pager span").first.inner_text()
    page.fill("input[name=gpu]", "H100")
    page.select_option("select[name=price_model]", "spot")
    page.select_option("select[name=sort]", "price_per_gpu_hour")
    with page.expect_navigation():
        page.click("form.filters button[type=submit]")
    assert "gpu=H100" in page.url and "price_model=spot" in page.url and "sort=price_per_gpu_hour" in page.url
    assert page.locator("nav.pager span").first.inner_text() != everything
    rows = page.locator("#prices tbody tr")
    assert rows.count() > 3
    gpus = rows.locator("td:nth-child(4)").all_inner_texts()
    assert all("H100" in g for g in gpus)
    per_gpu = [float(t) for t in rows.locator("td:nth-child(7)").all_inner_texts() if t.strip()]
    assert per_gpu == sorted(per_gpu)
    # The permalink gives the same page again; a click on a heading sorts by it.
    again = page.context.new_page()
    again.goto(page.url)
    assert (
        again.locator("#prices tbody tr td:nth-child(3)").all_inner_texts()
        == rows.locator("td:nth-child(3)").all_inner_texts()
    )
    again.close()
    with page.expect_navigation():
        page.click("#prices thead a:has-text('price')  >> nth=0")
    assert "sort=price" in page.url
    assert page.locator("#prices thead th[aria-sort]").count() == 1


def test_the_changes_filter_and_feed_link(site: Served, page: Any) -> None:
    page.goto(site.base + "/changes")
    page.select_option("select[name=kind]", "price_drop")
    with page.expect_navigation():
        page.click("form.filters button[type=submit]")
    kinds = set(page.locator("#changes tbody td:nth-child(2)").all_inner_texts())
    assert kinds == {"price_drop"}
    feed = page.locator("link[rel=alternate]").get_attribute("href")
    assert feed.startswith("/feeds/changes.atom?") and "kind=price_drop" in feed


def test_the_recommend_form_answers_with_reasons(site: Served, page: Any) -> None:
    page.goto(site.base + "/recommend")
    assert page.locator("#options").count() == 0
    page.fill("input[name=gpus]", "8")
    page.fill("input[name=min_gpu_memory]", "70")
    page.fill("input[name=hours_per_month]", "500")
    page.fill("input[name=months]", "12")
    with page.expect_navigation():
        page.click("#needs button[type=submit]")
    assert "gpus=8" in page.url and "min_gpu_memory=70" in page.url
    rows = page.locator("#options tbody tr")
    assert rows.count() >= 3
    assert rows.first.locator("td").first.inner_text() == "1"
    whys = rows.locator("td.why").all_inner_texts()
    assert all(w.strip() for w in whys) and "lowest total" in whys[0]
    # An impossible need is one sentence.
    page.fill("input[name=gpus]", "2.5")
    with page.expect_navigation():
        page.click("#needs button[type=submit]")
    assert "must be a whole number of GPUs" in page.locator("p.error").inner_text()


def test_the_keyboard_alone_reaches_and_submits_the_filters(site: Served, page: Any) -> None:
    page.goto(site.base + "/prices")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    seen: list[str] = []
    for _ in range(40):
        page.keyboard.press("Tab")
        seen.append(
            page.evaluate(
                "(e => e.name || e.tagName + ':' + (e.getAttribute('href') || e.className))(document.activeElement)"
            )
        )
        if seen[-1] == "gpu":
            break
    assert seen[-1] == "gpu", seen
    page.keyboard.type("A100")
    with page.expect_navigation():
        page.keyboard.press("Enter")  # submits the form
    assert "gpu=A100" in page.url
    # Every focusable thing shows where the focus is.
    page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    # The scrolling table is reachable too, so it can be scrolled with the arrows.
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('scroll')"):
            break
    else:
        pytest.fail("the table's scroll box never took the focus")


def test_labels_in_chinese_for_a_chinese_browser(site: Served, browser: Any) -> None:
    context = browser.new_context(locale="zh-CN", extra_http_headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    page = context.new_page()
    page.goto(site.base + "/")
    assert page.locator("html").get_attribute("lang") == "zh-Hans"
    assert "概览" in page.locator("header nav").inner_text()
    assert page.evaluate(OVERFLOW_JS)["out"] == []
    context.close()


def test_screenshots_can_be_made(site: Served, page: Any, tmp_path: Path) -> None:
    page.goto(site.base + "/")
    shot = tmp_path / "overview.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
