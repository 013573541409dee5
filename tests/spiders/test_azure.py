"""Azure: the page object and the normalizer, on the fixture captures."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.azure.pages import parse_retail_page
from spiders.har import read_har
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tracker.normalize.providers.azure import normalize
from tracker.normalize.specs import spec_table

FIXTURE = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"


def raw_items(path: Path = FIXTURE) -> list[Any]:
    items = []
    for entry in read_har(path)["log"]["entries"]:
        found, _ = parse_retail_page(entry["response"]["content"]["text"].encode())
        items += [
            {
                "kind": "azure.retail_item",
                "observed_at": entry["startedDateTime"],
                "source_url": entry["request"]["url"],
                "data": i,
            }
            for i in found
        ]
    return items


def all_api_items() -> list[Any]:
    return [
        i for e in read_har(FIXTURE)["log"]["entries"] for i in json.loads(e["response"]["content"]["text"])["Items"]
    ]


def test_page_keeps_only_gpu_families() -> None:
    kept = {i["data"]["armSkuName"] for i in raw_items()}
    every = {i["armSkuName"] for i in all_api_items()}
    assert {"Standard_D4s_v5", "Standard_E8s_v5", "Standard_B2s"} <= every - kept
    assert all(s.startswith(("Standard_NC", "Standard_ND", "Standard_NV", "Standard_NG", "Standard_NP")) for s in kept)


def test_every_gpu_meter_becomes_a_price_row() -> None:
    items = all_api_items()
    expected = 0
    for i in items:
        if not i["armSkuName"].startswith("Standard_N") or i["type"] == "DevTestConsumption":
            continue
        expected += 1 + len(i.get("savingsPlan", []))
    quotes = normalize(raw_items()).quotes
    assert len({q.key for q in quotes}) == len(quotes) == expected


def by(quotes, **want):
    found = [q for q in quotes if all(str(getattr(q, k)) == v for k, v in want.items())]
    assert len(found) == 1, (want, found)
    return found[0]


def test_fields_of_each_price_model() -> None:
    quotes = normalize(raw_items()).quotes
    a100 = dict(instance_type="Standard_ND96amsr_A100_v4", region="westeurope")
    od = by(quotes, **a100, price_model="on_demand", os="linux")
    assert (od.price, od.currency, od.unit, od.gpu_model, od.gpu_count) == (
        Decimal("40.962"),
        "USD",
        "hour",
        "A100 80GB",
        Decimal(8),
    )
    assert od.per_gpu_hour() == Decimal("5.12025")
    assert by(quotes, **a100, price_model="on_demand", os="windows").price == Decimal("45.378")
    assert by(quotes, **a100, price_model="spot", os="linux").price == Decimal("10.65012")
    assert by(quotes, **a100, price_model="low_priority", os="linux").price == Decimal("8.192")
    sp = by(quotes, **a100, price_model="savings_plan", term="1yr")
    assert (sp.price, sp.unit) == (Decimal("35.3051478"), "hour")
    reserved = by(quotes, **a100, price_model="reserved", term="3yr")
    assert reserved.unit == "term"
    assert reserved.hourly_rate() == reserved.price / 26280


def test_devtest_meters_are_skipped() -> None:
    devtest = [i for i in all_api_items() if i["type"] == "DevTestConsumption"]
    assert devtest
    quotes = normalize(raw_items()).quotes
    windows_od = [q for q in quotes if q.os == "windows" and q.price_model == "on_demand"]
    assert len({q.instance_type for q in windows_od}) == len(windows_od)


def test_fractional_gpu_from_the_spec_table() -> None:
    q = by(normalize(raw_items()).quotes, instance_type="Standard_NV6ads_A10_v5", price_model="on_demand", os="linux")
    assert q.gpu_model == "A10" and q.gpu_count == Decimal(1) / 6


# Cells Azure does not publish: (size, column) -> why.
NO_NETWORK = {
    **dict.fromkeys(
        ("Standard_NC6", "Standard_NC12", "Standard_NC24", "Standard_NC24r"),
        "NC (K80), retired: its size table gave NIC counts only",
    ),
    **dict.fromkeys(
        ("Standard_NC6s_v3", "Standard_NC12s_v3", "Standard_NC24s_v3"), "the NCv3 size page gives NIC counts only"
    ),
    **dict.fromkeys(("Standard_NV6", "Standard_NV12", "Standard_NV24"), "the NV size page gives NIC counts only"),
    **dict.fromkeys(
        ("Standard_NC8ads_A10_v4", "Standard_NC16ads_A10_v4", "Standard_NC32ads_A10_v4"),
        "NCads A10 v4 has no size page; only the API lists it",
    ),
    **dict.fromkeys(
        ("Standard_ND96is_H100_v5", "Standard_ND96isflH100v5", "Standard_ND96isnIBH100v5"),
        "priced variants of ND H100 v5 that the size page does not list",
    ),
}
UNPUBLISHED = {(size, "network_gbps"): why for size, why in NO_NETWORK.items()}


def test_spec_table_is_complete() -> None:
    table = spec_table("azure")
    assert len(table) == 75
    gaps = {(spec.instance_type, column) for spec in table.values() for column in spec.missing()}
    assert gaps == set(UNPUBLISHED)


def test_rtx_pro_6000_v6_has_count_memory_and_per_gpu_hour() -> None:
    out = normalize(raw_items())
    assert not [n for n in out.notes if "without a GPU count" in n]
    quarter = by(out.quotes, instance_type="Standard_NC24ldsxlRTX6kv6", price_model="on_demand", os="linux")
    assert (quarter.gpu_count, quarter.gpu_memory_gb, quarter.memory_gb, quarter.network_gbps) == (
        Decimal(1) / 4,
        Decimal(24),
        Decimal(72),
        Decimal("22.5"),
    )
    assert quarter.per_gpu_hour() == quarter.price * 4
    rtx = [q for q in out.quotes if "RTX6k" in q.instance_type]
    assert len({q.instance_type for q in rtx}) == 15 and all(q.per_gpu_hour() is not None for q in rtx)


@pytest.mark.parametrize(
    "body, reason",
    [
        (b'{"Items": [', "not valid JSON"),
        (b'{"items": [], "NextPageLink": null}', "no Items list"),
        (b'{"Items": []}', "no NextPageLink"),
        (b'{"Items": [{"armSkuName": "Standard_NC6"}], "NextPageLink": null}', "retailPrice or type missing in 1/1"),
    ],
)
def test_changed_shapes_fail_loudly(body: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_retail_page(body)
