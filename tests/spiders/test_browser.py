"""Pages rendered by JavaScript: fetched through Chromium, recorded, and
replayed from the capture with the server gone."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spiders.har import read_har
from tests.helpers.browser_spider import RenderedPageSpider
from tests.helpers.localserver import Reply, serve
from tracker.run.crawl import CrawlRequest, run_crawl
from tracker.sources import Source

pytestmark = pytest.mark.skipif(
    not shutil.which("chromium") and not Path("/usr/bin/chromium").exists(),
    reason="Chromium is not installed (apt-get install chromium)",
)

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>
<div id="app"></div>
<script>setTimeout(function () {
  var el = document.createElement('span'); el.id = 'credit'; el.textContent = '赠送 $300 额度';
  document.getElementById('app').appendChild(el);
}, 200);</script></body></html>"""

SOURCE = Source("rendered", "test", RenderedPageSpider, None)


def test_browser_page_is_recorded_and_replayed(tmp_path: Path) -> None:
    with serve(lambda req: Reply(body=PAGE.encode(), headers={"Content-Type": "text/html; charset=utf-8"})) as (
        base,
        _received,
    ):
        live = run_crawl(
            CrawlRequest(
                source=SOURCE,
                out_dir=tmp_path / "live",
                record=tmp_path / "rec.har",
                spider_args={"url": f"{base}/offers"},
                timeout=60,
            )
        )
    assert live.error is None, live.error
    assert [i["data"]["credit"] for i in live.items] == ["赠送 $300 额度"]
    urls = [e["request"]["url"] for e in read_har(tmp_path / "rec.har")["log"]["entries"]]
    assert f"{base}/offers" in urls

    replayed = run_crawl(
        CrawlRequest(
            source=SOURCE,
            out_dir=tmp_path / "replay",
            replay=tmp_path / "rec.har",
            spider_args={"url": f"{base}/offers"},
            timeout=60,
        )
    )
    assert replayed.error is None, replayed.error
    assert [i["data"]["credit"] for i in replayed.items] == ["赠送 $300 额度"]
    page_entry = next(
        e for e in read_har(tmp_path / "rec.har")["log"]["entries"] if e["request"]["url"] == f"{base}/offers"
    )
    assert replayed.items[0]["observed_at"] == page_entry["startedDateTime"]


def test_browser_replay_miss_fails(tmp_path: Path) -> None:
    har = tmp_path / "empty.har"
    har.write_text('{"log": {"version": "1.2", "entries": []}}')
    result = run_crawl(
        CrawlRequest(
            source=SOURCE,
            out_dir=tmp_path / "r",
            replay=har,
            spider_args={"url": "http://127.0.0.1:9/none"},
            timeout=60,
        )
    )
    assert result.error is not None and not result.items
