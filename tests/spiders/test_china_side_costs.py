"""tencent-side-costs and alibaba-side-costs: their answers fit the SDKs'
own response models, each demo pair replays into one change, and `tco`
bills each China cloud's egress and disks from its tracked prices, with
its source and date, and names the reference table where none is tracked
(tests/fixtures/side-costs/{tencent,alibaba}/README.md)."""

from __future__ import annotations

import json
import warnings
from decimal import Decimal
from typing import Any

import pytest

from spiders.har import read_har
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers import sdk_models

pytestmark = pytest.mark.backends("sqlite")

TENCENT = DEMO_CAPTURES / "tencent-side-costs"
ALIBABA = DEMO_CAPTURES / "alibaba-side-costs"
DOCUMENTED = FIXTURES / "side-costs" / "tencent"
SIDES = ["--egress-gb", "20000", "--inter-region-gb", "5000", "--storage-gb", "10000"]


def tencent_unknown(service: str, action: str, response: dict[str, Any]) -> list[str]:
    """The keys tencentcloud-sdk-python's response model does not know ("... fileds are useless")."""
    import importlib

    models = importlib.import_module(f"tencentcloud.{service}.v20170312.models")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(models, f"{action}Response")()._deserialize(response)
    return [str(w.message) for w in caught if "useless" in str(w.message)]


def test_the_documented_tencent_answers_fit_the_sdk_models() -> None:
    zones = json.loads((DOCUMENTED / "describe-zones-example-2.json").read_text())
    disks = json.loads((DOCUMENTED / "inquiry-price-create-disks-example-2.json").read_text())
    run = json.loads((DOCUMENTED / "inquiry-price-run-instances-example-3.json").read_text())
    assert tencent_unknown("cvm", "DescribeZones", zones["Response"]) == []
    assert tencent_unknown("cbs", "InquiryPriceCreateDisks", disks["Response"]) == []
    # The instance's line has a key the installed cvm model does not know; the bandwidth line fits.
    assert tencent_unknown("cvm", "InquiryPriceRunInstances", run["Response"]) == [
        "OriginalInstanceTypePrice fileds are useless."
    ]


@pytest.mark.parametrize("capture", sorted(TENCENT.glob("*.har.gz")) + sorted(ALIBABA.glob("*.har.gz")))
def test_every_demo_answer_fits_the_sdk_model(capture) -> None:
    for entry in read_har(capture)["log"]["entries"]:
        headers = {h["name"].lower(): h["value"] for h in entry["request"]["headers"]}
        data = json.loads(entry["response"]["content"]["text"])
        if "x-acs-action" in headers:
            assert sdk_models.alibaba(headers["x-acs-action"], data) == []
            continue
        service = entry["request"]["url"].split("//")[1].split(".")[0]
        unknown = tencent_unknown(service, headers["x-tc-action"], data["Response"])
        assert unknown in ([], ["OriginalInstanceTypePrice fileds are useless."])


def crawl(cli, source: str, region: str, capture) -> list[dict]:
    result = cli("crawl", source, "--region", region, "--replay", str(capture), "--format", "json")
    assert result.code == 0, result.err
    return json.loads(result.out)


def changes(rows: list[dict]) -> list[tuple[str, ...]]:
    return [(c["kind"], c["provider"], c["instance_type"], c["old_price"], c["new_price"], c["unit"]) for c in rows]


def test_each_demo_pair_is_one_change_and_tco_bills_the_tracked_prices(cli) -> None:
    assert crawl(cli, "tencent-side-costs", "ap-guangzhou", TENCENT / "2026-10-28-ap-guangzhou.har.gz") == []
    later = crawl(cli, "tencent-side-costs", "ap-guangzhou", TENCENT / "2026-11-28-ap-guangzhou.har.gz")
    assert changes(later) == [("price_drop", "tencent", "internet egress", "0.52", "0.5", "gb")]
    assert crawl(cli, "alibaba-side-costs", "cn-beijing", ALIBABA / "2026-10-28-cn-beijing.har.gz") == []
    later = crawl(cli, "alibaba-side-costs", "cn-beijing", ALIBABA / "2026-11-28-cn-beijing.har.gz")
    assert changes(later) == [("price_drop", "alibaba", "disk cloud_essd PL1", "1.533", "1.46", "gb_month")]
    assert "0.52 → 0.50 CNY/GB" in cli("changes").out

    listed = json.loads(cli("prices", "--side-costs", "--format", "json").out)
    assert {(r["provider"], r["instance_type"], Decimal(r["price"]), r["unit"]) for r in listed} == {
        ("tencent", "internet egress", Decimal("0.5"), "gb"),
        ("tencent", "disk CLOUD_PREMIUM", Decimal("0.3066"), "gb_month"),  # 0.042 / 100 GB x 730 h
        ("tencent", "disk CLOUD_SSD", Decimal("1.0001"), "gb_month"),
        ("tencent", "disk CLOUD_HSSD", Decimal("1.168"), "gb_month"),
        ("alibaba", "internet egress", Decimal("0.8"), "gb"),
        ("alibaba", "disk cloud_essd PL0", Decimal("0.7665"), "gb_month"),
        ("alibaba", "disk cloud_essd PL1", Decimal("1.46"), "gb_month"),
    }

    # GPU prices of the same regions, and one China cloud whose side costs are not tracked.
    crawl(cli, "tencent", "ap-guangzhou", DEMO_CAPTURES / "tencent" / "2026-12-01-ap-guangzhou+ap-beijing.har.gz")
    crawl(cli, "alibaba-api", "cn-beijing", DEMO_CAPTURES / "alibaba-api" / "2026-12-01-cn-beijing.har.gz")
    crawl(cli, "volcengine-api", "cn-beijing", DEMO_CAPTURES / "volcengine-api" / "2026-12-01-cn-beijing.har.gz")
    args = ["--gpu", "A100", "--count", "8", "--currency", "CNY", *SIDES]  # no H100 at the China clouds in the demo
    result = cli("tco", *args, "--format", "json")
    assert result.code == 0, result.err
    rows = {r["provider"]: r for r in json.loads(result.out)}
    months = 36
    tencent, alibaba, volcengine = rows["tencent"], rows["alibaba"], rows["volcengine"]
    assert Decimal(tencent["egress"]) == 20000 * Decimal("0.5") * months
    assert Decimal(tencent["storage"]) == 10000 * Decimal("1.0001") * months  # CLOUD_SSD
    assert tencent["egress_source"] == "tracked: tencent-side-costs 2026-11-28 (internet egress)"
    assert tencent["storage_source"] == "tracked: tencent-side-costs 2026-11-28 (disk CLOUD_SSD)"
    assert Decimal(alibaba["egress"]) == 20000 * Decimal("0.8") * months
    assert Decimal(alibaba["storage"]) == 10000 * Decimal("1.46") * months  # ESSD PL1
    assert alibaba["egress_source"] == "tracked: alibaba-side-costs 2026-11-28 (internet egress)"
    assert alibaba["storage_source"] == "tracked: alibaba-side-costs 2026-11-28 (disk cloud_essd PL1)"
    for row in (tencent, alibaba):  # no inter-region price is tracked: the reference table's, and said so
        assert row["inter_region_source"] == (
            "reference table 2026-11-30; the internet egress rate, no inter-region rate known"
        )
    assert volcengine["egress_source"] == volcengine["storage_source"] == "reference table 2026-11-30"
    # The table names every source under the answer.
    table = cli("tco", *args).err
    assert "tencent ap-guangzhou egress: tracked: tencent-side-costs 2026-11-28 (internet egress)" in table
    assert "alibaba cn-beijing storage: tracked: alibaba-side-costs 2026-11-28 (disk cloud_essd PL1)" in table
    assert "volcengine cn-beijing egress: reference table 2026-11-30" in table
