"""The China clouds' official-API sources: their recorded answers fit the
SDKs' own response models, and each replays into CNY prices with stock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from spiders.har import read_har
from tests.conftest import FIXTURES
from tests.helpers import sdk_models
from tests.helpers.localserver import Reply, serve

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

DEMO = Path(__file__).resolve().parents[2] / "tracker" / "demo_captures"
SOURCES = {
    "tencent-api": "ap-guangzhou",
    "alibaba-api": "cn-beijing",
    "volcengine-api": "cn-beijing",
    "huawei-api": "cn-north-4",
}
HUAWEI_ACTIONS = {
    "/v3/projects": ("iam", "KeystoneListProjects"),
    "/v2/bills/ratings/on-demand-resources": ("bss", "ListOnDemandResourceRatings"),
    "/v2/bills/ratings/period-resources/subscribe-rate": ("bss", "ListRateOnPeriodDetail"),
}


def fixture(source: str) -> Path:
    """The source's first capture: under tests/fixtures, or kept once as the demo's."""
    path = FIXTURES / source / f"{source}-{SOURCES[source]}-2026-11-02.har"
    return path if path.exists() else DEMO / source / f"2026-11-02-{SOURCES[source]}.har.gz"


def captures() -> list[Path]:
    return sorted(FIXTURES.glob("*-api/*.har")) + sorted(DEMO.glob("*-api/*.har.gz"))


def check(source: str, entry: dict[str, Any]) -> list[str]:
    """The SDK model check for one recorded answer, chosen by its request."""
    request = entry["request"]
    headers = {h["name"].lower(): h["value"] for h in request["headers"]}
    url = urlsplit(request["url"])
    data = json.loads(entry["response"]["content"]["text"])
    if source == "tencent-api":
        return sdk_models.tencent(headers["x-tc-action"], data)
    if source == "alibaba-api":
        return sdk_models.alibaba(headers["x-acs-action"], data)
    if source == "volcengine-api":
        return sdk_models.volcengine(url.hostname.split(".")[0], parse_qs(url.query)["Action"][0], data)
    service, action = ("ecs", "ListFlavors") if url.path.endswith("/flavors") else HUAWEI_ACTIONS[url.path]
    return sdk_models.huawei(service, action, data)


def test_every_recorded_answer_fits_the_sdk_model() -> None:
    checked: dict[str, int] = {}
    for path in captures():
        source = path.parent.name
        for n, entry in enumerate(read_har(path)["log"]["entries"]):
            assert check(source, entry) == [], f"{path.name} entry {n}"
            checked[source] = checked.get(source, 0) + 1
    assert set(checked) == set(SOURCES) and all(checked.values())


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_check_catches_a_key_the_model_does_not_know(source: str) -> None:
    entry = read_har(fixture(source))["log"]["entries"][-1]
    data = json.loads(entry["response"]["content"]["text"])
    if source == "tencent-api":
        data["Response"]["InstanceTypeQuotaSet"][0]["Price"]["UnitPriceSurprise"] = 1
    elif source == "volcengine-api":
        data["Result"]["ConfigList"][0]["Surprise"] = "1"
    elif source == "huawei-api":
        data["optional_discount_rating_results"][0]["product_rating_results"][0]["surprise"] = 1
    else:
        data["PriceInfo"]["Price"]["Surprise"] = 1
    entry["response"]["content"]["text"] = json.dumps(data)
    problems = check(source, entry)
    assert len(problems) == 1 and "urprise" in problems[0]


def test_tencent_documented_hourly_shape_parses(cli) -> None:
    """The API reference's example: an hourly Price with UnitPrice and ChargeUnit only."""
    assert cli("crawl", "tencent-api", "-r", "ap-guangzhou", "--replay", str(fixture("tencent-api"))).code == 0
    rows = json.loads(cli("prices", "--provider", "tencent", "--format", "json").out)
    gn7 = {(r["price_model"], r["term"]): r for r in rows if r["instance_type"] == "GN7.2XLARGE32"}
    assert gn7["on_demand", ""]["price"] == gn7["on_demand", ""]["list_price"] == "8.68"
    assert gn7["spot", ""]["price"] == "2.6" and gn7["spot", ""]["list_price"] == "8.68"
    assert {k: gn7[k]["unit"] for k in [("monthly", "1mo"), ("yearly", "1yr"), ("yearly", "3yr")]} == {
        ("monthly", "1mo"): "month",
        ("yearly", "1yr"): "year",
        ("yearly", "3yr"): "term",
    }
    assert {r["availability"] for r in rows if r["instance_type"] == "GN10Xp.20XLARGE320"} == {"sold_out"}


EXPECTED = {
    # source: (provider, GPU type, its GPU model, price models stored)
    "tencent-api": ("tencent", "GN10Xp.20XLARGE320", "V100 32GB", {"on_demand"}),
    "alibaba-api": ("alibaba", "ecs.gn7e-c16g1.32xlarge", "A100 80GB", {"on_demand", "spot", "monthly", "yearly"}),
    "volcengine-api": ("volcengine", "ecs.pni2.28xlarge", "A100 80GB", {"on_demand", "monthly", "yearly"}),
    "huawei-api": ("huawei", "p2s.2xlarge.8", "V100 32GB", {"on_demand", "monthly", "yearly"}),
}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_replay_stores_cny_prices_with_stock(cli, source: str) -> None:
    provider, gpu_type, gpu_model, models = EXPECTED[source]
    result = cli("crawl", source, "-r", SOURCES[source], "--replay", str(fixture(source)))
    assert result.code == 0, result.err
    rows = json.loads(cli("prices", "--provider", provider, "--format", "json").out)
    assert rows and {r["currency"] for r in rows} == {"CNY"}
    of_type = [r for r in rows if r["instance_type"] == gpu_type]
    assert {r["gpu_model"] for r in of_type} == {gpu_model}
    assert {r["price_model"] for r in of_type} == models
    assert "sold_out" in {r["availability"] for r in of_type}
    assert all(r["price_per_gpu_hour"] for r in rows)


def test_record_then_replay_matches_without_the_signature(sqlite_cli, home: Path, tmp_path: Path, monkeypatch) -> None:
    """A live crawl (a local server standing in for the CVM API) recorded, then
    replayed: fresh signatures and timestamps do not stop the capture matching."""
    answers = {}
    for entry in read_har(fixture("tencent-api"))["log"]["entries"]:
        body = json.loads(entry["request"]["postData"]["text"])
        answers[body["Filters"][0]["Values"][0]] = entry["response"]["content"]["text"].encode()
    monkeypatch.setenv("GPU_TRACKER_TENCENT_ACCESS_KEY_ID", "AKIDrecord0123")
    monkeypatch.setenv("GPU_TRACKER_TENCENT_ACCESS_KEY_SECRET", "record-secret-0123")

    def answer(req):
        return Reply(body=answers[json.loads(req.body)["Filters"][0]["Values"][0]])

    capture = tmp_path / "recorded.har"
    with serve(answer) as (base, received):
        (home / "config.toml").write_text(f'[providers.tencent]\napi_endpoint = "{base}"\n')
        live = sqlite_cli("crawl", "tencent-api", "-r", "ap-guangzhou", "--record", str(capture))
        assert live.code == 0, live.err
    assert len(received) == 3
    text = capture.read_text()
    assert "AKIDrecord0123" not in text and "record-secret-0123" not in text
    replayed = sqlite_cli("crawl", "tencent-api", "-r", "ap-guangzhou", "--replay", str(capture))
    assert replayed.code == 0, replayed.err
    assert "0 changes" in " ".join(replayed.err.split())
