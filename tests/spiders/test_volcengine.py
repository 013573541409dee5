"""Volcano Engine end to end: ListTemplate and GetTable replayed into a store
on each back end, the template code found again from the page's
server-rendered state (or the page as the browser rendered it), stock, and
shape changes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers.harutil import assert_broken_replay_keeps_data, page_json, set_page_json, shifted

# A whole crawl replayed end to end tests the spider and the pipeline, which do
# not depend on the store: SQLite only (the store's own tests run on both).
# The first crawls of EARLY run once per worker (`replayed`, tests/helpers/replayed.py).
pytestmark = [pytest.mark.backends("sqlite"), pytest.mark.xdist_group("spiders-volcengine")]

EARLY = DEMO_CAPTURES / "volcengine" / "2026-08-03-cn-beijing+cn-shanghai.har.gz"
NEW_TEMPLATE = FIXTURES / "volcengine" / "volcengine-2026-09-03-new-template.har"
OLD, NEW = "CLT7310571628986405164", "CLT7412250034519861248"
LATER = datetime(2026, 10, 3, 6, tzinfo=UTC)
PAGE_STATE = "__ssrDirect=true"
NO_BROWSER = "[crawl]\nbrowser_path = '/nonexistent/chromium'\n"
FIRST = ("crawl", "volcengine", "--replay", str(EARLY), "--format", "json")


def crawl(cli, har: Path):
    return cli("crawl", "volcengine", "--replay", str(har), "--format", "json")


def prices(cli, *args: str) -> list[dict]:
    return json.loads(cli("prices", "--format", "json", *args).out)


def test_hourly_and_monthly_rows_in_cny(cli, replayed) -> None:
    (result,) = replayed(FIRST)
    assert result.code == 0, result.err
    rows = prices(cli, "--provider", "volcengine", "--instance-type", "ecs.gni2.3xlarge", "--region", "cn-beijing")
    assert sorted(
        (r["price_model"], r["term"], r["unit"], r["price"], r["currency"], r["hourly_price"]) for r in rows
    ) == [
        ("monthly", "1mo", "month", "3577", "CNY", "4.968056"),
        ("on_demand", "", "hour", "8.44", "CNY", "8.440000"),
        # Times 12 of the monthly price: one year's subscription.
        ("yearly", "1yr", "year", "35770", "CNY", "4.083333"),
    ]
    # The GPU from the spec table; vCPU and memory as the template states them;
    # the region from the end of ChargeItemCode (the rows have no Region field).
    assert {(r["gpu_model"], r["gpu_count"], r["vcpu"], r["memory_gb"]) for r in rows} == {("A10", "1", "12", "46")}
    assert {r["availability"] for r in rows} == {"available"}
    every = prices(cli)
    assert not [r for r in every if r["instance_type"] == "ecs.g3i.large"]  # not a GPU type
    assert {r["price_model"] for r in every} == {"on_demand", "monthly", "yearly"}
    a100 = prices(cli, "--provider", "volcengine", "--gpu", "A100")
    assert {(r["instance_type"], r["region"]) for r in a100} == {
        ("ecs.pni2.28xlarge", "cn-beijing"),
        ("ecs.pni2.28xlarge", "cn-shanghai"),
    }
    assert json.loads((cli.home / "state" / "volcengine.json").read_text())["template_code"] == OLD


def test_template_code_found_again_from_the_page_state(cli, replayed) -> None:
    assert replayed(FIRST, config=NO_BROWSER)[0].code == 0
    second = crawl(cli, NEW_TEMPLATE)
    assert second.code == 0, second.err
    assert f"does not know template {OLD}" in second.err and f"uses template {NEW}" in second.err
    assert "rendering" not in second.err
    state = json.loads((cli.home / "state" / "volcengine.json").read_text())
    assert (state["template_code"], state["replaces"]) == (NEW, OLD)
    changes = json.loads(second.out)
    assert [(c["kind"], c["instance_type"], c["region"], c["old_price"], c["new_price"]) for c in changes] == [
        ("price_drop", "ecs.pni2.28xlarge", "cn-beijing", "236.59", "212.93")
    ]


def test_template_code_from_the_rendered_page_without_a_browser(cli, replayed, tmp_path: Path) -> None:
    """No page state in the capture: the page as the browser rendered it
    when recorded is replayed, with no browser installed."""
    assert replayed(FIRST, config=NO_BROWSER)[0].code == 0
    data = json.loads(NEW_TEMPLATE.read_text())
    data["log"]["entries"] = [e for e in data["log"]["entries"] if PAGE_STATE not in e["request"]["url"]]
    no_state = tmp_path / "no-state.har"
    no_state.write_text(json.dumps(data))
    second = crawl(cli, no_state)
    assert second.code == 0, second.err
    notes = " ".join(second.err.split())
    assert "names no template code" in notes and "rendering https://www.volcengine.com/pricing?product=ECS" in notes
    assert f"uses template {NEW}" in second.err


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
    # A command that does not crawl warns and goes on; a crawl stops with the key named.
    listed = sqlite_cli("prices")
    assert listed.code == 0 and "providers.volcengine.template_code" in listed.err
    result = sqlite_cli("crawl", "volcengine")
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


def _no_region(i: int, entry: dict) -> None:
    if "GetTable" not in entry["request"]["url"]:
        return
    page = page_json(entry)
    for row in page["Result"]["TableList"][0]["Rows"]:
        row["ChargeItemCode"] = row["ChargeItemCode"].rsplit("_", 1)[0]
    set_page_json(entry, page)


@pytest.mark.parametrize(
    "edit, message",
    [
        (_drop_price_lists, "Volcano Engine: PriceInfoList missing in 3/"),
        (_rename_period, "Volcano Engine: unknown Period 'hour' for ecs.gni2.3xlarge"),
        (_no_region, "Volcano Engine: Region (or a ChargeItemCode ending in one) missing in"),
    ],
)
def test_shape_change_fails_and_keeps_the_last_data(cli, replayed, tmp_path: Path, edit, message: str) -> None:
    broken = shifted(EARLY, tmp_path / "changed.har", LATER, edit)
    assert replayed(FIRST)[0].code == 0
    assert_broken_replay_keeps_data(cli, crawl, None, broken, message)


def test_odd_rows_are_skipped_with_a_note(cli, tmp_path: Path) -> None:
    """A row naming no region, and a price of 0, leave out that row or price
    only, with a note; the rest of the table is stored."""

    def odd(i: int, entry: dict) -> None:
        if "GetTable" not in entry["request"]["url"]:
            return
        page = page_json(entry)
        rows = page["Result"]["TableList"][0]["Rows"]
        rows[0]["ChargeItemCode"] = "ecs.gni2_3xlarge"
        rows[2]["PriceInfoList"][0]["Price"] = 0
        set_page_json(entry, page)

    result = crawl(cli, shifted(EARLY, tmp_path / "odd.har", LATER, odd))
    assert result.code == 0, result.err
    assert "no region in the price rows of ecs.gni2.3xlarge; skipped" in result.err
    assert "hourly price 0 of ecs.gni2.6xlarge is not a price; skipped" in result.err
    stored = prices(cli, "--provider", "volcengine")
    assert not [r for r in stored if r["instance_type"] == "ecs.gni2.3xlarge" and r["region"] == "cn-beijing"]
    assert [r["price_model"] for r in stored if r["instance_type"] == "ecs.gni2.6xlarge"] == ["monthly", "yearly"]
