"""`gpu-tracker plot` (PNG and sparklines) and `report` (one static HTML
file), opened and checked: the PNG's size and content, the HTML's structure,
and a screenshot of it in headless Chromium."""

from __future__ import annotations

import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

from tests.helpers.analytics_data import H100_ROWS, as_json, load_rows

T1, T2 = "2026-08-01T00:00:00Z", "2026-09-15T00:00:00Z"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOSTILE = "<script>alert('x')</script>&co"


def _load(cli, tmp_path: Path) -> None:
    first = [r | {"observed_at": T1} for r in H100_ROWS]
    first.append(
        {
            "provider": "tencent",
            "region": "ap-guangzhou",
            "instance_type": HOSTILE,
            "gpu_model": "H100",
            "gpu_count": "8",
            "price_model": "on_demand",
            "price": "5",
            "currency": "CNY",
            "unit": "hour",
            "observed_at": T1,
        }
    )
    second = [dict(r) for r in first]
    second[0] = second[0] | {"price": "50"}
    second = [r | {"observed_at": T2} for r in second]
    load_rows(cli, tmp_path, first, source="mycorp", name="first.jsonl")
    load_rows(cli, tmp_path, second, source="mycorp", name="second.jsonl")


def _not_blank(pixels: np.ndarray) -> None:
    rgb = pixels[..., :3].reshape(-1, 3)
    assert rgb.std() > 0.05
    assert len(np.unique((rgb * 255).astype(np.uint8), axis=0)) > 20


def test_plot_writes_a_png_of_step_lines(cli, tmp_path: Path) -> None:
    _load(cli, tmp_path)
    out = tmp_path / "h100.png"
    result = cli("plot", "--gpu", "H100", "--out", str(out))
    assert result.code == 0, result.err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = image.imread(out)
    assert pixels.shape[:2] == (550, 1000)  # 10 x 5.5 inches at 100 dpi
    _not_blank(pixels)

    one = tmp_path / "p5.png"
    assert cli("plot", "p5.48xlarge", "--out", str(one), "--per-instance").code == 0
    assert image.imread(one).shape[:2] == (550, 1000)


def test_sparklines_follow_the_steps(cli, tmp_path: Path) -> None:
    _load(cli, tmp_path)
    rows = as_json(cli("plot", "p5.48xlarge", "--sparkline", "--every", "month", "--format", "json"))
    [aws] = rows
    # August's price was 55.04 (6.88 a GPU-hour), from September 50 (6.25): a high bar, then low ones.
    assert aws["sparkline"][0] == "█" and set(aws["sparkline"][1:]) == {"▁"}
    assert (aws["max"], aws["min"], aws["last"]) == ("6.8800", "6.2500", "6.2500")
    table = cli("plot", "--gpu", "H100", "--sparkline", "--every", "month")
    assert table.code == 0 and "█" in table.out


def test_plot_bad_input(sqlite_cli) -> None:
    assert sqlite_cli("plot", "--gpu", "H100").code == 2  # neither --out nor --sparkline
    nothing = sqlite_cli("plot", "--gpu", "H100", "--out", "/tmp/never.png")
    assert nothing.code == 1 and "no price history" in nothing.err


class _Structure(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.headings: list[str] = []
        self.external: list[str] = []
        self.images: list[str] = []
        self._in_h2 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in_h2 = tag == "h2"
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith("data:"):
                self.external.append(value)
            if tag == "img" and name == "src" and value:
                self.images.append(value)

    def handle_data(self, data: str) -> None:
        if self._in_h2:
            self.headings.append(data.strip())
            self._in_h2 = False


def test_report_is_one_self_contained_escaped_page(cli, tmp_path: Path) -> None:
    _load(cli, tmp_path)
    out = tmp_path / "report.html"
    result = cli("report", "--out", str(out), "--days", "100000")
    assert result.code == 0, result.err
    html = out.read_text(encoding="utf-8")
    page = _Structure()
    page.feed(html)
    assert page.headings[:2] == ["Cheapest per GPU model", "Price history"]
    assert "Source health" in page.headings and any(h.startswith("Changes in the last") for h in page.headings)
    assert page.tags.count("table") >= 3 and "script" not in page.tags and "link" not in page.tags
    assert page.external == [] and len(page.images) == 1 and page.images[0].startswith("data:image/png;base64,")
    assert HOSTILE not in html and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;co" in html
    assert "price_drop" in html and "mycorp" in html
    assert "1 CNY = " in html  # the converted tencent row shows its rate


@pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not shutil.which("chromium"),
    reason="Chromium is not installed (apt-get install chromium)",
)
def test_report_renders_in_chromium(sqlite_cli, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    _load(sqlite_cli, tmp_path)
    out = tmp_path / "report.html"
    assert sqlite_cli("report", "--out", str(out)).code == 0
    requested: list[str] = []
    shot = tmp_path / "shot.png"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"), args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda r: requested.append(r.url))
            page.goto(out.as_uri())
            assert page.title().startswith("GPU prices")
            assert page.locator("h2").count() >= 4
            assert page.locator("img").evaluate("img => img.naturalWidth") > 0
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert requested == [out.as_uri()]
    pixels = image.imread(shot)
    assert pixels.shape[0] > 900 and pixels.shape[1] == 1280
    _not_blank(pixels)
