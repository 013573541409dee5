"""A broken source or a bad input is one clear line, a failed run row, no
price changes, and the last good data kept."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from spiders.har import read_har, write_har
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import page_json, set_page_json, shifted

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
# The first crawl, the one tests/spiders/test_replay.py starts from too,
# runs once on the worker that runs the group (`replayed`, tests/helpers/replayed.py).
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.xdist_group("spiders-replay")]

EARLY = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"
FIRST = ("crawl", "azure", "--region", "westeurope", "--replay", str(EARLY), "--format", "json")
LATER = datetime(2026, 9, 10, tzinfo=UTC)


def crawl(cli, har: Path):
    return cli("crawl", "azure", "-r", "westeurope", "--replay", str(har), "--format", "json")


def one_error_line(result) -> str:
    assert result.code == 1
    assert "Traceback" not in result.err
    lines = [line for line in result.err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, result.err
    return errors[0]


def http_error(at: int, status: int, body: str):
    """The `at`-th response of the capture answered with this status."""

    def edit(i: int, entry: dict) -> None:
        if i == at:
            entry["response"]["status"] = status
            entry["response"]["content"]["text"] = body

    return edit


def make_truncated(i: int, entry: dict) -> None:
    if i == 2:
        entry["response"]["content"]["text"] = entry["response"]["content"]["text"][:5000]


def make_half(i: int, entry: dict) -> None:
    page = page_json(entry)
    page["Items"] = page["Items"][: len(page["Items"]) // 4]
    set_page_json(entry, page)


@pytest.mark.parametrize(
    "edit, message, status",
    [
        (http_error(1, 500, "upstream failure"), "HTTP 500 from https://prices.azure.com/", "failed"),
        (make_truncated, "not valid JSON", "failed"),
        (make_half, "less than 50%", "quarantined"),
    ],
)
def test_broken_capture_keeps_the_last_good_data(
    cli, replayed, tmp_path: Path, edit, message: str, status: str
) -> None:
    assert replayed(FIRST)[0].code == 0
    before = json.loads(cli("prices", "--format", "json").out)
    broken = shifted(EARLY, tmp_path / "broken.har", LATER, edit)
    line = one_error_line(crawl(cli, broken))
    assert message in line
    assert json.loads(cli("prices", "--format", "json").out) == before
    changes = json.loads(cli("changes", "--format", "json").out)
    assert [c["kind"] for c in changes] == ["source_broken"]
    assert message in changes[0]["detail"]
    run = json.loads(cli("runs", "--format", "json").out)[0]
    assert run["status"] == status and message in run["error"]

    # A second failure in a row is not announced again; recovery is.
    assert crawl(cli, shifted(EARLY, tmp_path / "b2.har", datetime(2026, 9, 11, tzinfo=UTC), edit)).code == 1
    assert crawl(cli, shifted(EARLY, tmp_path / "ok.har", datetime(2026, 9, 12, tzinfo=UTC))).code == 0
    kinds = [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)]
    assert kinds == ["source_broken", "source_recovered"]


@pytest.mark.parametrize("content", [b"not json at all", b'{"log": {}}', b"\x1f\x8b\x08garbage", b"[1, 2]"])
def test_corrupt_har(cli, tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "bad.har"
    bad.write_bytes(content)
    line = one_error_line(crawl(cli, bad))
    assert "is not a HAR file" in line and str(bad) in line and "nothing was crawled or recorded" in line
    # The user's file, not the provider's answer: no run, nothing announced (issue 30).
    assert json.loads(cli("runs", "--format", "json").out) == []
    assert json.loads(cli("changes", "--format", "json").out) == []


def test_unmatched_request_names_the_url(cli) -> None:
    result = cli("crawl", "azure", "-r", "eastus", "--replay", str(EARLY))
    line = one_error_line(result)
    assert "no response for GET https://prices.azure.com/api/retail/prices" in line
    assert "eastus" in line


def test_unknown_provider(cli) -> None:
    line = one_error_line(cli("crawl", "nosuchcloud"))
    assert "unknown provider 'nosuchcloud'" in line and "azure" in line
    run = json.loads(cli("runs", "--format", "json").out)[0]
    assert (run["source"], run["status"]) == ("nosuchcloud", "failed")
    assert json.loads(cli("changes", "--format", "json").out) == []


def make_timeout(i: int, entry: dict) -> None:
    if i == 1:
        entry["response"]["status"] = 0
        entry["response"]["_error"] = "net::ERR_TIMED_OUT"
        entry["response"]["content"] = {"size": 0, "mimeType": "x-unknown"}


def make_empty(i: int, entry: dict) -> None:
    page = page_json(entry)
    page["Items"], page["NextPageLink"] = [], None
    set_page_json(entry, page)


def make_shape_change(i: int, entry: dict) -> None:
    page = page_json(entry)
    page["items"] = page.pop("Items")
    set_page_json(entry, page)


def scale_price(factor: str):
    def edit(i: int, entry: dict) -> None:
        page = page_json(entry)
        for item in page["Items"]:
            if item.get("armSkuName") == "Standard_NC24ads_A100_v4" and item["type"] == "Consumption":
                item["retailPrice"] = float(item["retailPrice"]) * float(factor)
        set_page_json(entry, page)

    return edit


def scale_all_prices(factor: str):
    def edit(i: int, entry: dict) -> None:
        page = page_json(entry)
        for item in page["Items"]:
            item["retailPrice"] = float(item["retailPrice"]) * float(factor)
        set_page_json(entry, page)

    return edit


@pytest.mark.slow
def test_one_type_at_0_is_skipped_and_keeps_its_price(cli, replayed, tmp_path: Path) -> None:
    """Issue 40.1: a price out of bounds in a provider's answer is one odd item,
    skipped with a note, its last price kept; the rest of the answer is stored."""
    assert replayed(FIRST)[0].code == 0
    before = json.loads(cli("prices", "--format", "json").out)
    result = crawl(cli, shifted(EARLY, tmp_path / "f.har", LATER, scale_price("0")))
    assert result.code == 0, result.err
    err = " ".join(result.err.split())  # the note as one line, however wrapped
    assert "Standard_NC24ads_A100_v4" in err and "skipped, its last price kept" in err
    assert json.loads(cli("prices", "--format", "json").out) == before
    assert json.loads(cli("changes", "--format", "json").out) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "edit, message, status",
    [
        (http_error(0, 403, "<html>Forbidden</html>"), "HTTP 403 from https://prices.azure.com/", "failed"),
        (make_timeout, "net::ERR_TIMED_OUT for https://prices.azure.com/", "failed"),
        (make_empty, "the crawl found no prices", "quarantined"),
        (make_shape_change, "Azure: the page has no Items list", "failed"),
        (scale_all_prices("0"), "are out of bounds", "quarantined"),
        (scale_price("100"), "100x jump", "quarantined"),
    ],
)
def test_more_source_faults(cli, replayed, tmp_path: Path, edit, message: str, status: str) -> None:
    assert replayed(FIRST)[0].code == 0
    before = json.loads(cli("prices", "--format", "json").out)
    line = one_error_line(crawl(cli, shifted(EARLY, tmp_path / "f.har", LATER, edit)))
    assert message in line
    assert json.loads(cli("prices", "--format", "json").out) == before
    assert [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)] == ["source_broken"]
    run = json.loads(cli("runs", "--format", "json").out)[0]
    # The run row keeps the reason the user read, not just a status.
    assert run["status"] == status
    assert run["error"] and message in run["error"]


def test_429_is_retried_after_the_wait_it_asks_for(sqlite_cli, tmp_path: Path) -> None:
    data = read_har(EARLY)
    first = data["log"]["entries"][0]
    throttled = json.loads(json.dumps(first))
    throttled["response"]["status"] = 429
    throttled["response"]["headers"] = [{"name": "Retry-After", "value": "1"}]
    throttled["response"]["content"] = {"size": 0, "mimeType": "text/plain", "text": "slow down"}
    # Entries for one URL are served in order: first the 429, then the page.
    write_har(tmp_path / "429.har", [throttled] + data["log"]["entries"])
    started = time.monotonic()
    result = crawl(sqlite_cli, tmp_path / "429.har")
    assert result.code == 0, result.err
    assert time.monotonic() - started >= 1.0
    assert len(json.loads(sqlite_cli("prices", "--format", "json").out)) == 614


def make_429_for_a_day(i: int, entry: dict) -> None:
    if i == 0:
        entry["response"]["status"] = 429
        entry["response"]["headers"] = [{"name": "Retry-After", "value": "86400"}]
        entry["response"]["content"] = {"size": 0, "mimeType": "text/plain", "text": "slow down"}


def test_429_asking_too_long_a_wait_fails(sqlite_cli, tmp_path: Path) -> None:
    assert crawl(sqlite_cli, EARLY).code == 0
    before = json.loads(sqlite_cli("prices", "--format", "json").out)
    line = one_error_line(crawl(sqlite_cli, shifted(EARLY, tmp_path / "429.har", LATER, make_429_for_a_day)))
    assert "asks to wait 86400 s (Retry-After)" in line
    # Not waiting a day is a broken source: announced once, last good prices kept.
    changes = json.loads(sqlite_cli("changes", "--format", "json").out)
    assert [c["kind"] for c in changes] == ["source_broken"]
    assert "asks to wait 86400 s" in changes[0]["detail"]
    run = json.loads(sqlite_cli("runs", "--format", "json").out)[0]
    assert run["status"] == "failed" and "asks to wait 86400 s" in run["error"]
    assert json.loads(sqlite_cli("prices", "--format", "json").out) == before
