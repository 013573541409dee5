"""Every provider's offer spider replays its fixture into normalized offers;
offer changes between captures, their history, removals and broken pages."""

from __future__ import annotations

import csv
import io
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import page_json, set_page_json, shifted

HAS_CHROMIUM = bool(shutil.which("chromium")) or Path("/usr/bin/chromium").exists()

# offer_id: (kind, amount, currency, percent_off, min_spend, duration_days, eligibility, unparsed)
EXPECTED = {
    "aws": {
        "aws:free-plan-signup-credit": ("free_credit", "100", "USD", None, None, 180, "new_users", False),
        "aws:free-plan-activity-credit": ("free_credit", "100", "USD", None, None, None, "new_users", False),
        "aws:legacy-12-months-free": ("free_trial", None, None, None, None, 365, "all", False),
        "aws:activate-founders": ("startup_credit", "1000", "USD", None, None, None, "startups", False),
        "aws:activate-portfolio": ("startup_credit", "100000", "USD", None, None, None, "startups", False),
    },
    "azure": {
        "azure:ms-azr-0044p": ("free_credit", "200", "USD", None, None, 30, "new_users", False),
        "azure:free-services-12-months": ("free_trial", None, None, None, None, 365, "all", False),
        "azure:ms-azr-0170p": ("free_credit", "100", "USD", None, None, 365, "students", False),
    },
    "gcp": {
        "gcp:free-trial-credit": ("free_credit", "300", "USD", None, None, 90, "new_users", False),
        "gcp:free-tier": ("free_trial", None, None, None, None, None, "all", True),
    },
    "alibaba": {
        "alibaba:ecs": ("free_trial", None, None, None, None, None, "new_users", True),
        "alibaba:ecs-gpu": ("free_trial", None, None, None, None, None, "new_users", True),
        "alibaba:new-user-credit": ("free_credit", "300", "USD", None, None, None, "new_users", False),
        "alibaba:gpu-spot": ("spot_discount", None, None, "70", None, None, "all", False),
    },
    "tencent": {
        "tencent:cvm-newuser-100": ("voucher", "50", "CNY", None, "100", 15, "new_users", False),
        "tencent:cvm-newuser-1000": ("voucher", "200", "CNY", None, "1000", 15, "new_users", False),
        "tencent:cvm-newuser-10000": ("voucher", "500", "CNY", None, "10000", 15, "new_users", False),
        # "免费体验 4 小时 A100 GPU 算力": GPU time, read by recommend from the text
        "tencent:gpu-lab": ("free_trial", None, None, None, None, None, "all", False),
        "tencent:cvm": ("free_trial", None, None, None, None, None, "new_users", True),
    },
    "huawei": {
        "huawei:ecs-free-trial": ("free_trial", None, None, None, None, None, "new_users", True),
        "huawei:gpu-ecs-free-trial": ("free_trial", None, None, None, None, None, "new_users", True),
        "huawei:startup-vouchers": ("voucher", "5000", "CNY", None, None, None, "startups", False),
        "huawei:gpu-renewal": ("renewal_discount", None, None, "40", None, None, "all", False),
    },
    "volcengine": {
        "volcengine:beta-compute": ("free_credit", None, None, None, None, None, "all", True),
    },
}


def fixture(provider: str, date: str = "2026-08-03") -> Path:
    return DEMO_CAPTURES / f"{provider}-offers" / f"{date}.har.gz"


def replay(cli, provider: str, har: Path):
    return cli("crawl", f"{provider}-offers", "--replay", str(har), "--format", "json")


@pytest.mark.parametrize("provider", sorted(EXPECTED))
def test_fixture_replays_into_offers(sqlite_cli, provider: str) -> None:
    if provider == "aws" and not HAS_CHROMIUM:
        pytest.skip("the AWS Activate page needs Chromium (apt-get install chromium)")
    result = replay(sqlite_cli, provider, fixture(provider))
    assert result.code == 0, result.err
    assert json.loads(result.out) == []
    rows = json.loads(sqlite_cli("offers", "--provider", provider, "--format", "json").out)
    got = {
        r["offer_id"]: (
            r["kind"],
            r["amount"],
            r["currency"],
            r["percent_off"],
            r["min_spend"],
            r["duration_days"],
            r["eligibility"],
            r["unparsed"],
        )
        for r in rows
    }
    assert got == EXPECTED[provider]
    assert all(
        r["text"] and r["source_url"].startswith("https://") and r["observed_at"] == "2026-08-03T06:00:00Z"
        for r in rows
    )
    assert not any("utm_" in r["source_url"] or "trk=" in r["source_url"] for r in rows)


def test_voucher_change_history_and_removal(cli, tmp_path: Path) -> None:
    assert replay(cli, "tencent", fixture("tencent")).code == 0
    late = replay(cli, "tencent", fixture("tencent", "2026-09-03"))
    changes = json.loads(late.out)
    # The stock counters and the share claimed moved too: they are not changes.
    assert [(c["kind"], c["old_price"], c["new_price"], c["currency"], c["percent"]) for c in changes] == [
        ("credit_changed", "200", "300", "CNY", "50.00")
    ]
    assert "tencent:cvm-newuser-1000" in changes[0]["detail"]

    history = json.loads(cli("offers", "history", "tencent:cvm-newuser-1000", "--format", "json").out)
    assert [(h["amount"], h["seen_from"], h["seen_to"]) for h in history] == [
        ("200", "2026-08-03T06:00:00Z", "2026-09-03T06:00:00Z"),
        ("300", "2026-09-03T06:00:00Z", None),
    ]

    def drop_last_coupon(i: int, entry: dict) -> None:
        if "coupons" in entry["request"]["url"]:
            page = page_json(entry)
            page["data"]["list"] = page["data"]["list"][:2]
            set_page_json(entry, page)

    october = shifted(
        fixture("tencent", "2026-09-03"), tmp_path / "oct.har", datetime(2026, 10, 3, tzinfo=UTC), drop_last_coupon
    )
    assert json.loads(replay(cli, "tencent", october).out) == []  # one absence is not a removal
    november = shifted(october, tmp_path / "nov.har", datetime(2026, 11, 3, tzinfo=UTC))
    removed = json.loads(replay(cli, "tencent", november).out)
    assert [(c["kind"], c["old_price"]) for c in removed] == [("offer_removed", "500")]
    ids = {r["offer_id"] for r in json.loads(cli("offers", "--provider", "tencent", "--format", "json").out)}
    assert "tencent:cvm-newuser-10000" not in ids and len(ids) == 4


@pytest.mark.backends("sqlite")  # the crawl's verdict: the store is not involved
def test_broken_or_empty_page_is_source_broken_not_removal(cli, tmp_path: Path) -> None:
    assert replay(cli, "tencent", fixture("tencent")).code == 0

    def empty_list(i: int, entry: dict) -> None:
        if "coupons" in entry["request"]["url"]:
            page = page_json(entry)
            page["data"]["list"] = []
            set_page_json(entry, page)

    def server_error(i: int, entry: dict) -> None:
        entry["response"]["status"] = 503

    for day, edit, message in ((4, empty_list, "lack one of"), (5, server_error, "HTTP 503")):
        har = shifted(fixture("tencent"), tmp_path / f"{day}.har", datetime(2026, 8, day, tzinfo=UTC), edit)
        result = replay(cli, "tencent", har)
        assert result.code == 1 and message in result.err and "Traceback" not in result.err
    kinds = [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)]
    assert kinds == ["source_broken"]
    assert len(json.loads(cli("offers", "--provider", "tencent", "--format", "json").out)) == 5


def test_offer_listing_filters_and_formats(sqlite_cli) -> None:
    for provider in ("tencent", "huawei"):
        assert replay(sqlite_cli, provider, fixture(provider)).code == 0
    vouchers = json.loads(sqlite_cli("offers", "--kind", "voucher", "--format", "json").out)
    assert {v["provider"] for v in vouchers} == {"tencent", "huawei"} and len(vouchers) == 4
    rows = list(csv.DictReader(io.StringIO(sqlite_cli("offers", "--active", "--format", "csv").out)))
    assert len(rows) == 9 and rows[0]["offer_id"]
    table = sqlite_cli("offers", "--provider", "huawei")
    assert table.code == 0 and "6折续费" not in table.out and "renewal_discount" in table.out
    missing = sqlite_cli("offers", "history", "nope:none")
    assert missing.code == 0 and "no offer recorded" in missing.err
    assert sqlite_cli("offers", "--kind", "bogus").code == 2
