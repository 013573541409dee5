"""The official-API sources under bad input and faults: a missing or refused
key is one sentence naming where the key goes; a provider error code fails
the run with that code, throttling is retried; one item left out of
an answer is held at its last price; most of it left out is a broken source."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from spiders.har import read_har, write_har
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers.harutil import page_json, set_page_json, shifted
from tests.helpers.localserver import Reply, serve

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

TENCENT = DEMO_CAPTURES / "tencent-api" / "2026-11-02-ap-guangzhou.har.gz"
ALIBABA = FIXTURES / "alibaba-api" / "alibaba-api-cn-beijing-2026-11-02.har"
VOLCENGINE = DEMO_CAPTURES / "volcengine-api" / "2026-11-02-cn-beijing.har.gz"
LATER = datetime(2026, 11, 20, tzinfo=UTC)
KEY_ID, KEY_SECRET = "AKIDtest0123456789abcdef", "TencentSecret0123456789zz"


def error_line(result) -> str:
    assert result.code == 1, result.out
    assert "Traceback" not in result.err
    errors = [line for line in result.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.err
    return errors[0]


def tencent_error(code: str, message: str):
    def edit(i: int, entry: dict) -> None:
        set_page_json(entry, {"Response": {"Error": {"Code": code, "Message": message}, "RequestId": "r-1"}})

    return edit


@pytest.mark.parametrize("source, provider", [("tencent-api", "tencent"), ("huawei-api", "huawei")])
def test_a_missing_key_is_one_sentence_naming_where_it_goes(sqlite_cli, home: Path, source: str, provider: str) -> None:
    line = error_line(sqlite_cli("crawl", source))
    env = f"GPU_TRACKER_{provider.upper()}_ACCESS_KEY"
    assert line == (
        f"error: {source}: skipped: no API key; set access_key_id and access_key_secret under "
        f"[providers.{provider}] in {home / 'config.toml'}, or the environment variables "
        f"{env}_ID and {env}_SECRET"
    )
    (home / "config.toml").write_text(f'[providers.{provider}]\naccess_key_id = "{KEY_ID}"\n')
    line = error_line(sqlite_cli("crawl", source))
    assert f"set access_key_secret under [providers.{provider}]" in line and f"{env}_SECRET" in line
    assert KEY_ID not in line
    assert json.loads(sqlite_cli("runs", "--format", "json").out) == []  # skipped, not a failed run


def test_keys_come_from_the_environment_and_are_sent_signed_never_shown(
    sqlite_cli, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live crawl against a local server standing in for the CVM API, which refuses the key."""
    monkeypatch.setenv("GPU_TRACKER_TENCENT_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("GPU_TRACKER_TENCENT_ACCESS_KEY_SECRET", KEY_SECRET)
    refused = {
        "Response": {
            "Error": {"Code": "AuthFailure.SecretIdNotFound", "Message": "The SecretId is not found."},
            "RequestId": "r-2",
        }
    }
    with serve(lambda req: Reply(body=json.dumps(refused).encode())) as (base, received):
        (home / "config.toml").write_text(f'[providers.tencent]\napi_endpoint = "{base}"\n[crawl]\nretry_times = 0\n')
        capture = tmp_path / "refused.har"
        line = error_line(sqlite_cli("crawl", "tencent-api", "-r", "ap-guangzhou", "--record", str(capture)))
    auth = received[0].headers["Authorization"]
    assert auth.startswith(f"TC3-HMAC-SHA256 Credential={KEY_ID}/") and KEY_SECRET not in auth
    assert {k.lower(): v for k, v in received[0].headers.items()}["x-tc-action"] == "DescribeZoneInstanceConfigInfos"
    assert "AuthFailure.SecretIdNotFound" in line and "the key was refused" in line
    assert "access_key_id and access_key_secret under [providers.tencent]" in line
    assert "GPU_TRACKER_TENCENT_ACCESS_KEY_ID" in line
    text = capture.read_text()
    assert KEY_ID not in text and KEY_SECRET not in text and "REDACTED" in text
    status = sqlite_cli("status", "-f", "json").out
    assert KEY_ID not in status and KEY_SECRET not in status


@pytest.mark.parametrize(
    "path, source, region, edit, code",
    [
        (
            TENCENT,
            "tencent-api",
            "ap-guangzhou",
            tencent_error("AuthFailure.SignatureFailure", "bad signature"),
            "AuthFailure.SignatureFailure",
        ),
        (
            TENCENT,
            "tencent-api",
            "ap-guangzhou",
            tencent_error("UnsupportedRegion", "not in this region"),
            "UnsupportedRegion",
        ),
    ],
)
def test_a_provider_error_code_fails_the_run_and_keeps_the_data(
    cli, tmp_path: Path, path: Path, source: str, region: str, edit, code: str
) -> None:
    assert cli("crawl", source, "-r", region, "--replay", str(path)).code == 0
    before = cli("prices", "--format", "json").out
    broken = shifted(path, tmp_path / "broken.har", LATER, edit)
    line = error_line(cli("crawl", source, "-r", region, "--replay", str(broken)))
    assert code in line
    assert cli("prices", "--format", "json").out == before
    assert [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)] == ["source_broken"]
    run = json.loads(cli("runs", "--format", "json").out)[0]
    assert run["status"] == "failed" and code in run["error"]


def test_alibaba_invalid_region_fails_with_its_code(cli, tmp_path: Path) -> None:
    def edit(i: int, entry: dict) -> None:
        if i == 1:
            entry["response"]["status"] = 404
            set_page_json(
                entry,
                {
                    "RequestId": "r-3",
                    "HostId": "ecs.aliyuncs.com",
                    "Code": "InvalidRegionId.NotFound",
                    "Message": "The specified RegionId does not exist.",
                },
            )

    broken = shifted(ALIBABA, tmp_path / "broken.har", LATER, edit)
    line = error_line(cli("crawl", "alibaba-api", "-r", "cn-beijing", "--replay", str(broken)))
    assert "alibaba-api: DescribeAvailableResource in cn-beijing answered InvalidRegionId.NotFound" in line
    assert json.loads(cli("prices", "--format", "json").out) == []


def _throttled_first(path: Path, out: Path, times: int) -> Path:
    """`path` with its first answer preceded by `times` throttling answers to the same request."""
    entries = read_har(path)["log"]["entries"]
    throttled = copy.deepcopy(entries[0])
    set_page_json(
        throttled,
        {
            "Response": {
                "Error": {
                    "Code": "RequestLimitExceeded",
                    "Message": "Your current request times equals to 40 in a second.",
                },
                "RequestId": "r-4",
            }
        },
    )
    write_har(out, [*([throttled] * times), *entries])
    return out


def test_throttling_is_retried(cli, tmp_path: Path) -> None:
    result = cli(
        "crawl", "tencent-api", "-r", "ap-guangzhou", "--replay", str(_throttled_first(TENCENT, tmp_path / "t.har", 2))
    )
    assert result.code == 0, result.err
    assert "answered RequestLimitExceeded; retrying" in " ".join(result.err.split())
    assert json.loads(cli("prices", "--provider", "tencent", "--format", "json").out)


def test_throttling_that_never_ends_fails_the_run(cli, tmp_path: Path) -> None:
    capture = _throttled_first(TENCENT, tmp_path / "t.har", 9)
    line = error_line(cli("crawl", "tencent-api", "-r", "ap-guangzhou", "--replay", str(capture)))
    assert "answered RequestLimitExceeded 4 times" in line
    assert json.loads(cli("prices", "--format", "json").out) == []


def _without_lines(keep: int, subscriptions: bool = True):
    """Keeps the first `keep` price lines of each price answer (and none of
    the subscription answers unless `subscriptions`)."""

    def drop(i: int, entry: dict) -> None:
        page = page_json(entry)
        if "ConfigList" in page.get("Result", {}):
            monthly = "Subscription" in entry["request"]["url"]
            page["Result"]["ConfigList"] = page["Result"]["ConfigList"][: 0 if monthly and not subscriptions else keep]
            set_page_json(entry, page)

    return drop


def test_an_answer_missing_most_lines_is_a_broken_source(cli, tmp_path: Path) -> None:
    """Most of the catalogue left out of the price answer: the last good
    prices stay and the only change is the broken source."""
    assert cli("crawl", "volcengine-api", "-r", "cn-beijing", "--replay", str(VOLCENGINE)).code == 0
    before = cli("prices", "--format", "json").out
    broken = shifted(VOLCENGINE, tmp_path / "partial.har", LATER, _without_lines(1, subscriptions=False))
    line = error_line(cli("crawl", "volcengine-api", "-r", "cn-beijing", "--replay", str(broken)))
    assert "priced none of 2 types" in line
    assert cli("prices", "--format", "json").out == before
    assert [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)] == ["source_broken"]


def test_an_answer_missing_one_line_holds_it(cli, tmp_path: Path) -> None:
    """One flavor left out is held at its last price with a note (issue 29):
    no removal, no price change, the run is ok."""
    assert cli("crawl", "volcengine-api", "-r", "cn-beijing", "--replay", str(VOLCENGINE)).code == 0
    before = cli("prices", "--format", "json").out
    partial = shifted(VOLCENGINE, tmp_path / "partial.har", LATER, _without_lines(1))
    result = cli("crawl", "volcengine-api", "-r", "cn-beijing", "--replay", str(partial))
    assert result.code == 0, result.err
    assert "skipped, its last price kept" in " ".join(result.err.split())
    assert cli("prices", "--format", "json").out == before
    assert json.loads(cli("changes", "--format", "json").out) == []


def test_a_gateway_429_without_json_is_retried(cli, tmp_path: Path) -> None:
    huawei = FIXTURES / "huawei-api" / "huawei-api-cn-north-4-2026-11-02.har"
    entries = read_har(huawei)["log"]["entries"]
    busy = copy.deepcopy(entries[1])
    busy["response"]["status"] = 429
    busy["response"]["headers"] = [{"name": "Retry-After", "value": "1"}]
    busy["response"]["content"] = {"size": 17, "mimeType": "text/plain", "text": "Too Many Requests"}
    write_har(tmp_path / "busy.har", [entries[0], busy, *entries[1:]])
    result = cli("crawl", "huawei-api", "-r", "cn-north-4", "--replay", str(tmp_path / "busy.har"))
    assert result.code == 0, result.err
    assert "ListFlavors in cn-north-4 answered HTTP 429; retrying" in " ".join(result.err.split())
