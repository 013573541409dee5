"""huawei-api on Huawei's documented ListFlavors states
(tests/fixtures/huawei-api/listflavors-documented.json, README beside it):
a flavor abandoned region-wide but sold in the zones `cond:operation:az`
names is read zone by zone, for every price, as a person reads the answer;
its abandoned zones are not offered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from spiders.huawei.api_pages import parse_flavors, parse_on_demand, parse_period, zone_states
from tracker.normalize.providers.huawei import normalize_api

ANSWER = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "huawei-api" / "listflavors-documented.json").read_text("utf-8")
)
REGION = "cn-east-2"
OBSERVED = {"observed_at": "2026-07-02T00:00:00Z", "source_url": "https://ecs.cn-east-2.myhuaweicloud.com"}


def items() -> list[Any]:
    flavors = parse_flavors(ANSWER["ListFlavors"])
    out: list[dict[str, Any]] = [
        {**OBSERVED, "kind": "huawei.api.flavor", "region": REGION, "data": f} for f in flavors
    ]
    names = sorted(f["flavor"] for f in flavors)
    rated = {
        "on_demand": parse_on_demand(ANSWER["ListOnDemandResourceRatings"]),
        "1mo": parse_period(ANSWER["ListRateOnPeriodDetail 1mo"]),
        "1yr": parse_period(ANSWER["ListRateOnPeriodDetail 1yr"]),
    }
    for variant, lines in rated.items():
        for n, name in enumerate(names):
            data = {"flavor": name, "variant": variant, **lines[str(n)]}
            out.append({**OBSERVED, "kind": "huawei.api.price", "region": REGION, "currency": "CNY", "data": data})
    return out


def test_the_documented_states_read_per_zone() -> None:
    reference = ANSWER["ListFlavors"]["flavors"][0]["os_extra_specs"]
    assert zone_states(reference) == (
        "abandon",
        {"az0": "normal", "az1": "sellout", "az2": "obt", "az3": "normal"},
    )
    guide = ANSWER["ListFlavors"]["flavors"][2]["os_extra_specs"]
    # The usage guide's reading: 2a and 2b on sale, 2d sold out, 2c (not named) takes abandon: offline.
    assert zone_states(guide) == ("abandon", {"cn-east-2d": "sellout", "cn-east-2a": "normal", "cn-east-2b": "normal"})
    assert zone_states({"cond:operation:az": "AZ1.DC1 ( Normal ),az2(abandon)"}) == (
        "normal",
        {"AZ1.DC1": "normal", "az2": "abandon"},
    )


def test_every_row_a_person_reads_in_the_documented_answer() -> None:
    result = normalize_api(items())
    rows = sorted((q.instance_type, q.price_model, q.zone, q.availability) for q in result.quotes)
    zones = {
        "p2s.2xlarge.8": [("az0", "available"), ("az1", "sold_out"), ("az2", "limited"), ("az3", "available")],
        "p2v.2xlarge.8": [("cn-east-2a", "available"), ("cn-east-2b", "available"), ("cn-east-2d", "sold_out")],
    }
    expected = sorted(
        (flavor, model, zone, state)
        for flavor, named in zones.items()
        for model in ("on_demand", "monthly", "yearly")
        for zone, state in named
    )
    assert rows == expected and len(rows) == 21
    # Not offered: the zones the answers leave to `abandon` (cn-east-2c), nor a row without a zone.
    assert not [q for q in result.quotes if q.zone in ("", "cn-east-2c")]
    assert not result.held and not [n for n in result.notes if "sale state" in n]


def test_period_rows_keep_their_price_per_zone() -> None:
    quotes = [q for q in normalize_api(items()).quotes if q.instance_type == "p2s.2xlarge.8"]
    monthly = {q.zone: q.price for q in quotes if q.price_model == "monthly"}
    assert set(monthly.values()) == {6170} and sorted(monthly) == ["az0", "az1", "az2", "az3"]
