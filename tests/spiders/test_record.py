"""A live crawl against a local server, recorded to HAR and replayed."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from spiders.har import read_har
from tests.conftest import DEMO_CAPTURES
from tests.helpers.localserver import Received, Reply, serve

EARLY = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"


def pages_by_skip() -> dict[str, dict]:
    pages = {}
    for entry in read_har(EARLY)["log"]["entries"]:
        query = parse_qs(urlsplit(entry["request"]["url"]).query)
        pages[query.get("$skip", ["0"])[0]] = json.loads(entry["response"]["content"]["text"])
    return pages


def test_record_then_replay(tmp_path: Path, sqlite_cli, home: Path) -> None:
    pages = pages_by_skip()

    def answer(req: Received) -> Reply:
        query = parse_qs(urlsplit(req.path).query)
        assert query["$filter"] == ["serviceName eq 'Virtual Machines' and armRegionName eq 'westeurope'"]
        page = dict(pages[query.get("$skip", ["0"])[0]])
        if page["NextPageLink"]:
            page["NextPageLink"] = base + "/api/retail/prices?" + urlsplit(page["NextPageLink"]).query
        return Reply(body=json.dumps(page).encode())

    with serve(answer) as (base, received):
        (home / "config.toml").write_text(
            f'[providers.azure]\nregions = ["westeurope"]\napi_url = "{base}/api/retail/prices"\n'
        )
        har = tmp_path / "recorded.har"
        live = sqlite_cli("crawl", "azure", "--record", str(har), "--format", "json")
    assert live.code == 0, live.err
    assert len(received) == 3
    assert len(read_har(har)["log"]["entries"]) == 3
    prices = json.loads(sqlite_cli("prices", "--format", "json").out)
    assert len(prices) == 614

    run = json.loads(sqlite_cli("runs", "--format", "json").out)[0]
    assert run["mode"] == "live" and run["capture_path"].endswith("capture.har.gz")
    with gzip.open(run["capture_path"]) as fh:
        assert len(json.load(fh)["log"]["entries"]) == 3

    (home / "tracker.db").unlink()
    replayed = sqlite_cli("crawl", "azure", "--replay", str(har), "--format", "json")
    assert replayed.code == 0, replayed.err
    again = json.loads(sqlite_cli("prices", "--format", "json").out)
    strip = lambda rows: sorted((r["instance_type"], r["os"], r["price_model"], r["term"], r["price"]) for r in rows)
    assert strip(again) == strip(prices)


def test_server_error_is_a_failed_run(sqlite_cli, home: Path) -> None:
    with serve(lambda req: Reply(status=503, body=b"down")) as (base, received):
        (home / "config.toml").write_text(
            f'[providers.azure]\nregions = ["westeurope"]\napi_url = "{base}/api"\n[crawl]\nretry_times = 1\n'
        )
        result = sqlite_cli("crawl", "azure")
    assert result.code == 1
    assert "HTTP 503 from http://127.0.0.1" in result.err
    assert len(received) == 2  # one retry, then the failure
