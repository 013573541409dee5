"""Watch pages through a LIVE crawl of a page served on 127.0.0.1: the real
download path (plain, and through Chromium), not a replay. A credit going
from 300 to 200 is exactly one credit_changed; a countdown, a stock counter
or whitespace changing is nothing; an empty page is source_broken."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.localserver import Reply, serve

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

STATIC = """<!doctype html><html><head><meta charset="utf-8"><title>Promotions</title></head><body>
<section id="promos">
  <div class="offer" id="welcome-credit">
    <h3>Welcome credit</h3>{gap}<p>New customers get ${credit} in free credits, valid for 90 days.</p>
    <p class="timer">Ends in {countdown}</p>
  </div>
  <div class="offer" id="gpu-voucher">
    <h3>GPU 云服务器代金券</h3><p>新用户专享 满1000减300</p><p class="stock">剩余 {left} 份</p>
  </div>
</section>
<p class="visitors">{visitors} people viewing</p>
</body></html>"""

RENDERED = """<!doctype html><html><head><meta charset="utf-8"><title>Promotions</title></head><body>
<div id="app"></div>
<script>
setTimeout(function () {{
  document.getElementById('app').innerHTML =
    '<div class="offer" id="welcome-credit"><h3>Welcome credit</h3>{gap}' +
    '<p>New customers get ${credit} in free credits, valid for 90 days.</p><p>Ends in {countdown}</p></div>' +
    '<div class="offer" id="gpu-voucher"><h3>GPU 云服务器代金券</h3><p>新用户专享 满1000减300</p>' +
    '<p>剩余 {left} 份</p></div>';
}}, 150);
</script></body></html>"""

EMPTY = """<!doctype html><html><head><meta charset="utf-8"><title>Promotions</title></head><body>
<section id="promos"><p>Promotions are being updated.</p></section><div class="offer"></div></body></html>"""

HAS_CHROMIUM = bool(shutil.which("chromium")) or Path("/usr/bin/chromium").exists()


def _configure(home: Path, base: str, *, browser: bool) -> None:
    (home / "config.toml").write_text(
        f"""
[[watch]]
name = "promos"
url = "{base}/promotions?utm_source=test"
provider = "gcp"
selector = ".offer"
browser = {"true" if browser else "false"}
ignore = ['\\d+ people viewing']
""",
        encoding="utf-8",
    )


def _changes(result) -> list[dict]:
    assert result.code == 0, result.err
    return json.loads(result.out)


def _scenario(cli, template: str, browser: bool) -> None:
    page = {"credit": "300", "countdown": "02:13:45", "left": "23", "visitors": "1,204", "gap": ""}
    served = {"body": template}

    def handler(req):
        # In the script the whitespace sits inside a JavaScript string: escaped there.
        values = {**page, "gap": json.dumps(page["gap"])[1:-1]} if browser else page
        body = served["body"].format(**values)
        return Reply(body=body.encode("utf-8"), headers={"Content-Type": "text/html; charset=utf-8"})

    with serve(handler) as (base, received):
        _configure(cli.home, base, browser=browser)
        crawl = ("crawl", "watch:promos", "--format", "json")
        assert _changes(cli(*crawl)) == []  # the baseline announces nothing
        assert received and received[0].path.startswith("/promotions")
        offers = json.loads(cli("offers", "--provider", "gcp", "--format", "json").out)
        credit = next(o for o in offers if o["offer_id"] == "watch:promos:welcome-credit")
        assert (credit["kind"], credit["amount"], credit["currency"], credit["duration_days"]) == (
            "free_credit",
            "300",
            "USD",
            90,
        )
        voucher = next(o for o in offers if o["offer_id"] == "watch:promos:gpu-voucher")
        assert (voucher["kind"], voucher["amount"], voucher["min_spend"], voucher["eligibility"]) == (
            "voucher",
            "300",
            "1000",
            "new_users",
        )

        page.update(countdown="01:59:02", left="7", visitors="980", gap="\n      \n   ")
        assert _changes(cli(*crawl)) == []

        page["credit"] = "200"
        changes = _changes(cli(*crawl))
        assert [(c["kind"], c["old_price"], c["new_price"], c["currency"]) for c in changes] == [
            ("credit_changed", "300", "200", "USD")
        ]
        assert "watch:promos:welcome-credit" in changes[0]["detail"]

        history = json.loads(cli("offers", "history", "watch:promos:welcome-credit", "--format", "json").out)
        assert [(h["amount"], h["seen_to"] is None) for h in history] == [("300", False), ("200", True)]

        served["body"] = EMPTY
        broken = cli(*crawl)
        assert broken.code == 1 and "Traceback" not in broken.err
        logged = json.loads(cli("changes", "--format", "json").out)
        assert [c["kind"] for c in logged] == ["credit_changed", "source_broken"]
        assert len(json.loads(cli("offers", "--provider", "gcp", "--format", "json").out)) == 2


def test_watch_page_live(cli) -> None:
    _scenario(cli, STATIC, browser=False)


@pytest.mark.slow
@pytest.mark.skipif(not HAS_CHROMIUM, reason="Chromium is not installed (apt-get install chromium)")
def test_watch_page_live_in_the_browser(sqlite_cli) -> None:
    _scenario(sqlite_cli, RENDERED, browser=True)


def test_unknown_watch_is_one_line(sqlite_cli) -> None:
    result = sqlite_cli("crawl", "watch:nope")
    assert result.code == 1 and "unknown watch page 'watch:nope'" in result.err and "Traceback" not in result.err


def test_bad_watch_config_names_the_key(sqlite_cli) -> None:
    (sqlite_cli.home / "config.toml").write_text(
        '[[watch]]\nname = "x"\nurl = "https://example.com"\nprovider = "aws"\nselector = "div[["\n'
    )
    result = sqlite_cli("crawl", "watch:x")
    assert result.code == 1 and "watch.0.selector" in result.err and "not a CSS selector" in result.err


def test_watch_page_of_prices(sqlite_cli) -> None:
    page = {"price": "3.06"}
    html = (
        '<!doctype html><html><head><meta charset="utf-8"></head><body>'
        '<div class="sku" data-sku="gpu-a10-hourly">A10 24GB: ${price}/hour · 12 people viewing</div>'
        '<div class="sku" data-sku="gpu-a10-monthly">A10 包月 ¥1,200/月</div></body></html>'
    )

    def handler(req):
        return Reply(body=html.format(**page).encode("utf-8"), headers={"Content-Type": "text/html; charset=utf-8"})

    with serve(handler) as (base, _):
        (sqlite_cli.home / "config.toml").write_text(
            f'[[watch]]\nname = "rates"\nurl = "{base}/"\nprovider = "volcengine"\nkind = "price"\nselector = ".sku"\n',
            encoding="utf-8",
        )
        assert _changes(sqlite_cli("crawl", "watch:rates", "--format", "json")) == []
        prices = json.loads(sqlite_cli("prices", "--provider", "volcengine", "--format", "json").out)
        assert sorted((p["instance_type"], p["price"], p["currency"], p["unit"]) for p in prices) == [
            ("gpu-a10-hourly", "3.06", "USD", "hour"),
            ("gpu-a10-monthly", "1200", "CNY", "month"),
        ]
        page["price"] = "2.75"
        changes = _changes(sqlite_cli("crawl", "watch:rates", "--format", "json"))
        assert [(c["kind"], c["old_price"], c["new_price"]) for c in changes] == [("price_drop", "3.06", "2.75")]
