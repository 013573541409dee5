"""alibaba-spot-advice and volcengine-spot-advice: DescribeSpotAdvice read
from Alibaba's documented example answer and from captures in the SDK
models' shape (tests/fixtures/*-spot-advice/README.md), replayed through the
CLI: a band that worsens is one change, once, and recommend/tco price the
Alibaba band at its own bounds."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from spiders.alibaba.spot_advice import parse_spot_advice
from spiders.har import read_har
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers import sdk_models
from tracker.analytics.bill.spot_risk import Band
from tracker.normalize import NormalizeError
from tracker.normalize.providers.china_spot import normalize_alibaba, normalize_volcengine

# Replays test the spiders and the pipeline, not the store: SQLite only.
pytestmark = pytest.mark.backends("sqlite")

EXAMPLE = FIXTURES / "alibaba-spot-advice" / "real" / "describe-spot-advice-example.json"
ALIBABA = [DEMO_CAPTURES / "alibaba-spot-advice" / f"{d}-cn-beijing.har.gz" for d in ("2026-11-02", "2026-12-01")]
VOLCENGINE = [DEMO_CAPTURES / "volcengine-spot-advice" / f"{d}-cn-beijing.har.gz" for d in ("2026-11-02", "2026-12-01")]
AT = "2026-11-02T04:00:00Z"


def item(kind: str, region: str, **data: object) -> dict:
    return {"kind": kind, "observed_at": AT, "source_url": "u", "region": region, "data": data}


def test_the_documented_example_reads_as_its_band() -> None:
    answer = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert sdk_models.alibaba("DescribeSpotAdvice", answer) == []
    records = parse_spot_advice(answer)
    assert records == [
        {
            "zone": "cn-hangzhou-i",
            "instance_type": "ecs.c5.large",
            "interruption": "0-3%",
            "interruption_rate": 0,
            "spot_price_percent": 20,
        }
    ]
    (band,) = normalize_alibaba([item("alibaba.spot_advice", "cn-hangzhou", **r) for r in records]).spot_bands
    # AverageSpotDiscount 20: the spot price is a fifth of pay as you go, 80% saved.
    assert (band.pool, band.band, band.rank, band.savings_percent) == (
        ("alibaba", "ecs.c5.large", "cn-hangzhou", "linux"),
        "0-3%",
        150,
        80,
    )
    with pytest.raises(PageShapeError, match="no AvailableSpotZones"):
        parse_spot_advice({"RequestId": "x"})


def test_every_capture_fits_the_sdk_model() -> None:
    captures = [*ALIBABA, *FIXTURES.glob("alibaba-spot-advice/*.har")]
    for path in captures:
        for entry in read_har(path)["log"]["entries"]:
            action = {h["name"].lower(): h["value"] for h in entry["request"]["headers"]}["x-acs-action"]
            assert sdk_models.alibaba(action, json.loads(entry["response"]["content"]["text"])) == [], path
    for path in [*VOLCENGINE, *FIXTURES.glob("volcengine-spot-advice/*.har")]:
        for entry in read_har(path)["log"]["entries"]:
            action = parse_qs(urlsplit(entry["request"]["url"]).query)["Action"][0]
            data = json.loads(entry["response"]["content"]["text"])
            assert sdk_models.volcengine("ecs", action, data) == [], path


def test_a_region_takes_its_riskiest_zone_and_odd_records_are_skipped() -> None:
    kind = "alibaba.spot_advice"
    out = normalize_alibaba(
        [
            item(kind, "cn-beijing", zone="h", instance_type="ecs.gn7i", interruption="0-3%", spot_price_percent=30),
            item(kind, "cn-beijing", zone="l", instance_type="ecs.gn7i", interruption="10-100%", spot_price_percent=40),
            # No range but a rate: placed on Alibaba's documented scale.
            item(kind, "cn-beijing", zone="h", instance_type="ecs.gn7e", interruption_rate=4.2),
            item(kind, "cn-beijing", zone="h", interruption="0-3%"),
            item(kind, "cn-beijing", zone="h", instance_type="ecs.gn6v", interruption="rarely"),
        ]
    )
    assert [(b.instance_type, b.band, b.rank, b.savings_percent) for b in out.spot_bands] == [
        ("ecs.gn7e", "3-5%", 400, None),
        ("ecs.gn7i", "10-100%", 5500, 60),
    ]
    assert out.notes == [
        "alibaba-spot-advice: a record in cn-beijing (h) names no instance type; skipped",
        "alibaba-spot-advice: ecs.gn6v in h: a release-rate range 'rarely' we cannot read; skipped",
    ]
    # Volcano Engine states no scale: a rate without a range is skipped, and no savings are read.
    kind = "volcengine.spot_advice"
    out = normalize_volcengine(
        [
            item(kind, "cn-beijing", zone="a", instance_type="ecs.gni2", interruption_rate=3),
            item(kind, "cn-beijing", zone="b", instance_type="ecs.pni2", interruption="<5%", discount_percent=30),
        ]
    )
    assert [(b.instance_type, b.band, b.savings_percent) for b in out.spot_bands] == [("ecs.pni2", "<5%", None)]
    assert out.notes == ["volcengine-spot-advice: ecs.gni2 in a states no release-rate range; skipped"]
    with pytest.raises(NormalizeError, match="unknown item kind"):
        normalize_volcengine([item("volcengine.api.type", "cn-beijing")])


def test_a_band_is_priced_at_its_own_bounds() -> None:
    """Alibaba's ranges are not AWS's: each takes the bounds its label states, p their midpoint."""
    seen = __import__("datetime").datetime(2026, 11, 2)
    assert (Band("0-3%", "alibaba-spot-advice", seen, seen).monthly, Band("0-3%", "a", seen, seen).upper) == (
        Decimal("0.015"),
        Decimal(3),
    )
    wide = Band("10-100%", "alibaba-spot-advice", seen, seen)
    assert (wide.monthly, wide.upper) == (Decimal("0.55"), Decimal(100))
    assert wide.named() == "10-100% a month (Alibaba DescribeSpotAdvice, 2026-11-02)"
    # AWS's labels keep their table: >20% is 25%, not the midpoint of 20 and 100.
    assert Band(">20%", "aws-spot-advisor", seen, seen).monthly == Decimal("0.25")


def test_an_alibaba_band_that_worsens_alerts_once(cli) -> None:
    first = cli("crawl", "alibaba-spot-advice", "-r", "cn-beijing", "--replay", str(ALIBABA[0]), "--format", "json")
    assert first.code == 0, first.err
    assert json.loads(first.out) == []  # every pool read for the first time
    second = cli("crawl", "alibaba-spot-advice", "-r", "cn-beijing", "--replay", str(ALIBABA[1]), "--format", "json")
    assert second.code == 0, second.err
    changes = json.loads(second.out)
    assert [(c["kind"], c["provider"], c["instance_type"], c["region"]) for c in changes] == [
        ("spot_risk_worse", "alibaba", "ecs.gn7e-c16g1.32xlarge", "cn-beijing")
    ]
    assert changes[0]["detail"] == "new_band: 5-10%; old_band: 0-3%; savings_percent: 66"
    again = cli("crawl", "alibaba-spot-advice", "-r", "cn-beijing", "--replay", str(ALIBABA[1]), "--format", "json")
    assert again.code == 0 and json.loads(again.out) == []
    assert "interruptions 0-3% → 5-10%" in cli("changes", "--kind", "spot_risk_worse").out


def test_recommend_and_tco_take_the_alibaba_band(demo_cli) -> None:
    """On the demo's store (alibaba-api prices, alibaba-spot-advice of 2026-12-01)."""
    answer = demo_cli("recommend", "--gpus", "8", "--price-model", "spot", "--limit", "0", "--format", "json")
    assert answer.code == 0, answer.err
    why = {(r["provider"], r["instance_type"]): r["why"] for r in json.loads(answer.out)}
    # ecs.gn7i: 0-3% in one zone, 3-5% in the other; the region takes the riskier.
    assert (
        "interruptions 3-5% a month (Alibaba DescribeSpotAdvice, 2026-12-01)" in why["alibaba", "ecs.gn7i-c8g1.2xlarge"]
    )
    tco = demo_cli("tco", "--gpu", "A100", "--count", "8", "--mix", "spot=1", "--format", "json")
    assert tco.code == 0, tco.err
    (row,) = [r for r in json.loads(tco.out) if r["instance_type"] == "ecs.gn7e-c16g1.32xlarge"]
    assert row["interruption"] == "5-10% a month (Alibaba DescribeSpotAdvice, 2026-12-01)"
    assert Decimal(row["interruption_cost"]) > 0
    limited = demo_cli("recommend", "--gpus", "8", "--price-model", "spot", "--max-interruption", "5")
    assert limited.code == 0, limited.err
    assert "spot interruptions 5-10% (Alibaba DescribeSpotAdvice): ecs.gn7e-c16g1.32xlarge in cn-beijing" in " ".join(
        limited.err.split()
    )


def test_a_volcano_band_that_worsens_alerts_once_over_pages(cli) -> None:
    first = cli("crawl", "volcengine-spot-advice", "-r", "cn-beijing", "--replay", str(VOLCENGINE[0]))
    assert first.code == 0, first.err
    # Both pages read: one pool per type.
    assert "2 spot pools, 2 new" in " ".join(first.err.split())
    second = cli(
        "crawl", "volcengine-spot-advice", "-r", "cn-beijing", "--replay", str(VOLCENGINE[1]), "--format", "json"
    )
    assert second.code == 0, second.err
    changes = json.loads(second.out)
    assert [(c["kind"], c["instance_type"], c["detail"]) for c in changes] == [
        ("spot_risk_worse", "ecs.pni2.28xlarge", "new_band: 10-20%; old_band: 0-5%")
    ]


def test_a_live_crawl_without_keys_is_skipped(cli, home: Path) -> None:
    result = cli("crawl", "alibaba-spot-advice", "-r", "cn-beijing")
    assert "alibaba-spot-advice: skipped: no API key" in " ".join(result.err.split())
