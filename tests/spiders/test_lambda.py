"""Lambda: the instance-types and regions answers, their normalizer, and the
source end to end through the CLI: the demo captures replayed, the missing
key, a live crawl against a local server with the key kept out of what is
written, a refused key, and odd types skipped one by one."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.har import read_har
from spiders.lambda_.pages import api_error, parse_instance_types, parse_regions
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import one_error_line, only
from tests.helpers.localserver import Received, Reply, serve
from tracker.normalize import NormalizeError
from tracker.normalize.providers.lambda_ import normalize

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
pytestmark = pytest.mark.backends("sqlite")

NAME = "us-east-1+us-west-1+europe-central-1.har.gz"
EARLY = DEMO_CAPTURES / "lambda" / f"2026-11-02-{NAME}"
LATE = DEMO_CAPTURES / "lambda" / f"2026-12-01-{NAME}"
ASKED = ["us-east-1", "us-west-1", "europe-central-1"]
SECRET = "secret_lambda_key_0123456789abcdef"


def bodies(path: Path = EARLY) -> dict[str, bytes]:
    return {e["request"]["url"].rsplit("/", 1)[1]: e["response"]["content"]["text"].encode() for e in _entries(path)}


def _entries(path: Path) -> list[Any]:
    return read_har(path)["log"]["entries"]


def raw_items(path: Path = EARLY, regions: list[str] | None = None) -> list[Any]:
    found = bodies(path)
    when = _entries(path)[0]["startedDateTime"]
    url = "https://cloud.lambda.ai/api/v1/"
    envelope = {"observed_at": when, "regions": ASKED if regions is None else regions}
    return [
        {"kind": "lambda.region", "source_url": url + "regions", **envelope, "data": r}
        for r in parse_regions(found["regions"])
    ] + [
        {"kind": "lambda.instance_type", "source_url": url + "instance-types", **envelope, "data": t}
        for t in parse_instance_types(found["instance-types"])
    ]


def test_prices_are_cents_and_stock_is_per_region() -> None:
    quotes = normalize(raw_items()).quotes
    h100 = only(quotes, instance_type="gpu_8x_h100_sxm5", region="us-east-1")
    assert (h100.price, h100.currency, str(h100.unit), str(h100.price_model)) == (
        Decimal("23.92"),
        "USD",
        "hour",
        "on_demand",
    )
    assert (h100.gpu_model, h100.gpu_count, h100.gpu_memory_gb, h100.vcpu, h100.memory_gb) == (
        "H100",
        8,
        640,
        208,
        1800,
    )
    assert h100.per_gpu_hour() == Decimal("2.99") and h100.availability == "available"
    assert only(quotes, instance_type="gpu_8x_h100_sxm5", region="us-west-1").availability == "sold_out"
    assert {q.availability for q in quotes if q.instance_type == "gpu_8x_b200_sxm6"} == {"sold_out"}
    assert {q.region for q in quotes} == set(ASKED)
    # The CPU-only type is not stored; every GPU type once per region asked for.
    assert len(quotes) == 12 * 3 and not [q for q in quotes if q.instance_type.startswith("cpu_")]


def test_every_region_lambda_lists_when_none_is_asked() -> None:
    quotes = normalize(raw_items(regions=[])).quotes
    assert len({q.region for q in quotes}) == 17
    assert only(quotes, instance_type="gpu_1x_gh200", region="us-east-3").availability == "available"


def test_a_region_lambda_does_not_list_is_named() -> None:
    out = normalize(raw_items(regions=["us-east-1", "mars-north-1"]))
    assert {q.region for q in out.quotes} == {"us-east-1"}
    assert "lambda: region mars-north-1 is not in Lambda's region list; not stored" in out.notes


def test_the_later_capture_moves_a_price_stock_and_adds_a_type() -> None:
    early = {(q.instance_type, q.region): q for q in normalize(raw_items()).quotes}
    late = {(q.instance_type, q.region): q for q in normalize(raw_items(LATE)).quotes}
    assert late["gpu_8x_h100_sxm5", "us-east-1"].price == Decimal("21.52")
    assert late["gpu_8x_b200_sxm6", "us-east-1"].availability == "available"
    assert late["gpu_1x_a10", "us-west-1"].availability == "sold_out"
    assert set(late) - set(early) == {("gpu_1x_b200_sxm6", r) for r in ASKED}


def _with(change) -> list[Any]:
    items = copy.deepcopy(raw_items())
    record = next(i["data"] for i in items if i["data"].get("key") == "gpu_1x_a10")
    change(record)
    return items


@pytest.mark.parametrize(
    "change, reason",
    [
        (lambda r: r["instance_type"].pop("price_cents_per_hour"), "price_cents_per_hour is None"),
        (lambda r: r["instance_type"].update(price_cents_per_hour=75.5), "price_cents_per_hour is 75.5"),
        (lambda r: r["instance_type"].update(price_cents_per_hour=0), "price_cents_per_hour is 0"),
        (lambda r: r["instance_type"].pop("specs"), "no specs.gpus count"),
        (lambda r: r.pop("instance_type"), "no instance_type object"),
        (lambda r: r.update(regions_with_capacity_available="us-east-1"), "not a list of regions"),
    ],
)
def test_one_odd_type_is_skipped_with_a_note(change, reason: str) -> None:
    out = normalize(_with(change))
    assert not [q for q in out.quotes if q.instance_type == "gpu_1x_a10"]
    assert len(out.quotes) == 11 * 3
    assert any(n.startswith("lambda: instance type gpu_1x_a10 skipped:") and reason in n for n in out.notes), out.notes


def test_every_type_odd_is_a_changed_shape() -> None:
    items = [i for i in raw_items() if i["kind"] == "lambda.region"]
    for key in ("a", "b"):
        items.append({**raw_items()[-1], "data": {"key": key, "value": 5}})
    with pytest.raises(NormalizeError, match="none of the 2 instance types could be read"):
        normalize(items)


@pytest.mark.parametrize(
    "parse, body, reason",
    [
        (parse_instance_types, b"{", "not valid JSON"),
        (parse_instance_types, b'{"types": {}}', "has no data member"),
        (parse_instance_types, b'{"data": []}', "instance-types data is an array, not an object"),
        (parse_instance_types, b'{"data": {}}', "instance-types data is empty"),
        (parse_regions, b'{"data": {}}', "regions data is an object, not an array"),
        (parse_regions, b'{"data": [{"description": "x"}]}', "a region has no name"),
    ],
)
def test_page_shapes_fail_loudly(parse, body: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse(body)


def test_an_error_answer_names_its_code() -> None:
    body = b'{"error": {"code": "global/invalid-api-key", "message": "API key was invalid, expired, or deleted."}}'
    assert api_error(body) == "global/invalid-api-key: API key was invalid, expired, or deleted."
    assert api_error(b'{"data": {}}') is None and api_error(b"<html>") is None


# End to end through the CLI.


def replay(cli, har: Path, *extra: str):
    return cli("crawl", "lambda", "--replay", str(har), "--format", "json", *extra)


def test_two_captures_yield_the_changes_a_person_wants(cli) -> None:
    regions = ["--region", "us-east-1", "--region", "us-west-1", "--region", "europe-central-1"]
    assert replay(cli, EARLY, *regions).code == 0
    second = replay(cli, LATE, *regions)
    assert second.code == 0, second.err
    got = sorted(
        (c["kind"], c["instance_type"], c["region"], c["detail"] or c["new_price"]) for c in json.loads(second.out)
    )
    assert got == sorted(
        [("new_sku", "gpu_1x_b200_sxm6", r, "5.99") for r in ASKED]
        + [("price_drop", "gpu_8x_h100_sxm5", r, "21.52") for r in ASKED]
        + [
            ("availability_changed", "gpu_8x_b200_sxm6", "us-east-1", "availability: sold_out -> available"),
            ("availability_changed", "gpu_1x_a10", "us-west-1", "availability: available -> sold_out"),
        ]
    )
    rows = json.loads(cli("prices", "--provider", "lambda", "--gpu", "H100", "--format", "json").out)
    row = next(r for r in rows if (r["instance_type"], r["region"]) == ("gpu_8x_h100_sxm5", "us-east-1"))
    assert (row["price"], row["price_per_gpu_hour"], row["availability"]) == ("21.52", "2.690000", "available")


def test_missing_key_on_a_live_crawl_is_one_sentence(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_LAMBDA_API_KEY", raising=False)
    line = one_error_line(cli("crawl", "lambda"))
    assert "lambda: skipped: no API key" in line
    assert "[providers.lambda]" in line and "GPU_TRACKER_LAMBDA_API_KEY" in line
    assert json.loads(cli("runs", "--format", "json").out) == []


def test_live_crawl_sends_the_key_as_a_bearer_header_and_records_none(
    sqlite_cli, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_TRACKER_LAMBDA_API_KEY", SECRET)
    answers = bodies()

    def answer(req: Received) -> Reply:
        assert req.headers.get("Authorization") == f"Bearer {SECRET}"
        return Reply(body=answers[req.path.rsplit("/", 1)[1]])

    with serve(answer) as (base, received):
        (home / "config.toml").write_text(f'[providers.lambda]\napi_url = "{base}/api/v1"\nregions = ["us-east-1"]\n')
        har = tmp_path / "recorded.har"
        live = sqlite_cli("crawl", "lambda", "--record", str(har), "--format", "json")
    assert live.code == 0, live.err
    assert sorted(r.path for r in received) == ["/api/v1/instance-types", "/api/v1/regions"]
    headers = [h for e in read_har(har)["log"]["entries"] for h in e["request"]["headers"]]
    assert {"name": "Authorization", "value": "REDACTED"} in headers
    prices = sqlite_cli("prices", "--provider", "lambda", "--format", "json").out
    assert len(json.loads(prices)) == 12
    assert SECRET not in har.read_text() + live.out + live.err + prices


def test_a_refused_key_is_one_line(sqlite_cli, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_TRACKER_LAMBDA_API_KEY", SECRET)
    body = json.dumps(
        {
            "error": {
                "code": "global/invalid-api-key",
                "message": "API key was invalid, expired, or deleted.",
                "suggestion": "Check your API key or create a new one, then try again.",
            }
        }
    ).encode()
    with serve(lambda req: Reply(status=401, body=body)) as (base, _received):
        (home / "config.toml").write_text(f'[providers.lambda]\napi_url = "{base}/api/v1"\n[crawl]\nretry_times = 0\n')
        result = sqlite_cli("crawl", "lambda")
    line = one_error_line(result)
    assert "Lambda refused the API key (global/invalid-api-key" in line
    assert json.loads(sqlite_cli("runs", "--format", "json").out)[0]["status"] == "failed"
    assert SECRET not in result.err + result.out


def test_recommend_picks_a_region_that_has_capacity(cli) -> None:
    assert replay(cli, EARLY).code == 0  # every region Lambda lists
    result = cli("recommend", "--gpus", "8", "--min-gpu-memory", "80", "--all", "--format", "json")
    rows = json.loads(result.out)
    gh200 = next(r for r in rows if r["instance_type"] == "gpu_1x_gh200")
    # One price in 17 regions; the only one with capacity is us-east-3.
    assert gh200["region"] == "us-east-3"
    assert gh200["other_regions"] == 16  # the regions listing it, sold out or not
    # Sold out everywhere: nobody can rent it now, so it is not an option, and stderr says so.
    assert not [r for r in rows if r["instance_type"] == "gpu_8x_b200_sxm6"]
    assert "not ranked where sold out:" in result.err and "gpu_8x_b200_sxm6" in result.err
