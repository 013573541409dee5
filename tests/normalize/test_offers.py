"""Every provider's offer spider replays its fixture into normalized offers;
offer changes between captures, their history, removals and broken pages."""

from __future__ import annotations

import csv
import io
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import shifted

HAS_CHROMIUM = bool(shutil.which("chromium")) or Path("/usr/bin/chromium").exists()

# The offers a person reads on each capture's pages, as the current reader
# reads them: offer_id: (kind, amount, currency, percent_off, min_spend,
# duration_days, eligibility, unparsed). Every one must be there, as read.
# Cards that state no amount or size ("free up to monthly limits", a GPU trial
# without its length) are no offers: they were stored as "unparsed" ones.
EXPECTED: dict[str, dict[str, tuple[Any, ...]]] = {
    "aws": {
        "aws:guide-free-tier-credits": ("free_credit", "100", "USD", None, None, None, "new_users", False),
        "aws:amazon-redshift": ("free_trial", None, None, None, None, 60, "all", False),
        "aws:activate-founders": ("startup_credit", "1000", "USD", None, None, None, "startups", False),
        "aws:activate-portfolio": ("startup_credit", "100000", "USD", None, None, None, "startups", False),
    },
    "azure": {
        "azure:ms-azr-0044p-azure-free-account": ("free_credit", "200", "USD", None, None, 30, "new_users", False),
        "azure:free-services-linux-virtual-machines": ("free_trial", None, None, None, None, 365, "all", False),
        "azure:free-services-blob-storage": ("free_trial", None, None, None, None, 365, "all", False),
    },
    "gcp": {
        # "If you aren't yet a Google Cloud customer": new users
        "gcp:if-you-aren-t-yet-a-google-cloud-customer": (
            "free_credit",
            "300",
            "USD",
            None,
            None,
            90,
            "new_users",
            False,
        ),
        "gcp:free-trial": ("free_credit", "300", "USD", None, None, 90, "new_users", False),
    },
    "alibaba": {
        "alibaba:free-经济型-e-实例": ("free_trial", None, None, None, None, 90, "all", False),
        "alibaba:free-gpu-云服务器": ("free_trial", None, None, None, None, 30, "new_users", False),
        "alibaba:free-对象存储-oss": ("free_trial", None, None, None, None, 90, "all", False),
        "alibaba:intl-elastic-compute-service": ("free_trial", None, None, None, None, 365, "all", False),
        "alibaba:intl-object-storage-service": ("free_trial", None, None, None, None, 365, "all", False),
    },
    "tencent": {
        "tencent:new-满100": ("voucher", "50", "CNY", None, "100", None, "all", False),
        "tencent:new-满1000": ("voucher", "200", "CNY", None, "1000", None, "all", False),
        "tencent:new-满10000": ("voucher", "500", "CNY", None, "10000", None, "all", False),
        "tencent:free-云服务器-cvm": ("free_trial", None, None, None, None, 30, "new_users", False),
        "tencent:free-轻量应用服务器": ("free_trial", None, None, None, None, 30, "new_users", False),
        # "免费体验 4 小时 A100 GPU 算力": 4 A100 GPU-hours, stored with the offer
        "tencent:free-gpu-开发者实验室": ("free_trial", None, None, None, None, None, "all", False),
    },
    "huawei": {
        "huawei:free-test-弹性云服务器-ecs": ("free_trial", None, None, None, None, 30, "new_users", False),
        "huawei:promotion-云创计划": ("voucher", "5000", "CNY", None, None, None, "startups", False),
        "huawei:promotion-gpu-云服务器续费优惠": ("renewal_discount", None, None, "40", None, None, "all", False),
    },
}
# The blocks of the same pages that state no offer (rules, FAQs, prices,
# headings). The sources emit them; the reader is to drop them, so they may
# be there or not, but nothing else may.
NOT_OFFERS: dict[str, set[str]] = {
    "aws": {
        "aws:guide-billing-free-tier",
        "aws:guide-free-tier-plans",
        "aws:guide-free-tier-eligibility",
        "aws:guide-free-tier-tracking",
    },
    "azure": {
        "azure:ms-azr-0044p-upgrades-and-spending-limits",
        "azure:ms-azr-0044p-exclusions",
        "azure:ms-azr-0044p-communication-policy",
        "azure:ms-azr-0044p-payment-options",
    },
    "gcp": {"gcp:during-free-trial", "gcp:how-to-upgrade"},
    "alibaba": {
        "alibaba:free-试用规则",
        "alibaba:intl-alibaba-cloud-free-trial",
        "alibaba:intl-frequently-asked-questions",
    },
    "tencent": {"tencent:new-新客专属福利", "tencent:new-领券说明"},
    "huawei": {"huawei:free-test-新用户专区", "huawei:free-test-试用规则", "huawei:promotion-活动说明"},
    # Plan prices ("9.9 元 / 20 元 / 40 元/月") are prices, not offers.
    "volcengine": {"volcengine:方舟-coding-plan", "volcengine:lite", "volcengine:pro", "volcengine:订阅说明"},
}


def fixture(provider: str, date: str = "2026-08-03") -> Path:
    return DEMO_CAPTURES / f"{provider}-offers" / f"{date}.har.gz"


def crawl(provider: str, har: Path) -> tuple[str, ...]:
    return ("crawl", f"{provider}-offers", "--replay", str(har), "--format", "json")


def replay(cli, provider: str, har: Path):
    return cli(*crawl(provider, har))


# The Tencent offers of 2026-08-03, then of 2026-09-03: replayed once per worker and
# back end for the tests that start from them (`replayed`, tests/helpers/replayed.py).
TENCENT = (crawl("tencent", fixture("tencent")), crawl("tencent", fixture("tencent", "2026-09-03")))


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
    assert {k: got[k] for k in EXPECTED[provider] if k in got} == EXPECTED[provider]
    assert set(got) - set(EXPECTED[provider]) <= NOT_OFFERS[provider]
    assert all(
        r["text"] and r["source_url"].startswith("https://") and r["observed_at"] == "2026-08-03T06:00:00Z"
        for r in rows
    )
    assert not any("utm_" in r["source_url"] or "trk=" in r["source_url"] for r in rows)


def test_a_page_that_states_no_offer_fails_in_one_sentence(sqlite_cli) -> None:
    """The Volcano Engine capture lists plan prices only: judged like a page
    that lists no offers, never a "discount"."""
    result = replay(sqlite_cli, "volcengine", fixture("volcengine"))
    assert result.code == 1 and "Traceback" not in result.err
    assert "none of the 4 blocks read states an offer" in result.err
    assert [c["kind"] for c in json.loads(sqlite_cli("changes", "--format", "json").out)] == ["source_broken"]
    assert json.loads(sqlite_cli("offers", "--format", "json").out) == []


def test_gpu_time_is_stored_with_the_offer(sqlite_cli) -> None:
    assert replay(sqlite_cli, "tencent", fixture("tencent")).code == 0
    rows = json.loads(sqlite_cli("offers", "--provider", "tencent", "--format", "json").out)
    lab = next(r for r in rows if r["offer_id"] == "tencent:free-gpu-开发者实验室")
    assert lab["conditions"] == "4 free A100 GPU-hours"


@pytest.mark.xdist_group("normalize-offers")
def test_voucher_change_history_and_removal(cli, replayed, tmp_path: Path) -> None:
    first, late = replayed(*TENCENT)
    assert first.code == 0
    changes = json.loads(late.out)
    # The stock counters and the share claimed moved too: they are not changes.
    assert [(c["kind"], c["old_price"], c["new_price"], c["currency"], c["percent"]) for c in changes] == [
        ("credit_changed", "200", "300", "CNY", "50.00")
    ]
    assert "tencent:new-满1000" in changes[0]["detail"]

    history = json.loads(cli("offers", "history", "tencent:new-满1000", "--format", "json").out)
    assert [(h["amount"], h["seen_from"], h["seen_to"]) for h in history] == [
        ("200", "2026-08-03T06:00:00Z", "2026-09-03T06:00:00Z"),
        ("300", "2026-09-03T06:00:00Z", None),
    ]

    def drop_last_coupon(i: int, entry: dict) -> None:
        if entry["request"]["url"].endswith("/act/new"):
            content = entry["response"]["content"]
            content["text"] = content["text"].replace("<li>满10000减500</li>", "")

    october = shifted(
        fixture("tencent", "2026-09-03"), tmp_path / "oct.har", datetime(2026, 10, 3, tzinfo=UTC), drop_last_coupon
    )
    assert json.loads(replay(cli, "tencent", october).out) == []  # one absence is not a removal
    november = shifted(october, tmp_path / "nov.har", datetime(2026, 11, 3, tzinfo=UTC))
    removed = json.loads(replay(cli, "tencent", november).out)
    assert [(c["kind"], c["old_price"]) for c in removed] == [("offer_removed", "500")]
    ids = {r["offer_id"] for r in json.loads(cli("offers", "--provider", "tencent", "--format", "json").out)}
    assert "tencent:new-满10000" not in ids and "tencent:new-满100" in ids


@pytest.mark.xdist_group("normalize-offers")
@pytest.mark.backends("sqlite")  # the crawl's verdict: the store is not involved
def test_broken_or_empty_page_is_source_broken_not_removal(cli, replayed, tmp_path: Path) -> None:
    assert replayed(TENCENT[0])[0].code == 0
    good = json.loads(cli("offers", "--provider", "tencent", "--format", "json").out)

    def redesigned(i: int, entry: dict) -> None:
        """The page rebuilt from styled boxes: no heading, list or table left."""
        if entry["request"]["url"].endswith("/act/new"):
            entry["response"]["content"]["text"] = (
                '<html><body><div class="hero"><div class="t">新人专享</div>'
                '<div class="c">满100减50</div></div></body></html>'
            )

    def server_error(i: int, entry: dict) -> None:
        entry["response"]["status"] = 503

    for day, edit, message in ((4, redesigned, "no headings, list items or table rows"), (5, server_error, "HTTP 503")):
        har = shifted(fixture("tencent"), tmp_path / f"{day}.har", datetime(2026, 8, day, tzinfo=UTC), edit)
        result = replay(cli, "tencent", har)
        assert result.code == 1 and message in result.err and "Traceback" not in result.err
    kinds = [c["kind"] for c in json.loads(cli("changes", "--format", "json").out)]
    assert kinds == ["source_broken"]
    assert json.loads(cli("offers", "--provider", "tencent", "--format", "json").out) == good


def test_offer_listing_filters_and_formats(sqlite_cli) -> None:
    for provider in ("tencent", "huawei"):
        assert replay(sqlite_cli, provider, fixture(provider)).code == 0
    vouchers = {v["offer_id"] for v in json.loads(sqlite_cli("offers", "--kind", "voucher", "--format", "json").out)}
    real = {k for p in ("tencent", "huawei") for k, v in EXPECTED[p].items() if v[0] == "voucher"}
    assert real <= vouchers <= real | NOT_OFFERS["tencent"] | NOT_OFFERS["huawei"] and len(real) == 4
    rows = list(csv.DictReader(io.StringIO(sqlite_cli("offers", "--active", "--format", "csv").out)))
    listed = json.loads(sqlite_cli("offers", "--format", "json").out)
    assert len(rows) == len(listed) >= len(EXPECTED["tencent"]) + len(EXPECTED["huawei"]) and rows[0]["offer_id"]
    table = sqlite_cli("offers", "--provider", "huawei")
    assert table.code == 0 and "6折续费" not in table.out and "renewal_discount" in table.out
    missing = sqlite_cli("offers", "history", "nope:none")
    assert missing.code == 0 and "no offer recorded" in missing.err
    assert sqlite_cli("offers", "--kind", "bogus").code == 2
