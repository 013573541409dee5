"""GCP end to end through the CLI, on SQLite and PostgreSQL: replayed
captures, the missing-key path, a live crawl against a local server with the
API key kept out of everything written, and a catalogue whose shape changed."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from spiders.har import read_har
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import one_error_line, page_json, set_page_json, shifted
from tests.helpers.localserver import Received, Reply, serve

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

EARLY = DEMO_CAPTURES / "gcp" / "2026-08-03-us-central1+us-east4+europe-west4.har.gz"
LATE = DEMO_CAPTURES / "gcp" / "2026-09-03-us-central1+us-east4+europe-west4.har.gz"
SECRET = "AIzaSyD-not-a-real-key-0123456789abcdef"
PATH = "/v1/services/6F81-5844-456A/skus"


def replay(cli, har: Path, *extra: str):
    return cli("crawl", "gcp", "--replay", str(har), "--format", "json", *extra)


def test_a_gpu_sku_change_alone_is_explained_as_such(cli) -> None:
    first = replay(cli, EARLY)
    assert first.code == 0, first.err
    assert json.loads(first.out) == []
    assert len(json.loads(cli("prices", "--provider", "gcp", "--format", "json").out)) == 512

    second = replay(cli, LATE)
    assert second.code == 0, second.err
    changes = json.loads(second.out)
    got = sorted((c["instance_type"], c["region"], c["kind"], c["old_price"], c["new_price"]) for c in changes)
    # The A100 GPU went from 2.933908 to 2.6405172 an hour in the Americas; each
    # A2 machine with it moves by its GPU count x -0.2933908, nothing else moves.
    expected = []
    for region in ("us-central1", "us-east4"):
        expected += [
            ("a2-highgpu-1g", region, "price_drop", "3.673385", "3.3799942"),
            ("a2-highgpu-2g", region, "price_drop", "7.34677", "6.7599884"),
            ("a2-highgpu-4g", region, "price_drop", "14.69354", "13.5199768"),
            ("a2-highgpu-8g", region, "price_drop", "29.38708", "27.0399536"),
            ("a2-megagpu-16g", region, "price_drop", "55.739504", "51.0452512"),
            ("gpu:nvidia-tesla-a100", region, "price_drop", "2.933908", "2.6405172"),
        ]
    assert got == sorted(expected)
    assert {c["price_model"] for c in changes} == {"on_demand"}

    history = json.loads(
        cli(
            "history",
            "gpu:nvidia-tesla-a100",
            "--region",
            "us-central1",
            "--price-model",
            "on_demand",
            "--format",
            "json",
        ).out
    )
    assert [(h["price"], h["valid_from"], h["valid_to"]) for h in history] == [
        ("2.933908", "2026-08-03T06:00:00Z", "2026-09-03T06:00:00Z"),
        ("2.6405172", "2026-09-03T06:00:00Z", None),
    ]
    core = json.loads(
        cli("history", "cpu:a2", "--region", "us-central1", "--price-model", "on_demand", "--format", "json").out
    )
    assert [h["valid_to"] for h in core] == [None]  # the core rate did not move


def test_prices_per_gpu_hour(cli) -> None:
    assert replay(cli, EARLY).code == 0
    rows = json.loads(cli("prices", "--gpu", "H100", "--provider", "gcp", "--format", "json").out)
    row = next(
        r
        for r in rows
        if (r["instance_type"], r["region"], r["price_model"]) == ("a3-highgpu-8g", "us-central1", "on_demand")
    )
    # 208 x 0.0295 + 1872 x 0.00395 + 8 x 9.79655057 = 91.90280456; / 8 GPUs
    assert (row["price"], row["price_per_gpu_hour"], row["gpu_count"]) == ("91.90280456", "11.487851", "8")
    assert row["source_url"].startswith(
        "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?key=REDACTED"
    )


def test_missing_key_on_a_live_crawl_skips_gcp(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_GCP_API_KEY", raising=False)
    line = one_error_line(cli("crawl", "gcp"))
    assert "gcp: skipped: no API key" in line
    assert "[providers.gcp]" in line and "GPU_TRACKER_GCP_API_KEY" in line
    assert json.loads(cli("runs", "--format", "json").out) == []
    assert json.loads(cli("changes", "--format", "json").out) == []


def test_replay_stops_at_a_missing_page_without_showing_the_key(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_TRACKER_GCP_API_KEY", SECRET)
    entries = read_har(EARLY)["log"]["entries"][:2]
    short = tmp_path / "two-pages.har"
    short.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}))
    result = replay(cli, short)
    line = one_error_line(result)
    assert "no response for GET https://cloudbilling.googleapis.com" in line
    assert "key=REDACTED&pageToken=ChA5QzFBLUQ3QjItRTM0NC03QhAC" in line
    assert SECRET not in result.err + result.out + cli("runs", "--format", "json").out
    assert json.loads(cli("prices", "--format", "json").out) == []


def test_a_changed_shape_fails_the_run_and_keeps_the_data(cli, tmp_path: Path) -> None:
    assert replay(cli, EARLY).code == 0
    before = json.loads(cli("prices", "--format", "json").out)

    def drop_tiers(i: int, entry: dict) -> None:
        page = page_json(entry)
        for sku in page["skus"]:
            if sku["description"] == "Nvidia Tesla A100 GPU running in Americas":
                sku["pricingInfo"][0]["pricingExpression"]["tieredRates"] = []
        set_page_json(entry, page)

    broken = shifted(LATE, tmp_path / "broken.har", datetime(2026, 9, 10, tzinfo=UTC), drop_tiers)
    line = one_error_line(replay(cli, broken))
    assert "GCP: SKU" in line and "has no tieredRates" in line
    assert json.loads(cli("prices", "--format", "json").out) == before
    assert [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)] == ["source_broken"]


def _pages() -> dict[str, dict]:
    found = {}
    for entry in read_har(EARLY)["log"]["entries"]:
        token = parse_qs(urlsplit(entry["request"]["url"]).query).get("pageToken", [""])[0]
        found[token] = json.loads(entry["response"]["content"]["text"])
    return found


def _everything_written(home: Path) -> str:
    text = []
    for path in home.rglob("*"):
        if path.is_file() and path.suffix not in {".db", ".db-wal", ".db-shm"}:
            raw = path.read_bytes()
            text.append((gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8", "replace"))
    return "\n".join(text)


def test_live_crawl_keeps_the_key_out_of_captures_logs_and_output(
    sqlite_cli, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_TRACKER_GCP_API_KEY", SECRET)
    pages = _pages()

    def answer(req: Received) -> Reply:
        query = parse_qs(urlsplit(req.path).query)
        assert urlsplit(req.path).path == PATH and query["key"] == [SECRET]
        return Reply(body=json.dumps(pages[query.get("pageToken", [""])[0]]).encode())

    with serve(answer) as (base, received):
        (home / "config.toml").write_text(f'[providers.gcp]\napi_url = "{base}{PATH}"\n')
        har = tmp_path / "recorded.har"
        live = sqlite_cli("crawl", "gcp", "--record", str(har), "--format", "json")
    assert live.code == 0, live.err
    assert len(received) == 3  # every page, through nextPageToken to the end
    urls = [e["request"]["url"] for e in read_har(har)["log"]["entries"]]
    assert all("key=REDACTED" in u for u in urls) and len(urls) == 3
    prices = sqlite_cli("prices", "--provider", "gcp", "--format", "json").out
    assert len(json.loads(prices)) == 512
    runs = sqlite_cli("runs", "--format", "json").out
    assert SECRET not in har.read_text() + live.out + live.err + prices + runs
    assert SECRET not in _everything_written(home)

    # The recording replays without a key.
    monkeypatch.delenv("GPU_TRACKER_GCP_API_KEY")
    (home / "tracker.db").unlink()
    again = sqlite_cli("crawl", "gcp", "--replay", str(har), "--format", "json")
    assert again.code == 0, again.err


def test_a_refused_key_is_one_masked_line(sqlite_cli, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_TRACKER_GCP_API_KEY", SECRET)
    body = json.dumps(
        {
            "error": {
                "code": 400,
                "message": "API key not valid. Please pass a valid API key.",
                "status": "INVALID_ARGUMENT",
            }
        }
    ).encode()
    with serve(lambda req: Reply(status=400, body=body)) as (base, _received):
        (home / "config.toml").write_text(f'[providers.gcp]\napi_url = "{base}{PATH}"\n[crawl]\nretry_times = 0\n')
        result = sqlite_cli("crawl", "gcp")
    line = one_error_line(result)
    assert "HTTP 400 from http://127.0.0.1" in line and "key=REDACTED" in line
    runs = sqlite_cli("runs", "--format", "json").out
    assert json.loads(runs)[0]["status"] == "failed"
    assert SECRET not in result.err + result.out + runs + _everything_written(home)


def test_the_key_can_come_from_the_config(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.config.settings import load_config

    monkeypatch.delenv("GPU_TRACKER_GCP_API_KEY", raising=False)
    (home / "config.toml").write_text(f'[providers.gcp]\napi_key = "{SECRET}"\n')
    settings = load_config(home=home).provider("gcp")
    assert settings.spider_args()["api_key"] == SECRET
    assert SECRET not in repr(settings) and SECRET not in str(settings.model_dump())
    monkeypatch.setenv("GPU_TRACKER_GCP_API_KEY", "from-env")
    assert load_config(home=home).provider("gcp").spider_args()["api_key"] == SECRET  # the file wins
    assert load_config(home=home).provider("azure").spider_args().get("api_key") is None
