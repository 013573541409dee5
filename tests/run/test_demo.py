"""The demo: bundled captures into a fresh folder, offline."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from tests.conftest import CliResult
from tests.helpers.stores import DemoRun, copy_home
from tracker.run.captures import demo_captures

# Demo sources whose captures state no offer (precision first: no block becomes a "discount").
NO_OFFER_SOURCES = {"volcengine-offers"}


def run_cli(*args: str) -> CliResult:
    """The CLI in-process, outside any test's capsys (for module fixtures)."""
    from tracker.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return CliResult(code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def demo_home(demo_run: DemoRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the session's demo home, shared by the read-only tests below."""
    target = copy_home(demo_run.home, tmp_path_factory.mktemp("shared-demo") / "home")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("GPU_TRACKER_DATABASE_URL", raising=False)
        mp.setenv("GPU_TRACKER_HOME", str(target))
        yield target


def test_demo_loads_and_shows_changes(demo_run: DemoRun, sqlite_cli, tmp_path: Path) -> None:
    """The session's demo (tests/conftest.py: `demo_run`) into a fresh folder."""
    result = demo_run
    assert result.code == 0, result.err
    assert (demo_run.home / "tracker.db").exists()
    target = copy_home(demo_run.home, tmp_path / "demo-home")
    assert "price_drop" in result.out and "Standard_ND96amsr_A100_v4" in result.out
    assert "p5.48xlarge" in result.out  # AWS on demand and reserved both moved
    h100 = json.loads(sqlite_cli("--home", str(target), "prices", "--gpu", "H100", "--format", "json").out)
    aws = [r for r in h100 if r["provider"] == "aws"]
    assert aws and all(r["price_per_gpu_hour"] for r in aws)
    assert "gpu:nvidia-tesla-a100" in result.out and "a2-megagpu-16g" in result.out  # GCP's A100 SKU alone moved
    assert "Try next" in result.err
    sources = {s for s, _ in demo_captures()}
    runs = json.loads(sqlite_cli("--home", str(target), "runs", "--limit", "200", "--format", "json").out)
    assert {r["source"] for r in runs} == sources
    # The Volcano Engine offers capture states no offer (no amount, percentage or
    # free time): that source fails, in one sentence, and the demo goes on.
    assert all(r["status"] == "ok" for r in runs if r["source"] not in NO_OFFER_SOURCES)
    assert all("states an offer" in r["error"] for r in runs if r["source"] in NO_OFFER_SOURCES)
    assert {"alibaba", "alibaba-cn", "volcengine"} <= sources
    a100 = json.loads(sqlite_cli("--home", str(target), "prices", "--gpu", "A100", "--format", "json").out)
    assert {"alibaba", "volcengine"} <= {p["provider"] for p in a100}
    assert {"USD", "CNY"} <= {p["currency"] for p in a100 if p["provider"] == "alibaba"}

    offers = json.loads(sqlite_cli("--home", str(target), "offers", "--format", "json").out)
    assert {o["provider"] for o in offers} == {"aws", "azure", "gcp", "alibaba", "tencent", "huawei"}
    logged = json.loads(sqlite_cli("--home", str(target), "changes", "--format", "json").out)
    credit = [c for c in logged if c["kind"] == "credit_changed"]
    assert [(c["provider"], c["old_price"], c["new_price"]) for c in credit] == [("tencent", "200", "300")]
    assert "credit_changed" in result.out and not [c for c in logged if c["kind"] == "offer_changed"]

    again = sqlite_cli("demo", "--home", str(target))
    assert again.code == 0 and "already in the store" in again.err
    rerun = json.loads(sqlite_cli("--home", str(target), "runs", "--limit", "200", "--format", "json").out)
    # Only a source whose pages state no offer is tried again (it never had a good run to skip from).
    assert [r for r in rerun if r["source"] not in NO_OFFER_SOURCES] == [
        r for r in runs if r["source"] not in NO_OFFER_SOURCES
    ]


def test_demo_captures_ship_as_package_data() -> None:
    captures = demo_captures()
    assert captures and all(p.name.endswith(".har.gz") for _, p in captures)
    import tracker

    assert tracker.__file__
    assert all(p.is_relative_to(Path(tracker.__file__).parent) for _, p in captures)


def test_demo_without_chromium_loads_every_source(demo_run: DemoRun, sqlite_cli, tmp_path: Path) -> None:
    """Chromium is installed here: the session's demo runs with a configured
    browser_path that points at a missing file (`stores.NO_BROWSER`), and that
    is the one the demo checks. Replaying a capture never needs the browser,
    so every source loads, pages rendered by JavaScript (AWS Activate) included."""
    target = copy_home(demo_run.home, tmp_path / "no-browser")
    result = demo_run
    assert result.code == 0, result.err
    assert "need Chromium" not in result.err and "skipped:" not in result.err
    runs = json.loads(sqlite_cli("--home", str(target), "runs", "--limit", "200", "--format", "json").out)
    loaded = {r["source"] for r in runs if r["status"] == "ok"}
    assert {"alibaba", "alibaba-cn", "volcengine", "aws-offers"} <= loaded
    assert loaded == {s for s, _ in demo_captures()} - NO_OFFER_SOURCES
    offers = json.loads(sqlite_cli("--home", str(target), "offers", "--format", "json").out)
    assert {o["provider"] for o in offers} == {"aws", "azure", "gcp", "alibaba", "tencent", "huawei"}
    assert [o for o in offers if o["provider"] == "aws" and o["offer_id"] == "aws:activate-founders"]
    cny = json.loads(sqlite_cli("--home", str(target), "prices", "--format", "json").out)
    assert {"alibaba", "tencent", "huawei", "volcengine"} <= {r["provider"] for r in cny if r["currency"] == "CNY"}


def test_demo_shows_the_china_clouds(demo_home: Path) -> None:
    changes = json.loads(run_cli("--home", str(demo_home), "changes", "--format", "json").out)
    got = {
        (c["provider"], c["kind"], c["instance_type"], c["detail"])
        for c in changes
        if c["provider"] in {"tencent", "huawei"} and c["source"] in {"tencent", "huawei"}
    }
    assert got == {
        ("tencent", "availability_changed", "GN10Xp.20XLARGE320", "availability: available -> sold_out"),
        ("tencent", "availability_changed", "GT4.41XLARGE948", "availability: sold_out -> available"),
        ("tencent", "price_drop", "GT4.4XLARGE96", ""),
        ("huawei", "price_drop", "p2s.2xlarge.8", ""),
    }
    a100 = json.loads(run_cli("--home", str(demo_home), "prices", "--gpu", "A100", "--format", "json").out)
    assert {"tencent", "huawei"} <= {r["provider"] for r in a100}
    assert {r["currency"] for r in a100 if r["provider"] in {"tencent", "huawei"}} == {"CNY"}


def test_h100_prices_list_aws_azure_and_gcp_per_gpu_hour(demo_home: Path) -> None:
    result = run_cli("--home", str(demo_home), "prices", "--gpu", "H100", "--format", "json")
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    for provider in ("aws", "azure", "gcp"):
        mine = [r for r in rows if r["provider"] == provider and not r["instance_type"].startswith("gpu:")]
        assert mine and all(r["price_per_gpu_hour"] for r in mine), provider
    # GCP's GPU part SKUs name their model too, and count no GPUs: a part is not an instance.
    parts = [r for r in rows if r["instance_type"].startswith("gpu:")]
    assert parts and {(r["provider"], r["gpu_model"], r["gpu_count"]) for r in parts} == {("gcp", "H100", None)}
    # One row worked by hand: GCP's a3-highgpu-8g is 8 H100s at 91.90280456 an hour.
    a3 = next(
        r
        for r in rows
        if r["instance_type"] == "a3-highgpu-8g" and r["price_model"] == "on_demand" and r["region"] == "us-central1"
    )
    assert (a3["price"], a3["gpu_count"], a3["price_per_gpu_hour"]) == ("91.90280456", "8", "11.487851")
    exact = Decimal("91.90280456") / 8  # 11.48785057
    assert Decimal(a3["price_per_gpu_hour"]) == exact.quantize(Decimal("0.000001"), ROUND_HALF_UP)
    # AWS's p5.48xlarge after the second capture's price cut: 49.536 / 8.
    p5 = next(
        r
        for r in rows
        if r["instance_type"] == "p5.48xlarge" and r["price_model"] == "on_demand" and r["os"] == "linux"
    )
    assert (p5["price"], p5["price_per_gpu_hour"]) == ("49.5360000000", "6.192000")


def test_demo_loads_the_official_api_sources_without_keys(demo_home: Path) -> None:
    """The four `-api` sources replay their bundled captures: CNY prices, and a
    type that sold out in a zone coming back is an availability change."""
    runs = json.loads(run_cli("--home", str(demo_home), "runs", "--limit", "200", "--format", "json").out)
    api = {"tencent-api", "alibaba-api", "huawei-api", "volcengine-api"}
    assert {r["source"] for r in runs if r["source"] in api and r["status"] == "ok"} == api
    changes = json.loads(run_cli("--home", str(demo_home), "changes", "--format", "json").out)
    back = {
        (c["source"], c["instance_type"]) for c in changes if c["kind"] == "availability_changed" and c["source"] in api
    }
    assert back == {
        ("tencent-api", "GN10Xp.20XLARGE320"),
        ("alibaba-api", "ecs.gn7e-c16g1.32xlarge"),
        ("volcengine-api", "ecs.pni2.28xlarge"),
        ("huawei-api", "p2s.2xlarge.8"),
    }
    rows = json.loads(run_cli("--home", str(demo_home), "prices", "--format", "json").out)
    for provider in ("tencent", "alibaba", "huawei", "volcengine"):
        assert "CNY" in {r["currency"] for r in rows if r["provider"] == provider}, provider
