"""Volcano Engine end to end: ListTemplate and GetTable replayed into a store
on each back end, the template code found again through the browser, and
shape changes."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers.harutil import assert_broken_replay_keeps_data, page_json, set_page_json, shifted

EARLY = DEMO_CAPTURES / "volcengine" / "2026-08-03-cn-beijing+cn-shanghai.har.gz"
NEW_TEMPLATE = FIXTURES / "volcengine" / "volcengine-2026-09-03-new-template.har"
OLD, NEW = "CLT7310571628986405164", "CLT7412250034519861248"
LATER = datetime(2026, 10, 3, 6, tzinfo=UTC)
needs_browser = pytest.mark.skipif(
    not shutil.which("chromium") and not Path("/usr/bin/chromium").exists(),
    reason="Chromium is not installed (apt-get install chromium)",
)


def crawl(cli, har: Path):
    return cli("crawl", "volcengine", "--replay", str(har), "--format", "json")


def prices(cli, *args: str) -> list[dict]:
    return json.loads(cli("prices", "--format", "json", *args).out)


def test_hourly_and_monthly_rows_in_cny(cli) -> None:
    result = crawl(cli, EARLY)
    assert result.code == 0, result.err
    rows = prices(cli, "--provider", "volcengine", "--instance-type", "ecs.gni2.3xlarge", "--region", "cn-beijing")
    assert sorted(
        (r["price_model"], r["term"], r["unit"], r["price"], r["currency"], r["hourly_price"]) for r in rows
    ) == [
        ("monthly", "1mo", "month", "3577", "CNY", "4.968056"),
        ("on_demand", "", "hour", "8.44", "CNY", "8.440000"),
    ]
    # The GPU from the spec table; vCPU and memory as the template states them.
    assert {(r["gpu_model"], r["gpu_count"], r["vcpu"], r["memory_gb"]) for r in rows} == {("A10", "1", "12", "46")}
    every = prices(cli)
    assert not [r for r in every if r["instance_type"] == "ecs.g3i.large"]  # not a GPU type
    assert not [r for r in every if r["price_model"] not in ("on_demand", "monthly")]
    a100 = prices(cli, "--provider", "volcengine", "--gpu", "A100")
    assert {(r["instance_type"], r["region"]) for r in a100} == {
        ("ecs.pni2.28xlarge", "cn-beijing"),
        ("ecs.pni2.28xlarge", "cn-shanghai"),
    }
    assert json.loads((cli.home / "state" / "volcengine.json").read_text())["template_code"] == OLD


@needs_browser
def test_template_code_found_again_through_the_page(cli) -> None:
    assert crawl(cli, EARLY).code == 0
    second = crawl(cli, NEW_TEMPLATE)
    assert second.code == 0, second.err
    assert f"does not know template {OLD}" in second.err and f"uses template {NEW}" in second.err
    state = json.loads((cli.home / "state" / "volcengine.json").read_text())
    assert (state["template_code"], state["replaces"]) == (NEW, OLD)
    changes = json.loads(second.out)
    assert [(c["kind"], c["instance_type"], c["region"], c["old_price"], c["new_price"]) for c in changes] == [
        ("price_drop", "ecs.pni2.28xlarge", "cn-beijing", "236.59", "212.93")
    ]


def test_configured_template_code_is_used(cli, tmp_path: Path) -> None:
    (cli.home / "config.toml").write_text(f"[providers.volcengine]\ntemplate_code = '{NEW}'\n")
    data = json.loads(shifted(NEW_TEMPLATE, tmp_path / "new.har", LATER).read_text())
    data["log"]["entries"] = [e for e in data["log"]["entries"] if NEW in json.dumps(e["request"])]
    only_new = tmp_path / "only-new.har"
    only_new.write_text(json.dumps(data))
    result = crawl(cli, only_new)
    assert result.code == 0, result.err
    assert "does not know template" not in result.err
    assert prices(cli, "--provider", "volcengine")


def test_bad_template_code_in_config_is_one_line(sqlite_cli) -> None:
    (sqlite_cli.home / "config.toml").write_text("[providers.volcengine]\ntemplate_code = 'ECS'\n")
    result = sqlite_cli("prices")
    assert result.code == 1
    assert "providers.volcengine.template_code" in result.err and "Traceback" not in result.err


def _drop_price_lists(i: int, entry: dict) -> None:
    if "GetTable" not in entry["request"]["url"]:
        return
    page = page_json(entry)
    for row in page["Result"]["TableList"][0]["Rows"][:3]:
        row.pop("PriceInfoList")
    set_page_json(entry, page)


def _rename_period(i: int, entry: dict) -> None:
    if "GetTable" not in entry["request"]["url"]:
        return
    page = page_json(entry)
    page["Result"]["TableList"][0]["Rows"][0]["PriceInfoList"][0]["Period"] = "hour"
    set_page_json(entry, page)


@pytest.mark.parametrize(
    "edit, message",
    [
        (_drop_price_lists, "Volcano Engine: PriceInfoList missing in 3/"),
        (_rename_period, "Volcano Engine: unknown Period 'hour' for ecs.gni2.3xlarge"),
    ],
)
def test_shape_change_fails_and_keeps_the_last_data(cli, tmp_path: Path, edit, message: str) -> None:
    broken = shifted(EARLY, tmp_path / "changed.har", LATER, edit)
    assert_broken_replay_keeps_data(cli, crawl, EARLY, broken, message)
