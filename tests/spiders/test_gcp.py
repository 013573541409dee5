"""GCP: the Billing Catalog page object and the normalizer, on the fixture
captures. Expected machine prices are worked out by hand in the table below,
from the part rates in the fixture, not by our code."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.gcp.items import Sku
from spiders.gcp.pages import parse_skus_page
from spiders.har import HarArchive, mask_query, read_har
from spiders.items import RegionalItem
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES
from tracker.normalize import NormalizeError
from tracker.normalize.providers.gcp import machine_parts, normalize, recognise
from tracker.normalize.specs import spec_table

EARLY = DEMO_CAPTURES / "gcp" / "2026-08-03-us-central1+us-east4+europe-west4.har.gz"


def pages(path: Path = EARLY) -> list[dict]:
    return [json.loads(e["response"]["content"]["text"]) for e in read_har(path)["log"]["entries"]]


def raw_items(path: Path = EARLY, regions: list[str] | None = None) -> list[RegionalItem[Sku]]:
    items: list[RegionalItem[Sku]] = []
    for entry in read_har(path)["log"]["entries"]:
        skus, _ = parse_skus_page(entry["response"]["content"]["text"].encode())
        items += [
            {
                "kind": "gcp.sku",
                "observed_at": entry["startedDateTime"],
                "source_url": entry["request"]["url"],
                "regions": regions or [],
                "data": s,
            }
            for s in skus
        ]
    return items


def find(quotes, instance_type: str, region: str, price_model: str, term: str = ""):
    found = [
        q
        for q in quotes
        if (q.instance_type, q.region, str(q.price_model), q.term) == (instance_type, region, price_model, term)
    ]
    assert len(found) == 1, (instance_type, region, price_model, term, found)
    return found[0]


def test_pages_chain_through_next_page_token() -> None:
    bodies = [json.dumps(p).encode() for p in pages()]
    tokens = [parse_skus_page(b)[1] for b in bodies]
    assert tokens == ["ChA0QjE3LTNBMzQtMDk3Ri0yOBAB", "ChA5QzFBLUQ3QjItRTM0NC03QhAC", None]
    urls = [e["request"]["url"] for e in read_har(EARLY)["log"]["entries"]]
    assert [u.partition("pageToken=")[2] for u in urls] == ["", tokens[0], tokens[1]]


def test_page_keeps_only_compute_parts() -> None:
    every = [s for p in pages() for s in p["skus"]]
    kept = [i["data"] for i in raw_items()]
    dropped = {s["description"] for s in every} - {s["description"] for s in kept}
    assert dropped == {"Storage PD Capacity in Americas", "Nvidia Tesla T4 Virtual Workstation running in Americas"}


# instance type, region, price model, term, hand-computed price
# (vCPUs x core + GiB x RAM + GPUs x GPU, with the fixture's rates)
MACHINES = [
    # 12 x 0.031611 + 85 x 0.004237 + 1 x 2.933908 (the 2023 catalogue gives 3.673385 too)
    ("a2-highgpu-1g", "us-central1", "on_demand", "", "3.673385"),
    # 12 x 0.00948 + 85 x 0.00127 + 1 x 1.1736
    ("a2-highgpu-1g", "us-central1", "spot", "", "1.39531"),
    # 12 x 0.019915 + 85 x 0.002669 + 1 x 1.848362
    ("a2-highgpu-1g", "us-central1", "reserved", "1yr", "2.314207"),
    # 12 x 0.034773 + 85 x 0.004661 + 1 x 3.227299
    ("a2-highgpu-1g", "europe-west4", "on_demand", "", "4.04076"),
    # 96 x 0.031611 + 1360 x 0.004237 + 16 x 2.933908 (2023: 55.739504)
    ("a2-megagpu-16g", "us-central1", "on_demand", "", "55.739504"),
    # 96 x 0.031611 + 1360 x 0.004237 + 8 x 3.92808 (2023: 40.221616)
    ("a2-ultragpu-8g", "us-east4", "on_demand", "", "40.221616"),
    # 208 x 0.0295 + 1872 x 0.00395 + 8 x 9.79655057
    ("a3-highgpu-8g", "us-central1", "on_demand", "", "91.90280456"),
    # A3 Mega from its own A3Plus cores and RAM and the "H100 80GB Plus" GPU of us-central1:
    # 208 x 0.026924 + 1872 x 0.002344 + 8 x 10.344276 (A3 High's cores and RAM would give 91.28...)
    ("a3-megagpu-8g", "us-central1", "on_demand", "", "92.742368"),
    # 208 x 0.01481 + 1872 x 0.001289 + 8 x 4.1377
    ("a3-megagpu-8g", "us-central1", "spot", "", "38.595088"),
    # 208 x 0.012116 + 1872 x 0.001055 + 8 x 4.498983869
    ("a3-megagpu-8g", "us-central1", "reserved", "3yr", "40.486958952"),
    # us-east4 names the same GPU "Mega": 208 x 0.026924 + 1872 x 0.002344 + 8 x 11.06
    ("a3-megagpu-8g", "us-east4", "on_demand", "", "98.46816"),
    # 224 x 0.0129 + 2952 x 0.0017 + 8 x 3.95 (A3Ultra cores and RAM, the "H200 141GB GPU")
    ("a3-ultragpu-8g", "us-central1", "spot", "", "39.508"),
    # A4: no core or RAM SKUs, the slice is the machine per GPU: 8 x 16.11
    ("a4-highgpu-8g", "us-central1", "on_demand", "", "128.88"),
    # 8 x 10.1493
    ("a4-highgpu-8g", "us-central1", "reserved", "1yr", "81.1944"),
    # 8 x 4.9542: the spot slice the catalogue files under usageType OnDemand
    ("a4-highgpu-8g", "us-central1", "spot", "", "39.6336"),
    # 4 x 0.024988 + 16 x 0.002927 + 1 x 0.56004
    ("g2-standard-4", "us-central1", "on_demand", "", "0.706824"),
    # 8 x 0.031611 + 30 x 0.004237 + 1 x 0.35
    ("n1-standard-8+nvidia-tesla-t4x1", "us-central1", "on_demand", "", "0.729998"),
    # 8 x 0.006655 + 30 x 0.000892 + 1 x 0.069
    ("n1-standard-8+nvidia-tesla-t4x1", "us-central1", "spot", "", "0.149"),
    # 64 x 0.014225 + 240 x 0.001907 + 8 x 1.116
    ("n1-standard-64+nvidia-tesla-v100x8", "us-central1", "reserved", "3yr", "10.29608"),
    # 8 x 0.006655 + 30 x 0.000892 + 1 x 0.2892: the tier from 0 usage, not the later 0.25
    ("n1-standard-8+nvidia-tesla-p100x1", "us-central1", "spot", "", "0.3692"),
]


@pytest.mark.parametrize("instance_type, region, price_model, term, price", MACHINES)
def test_machine_price_is_the_sum_of_its_parts(instance_type, region, price_model, term, price) -> None:
    quote = find(normalize(raw_items()).quotes, instance_type, region, price_model, term)
    assert quote.price == Decimal(price)
    assert (quote.currency, quote.unit, quote.provider) == ("USD", "hour", "gcp")


def test_machine_fields_and_attrs() -> None:
    quotes = normalize(raw_items()).quotes
    a2 = find(quotes, "a2-highgpu-8g", "us-central1", "on_demand")
    assert (a2.gpu_model, a2.gpu_count, a2.gpu_memory_gb, a2.vcpu, a2.memory_gb) == (
        "A100 40GB",
        Decimal(8),
        Decimal(320),
        Decimal(96),
        Decimal(680),
    )
    assert a2.gpu_interconnect == "NVLink 3 via NVSwitch 2 (600 GB/s)" and a2.network_gbps == Decimal(100)
    assert a2.attrs["formula"] == "96 x 0.031611 + 680 x 0.004237 + 8 x 2.933908"
    assert (a2.attrs["core_rate"], a2.attrs["ram_rate"], a2.attrs["gpu_rate"]) == ("0.031611", "0.004237", "2.933908")
    h200 = find(quotes, "a3-ultragpu-8g", "us-central1", "on_demand")
    assert (h200.gpu_model, h200.gpu_count, h200.gpu_memory_gb) == ("H200", Decimal(8), Decimal(1128))
    b200 = find(quotes, "a4-highgpu-8g", "us-central1", "reserved", "1yr")
    assert b200.hourly_rate() == Decimal("81.1944") and b200.per_gpu_hour() == Decimal("10.1493")
    assert "core_rate" not in b200.attrs and b200.attrs["formula"].startswith("8 x 10.1493 (a GPU slice")


def test_each_part_is_a_quote_of_its_own() -> None:
    quotes = normalize(raw_items()).quotes
    gpu = find(quotes, "gpu:nvidia-tesla-a100", "us-central1", "on_demand")
    assert gpu.price == Decimal("2.933908") and gpu.attrs["per"] == "GPU"
    # A GPU part names the model of the machines it prices, with no count: it is not an instance.
    assert (gpu.gpu_model, gpu.gpu_count) == ("A100 40GB", None)
    assert find(quotes, "gpu:nvidia-a100-80gb", "us-central1", "on_demand").gpu_model == "A100 80GB"
    assert find(quotes, "gpu:nvidia-h100-mega-80gb", "us-central1", "on_demand").gpu_model == "H100"
    assert find(quotes, "cpu:a2", "us-central1", "on_demand").gpu_model is None
    assert find(quotes, "cpu:a2", "us-east4", "reserved", "3yr").price == Decimal("0.014225")
    ram = find(quotes, "ram:n1", "europe-west4", "spot")
    assert ram.price == Decimal("0.000981") and ram.attrs["per"] == "GiB"


def test_every_price_is_unique_and_complete() -> None:
    quotes = normalize(raw_items()).quotes
    assert len({q.key for q in quotes}) == len(quotes) == 512
    assert {q.region for q in quotes} == {"us-central1", "us-east4", "europe-west4"}
    # Europe has A2, N1 and T4 SKUs only: its machines are those alone.
    europe = {q.instance_type for q in quotes if q.region == "europe-west4" and ":" not in q.instance_type}
    assert europe == {
        "a2-highgpu-1g",
        "a2-highgpu-2g",
        "a2-highgpu-4g",
        "a2-highgpu-8g",
        "a2-megagpu-16g",
        "n1-standard-4+nvidia-tesla-t4x1",
        "n1-standard-8+nvidia-tesla-t4x1",
        "n1-standard-16+nvidia-tesla-t4x2",
        "n1-standard-32+nvidia-tesla-t4x4",
    }


def test_a_gpu_without_its_core_and_ram_is_reported_not_built() -> None:
    out = normalize(raw_items())
    assert not [q for q in out.quotes if q.instance_type == "a3-ultragpu-8g" and q.region == "europe-west4"]
    assert any("nvidia-h200-141gb (on_demand)" in n and "europe-west4" in n for n in out.notes)


def test_regions_limit_the_quotes() -> None:
    quotes = normalize(raw_items(regions=["europe-west4"])).quotes
    assert {q.region for q in quotes} == {"europe-west4"}


@pytest.mark.parametrize(
    "description, usage, group, expected",
    [
        ("Nvidia Tesla A100 GPU running in Americas", "OnDemand", "GPU", ("gpu", "nvidia-tesla-a100")),
        (
            "Nvidia L4 GPU attached to Spot Preemptible VMs running in Belgium",
            "Preemptible",
            "GPU",
            ("gpu", "nvidia-l4"),
        ),
        ("Commitment v1: Nvidia L4 GPU in Frankfurt for 3 Years", "Commit3Yr", "GPU", ("gpu", "nvidia-l4")),
        ("A4 Nvidia B200 (1 gpu slice) running in Americas", "OnDemand", "GPU", ("gpu", "nvidia-b200")),
        (
            "Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 1 Year",
            "Commit1Yr",
            "GPU",
            ("gpu", "nvidia-b200"),
        ),
        # The H100 of A3 Mega, under every name the catalogue has given it.
        ("Nvidia H100 80GB Mega GPU running in Frankfurt", "OnDemand", "GPU", ("gpu", "nvidia-h100-mega-80gb")),
        ("Nvidia H100 80GB Plus GPU running in Americas", "OnDemand", "GPU", ("gpu", "nvidia-h100-mega-80gb")),
        ("Nvidia H100 Mega 80GB GPU running in Americas", "OnDemand", "GPU", ("gpu", "nvidia-h100-mega-80gb")),
        (
            "Commitment v1: Nvidia H100 80GB Plus GPU running in Americas for 3 Years",
            "Commit3Yr",
            "GPU",
            ("gpu", "nvidia-h100-mega-80gb"),
        ),
        ("Nvidia H100 80GB GPU running in Americas", "OnDemand", "GPU", ("gpu", "nvidia-h100-80gb")),
        # Newer SKUs drop the vendor.
        ("H200 141GB GPU running in Belgium", "OnDemand", "GPU", ("gpu", "nvidia-h200-141gb")),
        ("Nvidia H200 141GB GPU running in Americas", "OnDemand", "GPU", ("gpu", "nvidia-h200-141gb")),
        ("RTX 6000 96GB running in Oregon", "OnDemand", "GPU", ("gpu", "nvidia-rtx-pro-6000")),
        ("Nvidia A100 80GB GPU running in Americas", "OnDemand", "GPU", ("gpu", "nvidia-a100-80gb")),
        ("Spot Preemptible A2 Instance Ram running in EMEA", "Preemptible", "RAM", ("ram", "a2")),
        ("Commitment v1: Cpu in Americas for 1 Year", "Commit1Yr", "CPU", ("cpu", "n1")),
        ("N1 Predefined Instance Core running in Americas", "OnDemand", "N1Standard", ("cpu", "n1")),
        ("A3Plus Instance Core running in Americas", "OnDemand", "CPU", ("cpu", "a3plus")),
        ("Spot Preemptible A3Plus Instance Ram running in Americas", "Preemptible", "RAM", ("ram", "a3plus")),
        ("Commitment v1: A3Plus Cpu in Americas for 3 Years", "Commit3Yr", "CPU", ("cpu", "a3plus")),
        # Both spellings of A3 Ultra are one family.
        ("A3 Ultra Instance Core running in Americas", "OnDemand", "CPU", ("cpu", "a3ultra")),
        ("A3Ultra Instance Ram running in Americas", "OnDemand", "RAM", ("ram", "a3ultra")),
        ("SSD backed Local Storage", "OnDemand", "LocalSSD", ("ssd", "local")),
        ("SSD backed Local Storage in Bangkok", "OnDemand", "LocalSSD", ("ssd", "local")),
        ("SSD backed Local Storage attached to Spot Preemptible VMs", "Preemptible", "LocalSSD", ("ssd", "local")),
        ("Commitment v1: Local SSD In Americas for 1 Year", "Commit1Yr", "LocalSSD", ("ssd", "local")),
        ("C4 Instance Local SSD running in Americas", "OnDemand", "LocalSSD", None),
        ("DWS Defined Duration SSD backed Local Storage running in Americas", "OnDemand", "LocalSSD", None),
        ("E2 Instance Core running in Americas", "OnDemand", "CPU", ("cpu", "e2")),
        ("N2 Custom Instance Core running in Americas", "OnDemand", "CPU", None),
        ("Nvidia H100 80GB GPU attached to DWS Defined Duration VMs running in Americas", "OnDemand", "GPU", None),
        ("Reserved Nvidia H100 80GB Mega GPU in Americas in Calendar Mode", "OnDemand", "GPU", None),
        ("Reserved A2 Core running in Americas", "OnDemand", "CPU", None),
    ],
)
def test_descriptions(description: str, usage: str, group: str, expected) -> None:
    assert recognise(description, usage, group) == expected


def test_every_gpu_sku_and_accelerator_family_not_placed_is_named() -> None:
    """Nothing is dropped in silence: a GPU no machine carries (the G4's RTX
    6000, the K80) and a core SKU of an accelerator family we do not build
    (G4) are counted and named in the run's note."""
    notes = [n for n in normalize(raw_items()).notes if "could not be placed" in n]
    assert len(notes) == 1
    assert notes[0].startswith("gcp: 4 GPU or accelerator-family SKUs could not be placed in a machine")
    for named in ("'RTX 6000 96GB running in Americas'", "'Nvidia Tesla K80 GPU running in Americas'", "family g4"):
        assert named in notes[0]


def test_an_unreadable_gpu_description_is_named_not_dropped() -> None:
    items = _edit(A100, lambda s: s.update({"description": "Nvidia Quantum QX1 GPU running in Americas"}))
    out = normalize(items)
    assert any("no GPU model we know in its description: 'nvidia quantum qx1 gpu'" in n for n in out.notes)
    assert not [
        q
        for q in out.quotes
        if q.instance_type == "a2-highgpu-1g" and q.region == "us-central1" and q.price_model == "on_demand"
    ]


def test_bundled_local_ssd_is_stated_beside_the_price() -> None:
    quotes = normalize(raw_items()).quotes
    mega = find(quotes, "a3-megagpu-8g", "us-central1", "on_demand")
    # The price stays GPUs + cores + RAM; the SSD is stated beside it: 6000 GiB x 0.08 / 730 per GiB-hour.
    assert mega.price == Decimal("92.742368")
    assert mega.attrs["local_ssd_gib"] == "6000" and mega.attrs["local_ssd_rate"] == "0.000109589041"
    assert mega.attrs["local_ssd_hourly"] == "0.657534246"
    # With it, Google's own figure for a3-megagpu-8g in us-central1 ($93.40 an hour).
    assert (mega.price + Decimal(mega.attrs["local_ssd_hourly"])).quantize(Decimal("0.01")) == Decimal("93.40")
    ultra = find(quotes, "a2-ultragpu-1g", "us-central1", "on_demand")
    assert ultra.attrs["local_ssd_gib"] == "375" and ultra.attrs["local_ssd_hourly"] == "0.04109589"
    # 12 x 0.031611 + 170 x 0.004237 + 3.92808, plus 375 GiB: Google's a2-ultragpu-1g figure, $5.0688.
    assert (ultra.price + Decimal("0.04109589")).quantize(Decimal("0.0001")) == Decimal("5.0688")
    assert "local_ssd_gib" not in find(quotes, "a2-highgpu-1g", "us-central1", "on_demand").attrs
    # No 3-year Local SSD commitment in the capture: stated, not priced, and said.
    three = find(quotes, "a3-highgpu-8g", "us-central1", "reserved", "3yr")
    assert three.attrs["local_ssd_gib"] == "6000" and "local_ssd_hourly" not in three.attrs
    assert any(
        n.startswith("gcp: no 3yr Local SSD rate in us-central1, us-east4") for n in normalize(raw_items()).notes
    )


def test_a3_mega_uses_its_own_cores_where_the_mega_gpu_is_sold() -> None:
    quotes = normalize(raw_items()).quotes
    mega = [q for q in quotes if q.instance_type == "a3-megagpu-8g"]
    assert {(q.region, str(q.price_model), q.term) for q in mega} == {
        ("us-central1", "on_demand", ""),
        ("us-central1", "spot", ""),
        ("us-central1", "reserved", "1yr"),
        ("us-central1", "reserved", "3yr"),
        ("us-east4", "on_demand", ""),
        ("us-east4", "spot", ""),
    }
    assert {q.attrs["core_sku"] for q in mega} == {
        find(quotes, "cpu:a3plus", q.region, str(q.price_model), q.term).attrs["sku"] for q in mega
    }


def test_spec_table_is_complete() -> None:
    table = spec_table("gcp")
    assert len(table) == 38
    for spec in table.values():
        machine_parts(spec.instance_type)  # every machine knows its parts
        assert spec.gpu_interconnect and spec.network_gbps, spec.instance_type
        assert spec.vcpu and spec.memory_gb and spec.gpu_count and spec.gpu_memory_gb, spec.instance_type


def _edit(description: str, change: Callable[[Sku], object]) -> list[RegionalItem[Sku]]:
    items = copy.deepcopy(raw_items())
    target = next(i["data"] for i in items if i["data"]["description"] == description)
    change(target)
    return items


A100 = "Nvidia Tesla A100 GPU running in Americas"


def _expr(sku: Sku) -> Any:
    return sku["pricingInfo"][0]["pricingExpression"]


@pytest.mark.parametrize(
    "change, reason",
    [
        (lambda s: _expr(s).pop("tieredRates"), "has no tieredRates"),
        (lambda s: _expr(s)["tieredRates"][0].update(startUsageAmount=10), "0 tiers starting at 0 usage"),
        (lambda s: _expr(s)["tieredRates"][0]["unitPrice"].update(units="two"), "'two' where a number belongs"),
        (lambda s: _expr(s)["tieredRates"][0]["unitPrice"].update(nanos=1500000000), "unreadable price"),
        (lambda s: _expr(s)["tieredRates"][0]["unitPrice"].pop("currencyCode"), "no unitPrice with a currencyCode"),
        (lambda s: s["pricingInfo"].append(s["pricingInfo"][0]), "2 pricingInfo entries"),
        (lambda s: _expr(s).update(usageUnit="mo"), "priced per 'mo', expected 'h'"),
    ],
)
def test_shapes_we_cannot_read_fail_loudly(change, reason: str) -> None:
    with pytest.raises(NormalizeError, match=reason):
        normalize(_edit(A100, change))


def test_two_rates_for_one_part_skip_its_machines_there_and_keep_their_prices() -> None:
    items = raw_items()
    twin = copy.deepcopy(next(i for i in items if i["data"]["description"] == A100))
    twin["data"]["skuId"] = "FFFF-0000-1111"
    _expr(twin["data"])["tieredRates"][0]["unitPrice"]["units"] = "3"
    out = normalize(items + [twin])
    assert any("two on_demand rates for gpu:nvidia-tesla-a100 in us-central1" in n for n in out.notes)
    assert not [
        q
        for q in out.quotes
        if q.instance_type == "a2-highgpu-1g"
        and q.price_model == "on_demand"
        and q.region in ("us-central1", "us-east4")
    ]
    assert find(out.quotes, "a2-highgpu-1g", "europe-west4", "on_demand").price == Decimal("4.04076")
    held = {(h.region, h.instance_type, h.price_model) for h in out.held}
    assert ("us-central1", "a2-highgpu-1g", "on_demand") in held


def test_an_unknown_region_is_named() -> None:
    with pytest.raises(NormalizeError, match="no GPU machine part is priced in us-centrl1; check the region"):
        normalize(raw_items(regions=["us-centrl1"]))


def test_no_machine_at_all_is_an_error() -> None:
    items = [i for i in raw_items() if i["data"]["category"]["resourceGroup"] != "GPU"]
    with pytest.raises(NormalizeError, match="no GPU machine could be priced"):
        normalize(items)


@pytest.mark.parametrize(
    "body, reason",
    [
        (b'{"skus": [', "not valid JSON"),
        (b'{"items": []}', "no skus list"),
        (b'{"skus": [], "nextPageToken": 5}', "nextPageToken is 5"),
        (
            b'{"skus": [{"skuId": "A", "category": {"resourceFamily": "Compute", "resourceGroup": "GPU"}}]}',
            "missing in 1/1 SKUs",
        ),
    ],
)
def test_page_shapes_fail_loudly(body: bytes, reason: str) -> None:
    with pytest.raises(PageShapeError, match=reason):
        parse_skus_page(body)


def test_secret_query_parameters_are_masked_and_match_on_replay(tmp_path: Path) -> None:
    url = "https://cloudbilling.googleapis.com/v1/services/X/skus?key=AIzaSecret&pageToken=a%2Bb"
    assert (
        mask_query(url, ["key"])
        == "https://cloudbilling.googleapis.com/v1/services/X/skus?key=REDACTED&pageToken=a%2Bb"
    )
    # `key`, `token`, `password` ... are secrets whatever the spider declares (issue 40.7),
    # and so is a URL's password; another parameter only when declared.
    assert mask_query(url, []) == mask_query(url, ["key"])
    assert mask_query("https://u:PASS@h/p?sessionid=S", []) == "https://u:REDACTED@h/p?sessionid=S"
    assert mask_query("https://h/p?sessionid=S", ["sessionid"]) == "https://h/p?sessionid=REDACTED"
    archive = HarArchive(EARLY, secret_params=["key"])
    first = "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?key=AIzaAnyRealKey"
    assert archive.lookup("GET", first) is not None
    assert HarArchive(EARLY).lookup("GET", first) is not None


def test_recording_masks_secret_parameters_in_urls_and_headers(tmp_path: Path) -> None:
    from scrapy import Request
    from scrapy.http import TextResponse

    from spiders.crawling.middlewares import HarRecordMiddleware

    url = "https://cloudbilling.googleapis.com/v1/services/X/skus?key=AIzaSecret&pageToken=t2"
    request = Request(url, headers={"Referer": url.replace("t2", "t1")})
    recorder = HarRecordMiddleware(str(tmp_path / "out.har"), ["key"])
    recorder.process_request(request)
    recorder.process_response(request, TextResponse(url, body=b'{"skus": []}', request=request))
    recorder.spider_closed(None)  # type: ignore[arg-type]
    text = (tmp_path / "out.har").read_text()
    assert "AIzaSecret" not in text
    entry = read_har(tmp_path / "out.har")["log"]["entries"][0]
    assert entry["request"]["url"].endswith("skus?key=REDACTED&pageToken=t2")
    assert {"name": "Referer", "value": url.replace("AIzaSecret", "REDACTED").replace("t2", "t1")} in entry["request"][
        "headers"
    ]


def test_an_api_url_with_a_query_keeps_one_question_mark() -> None:
    from spiders.gcp.spider import GcpSpider
    from spiders.har import with_query

    spider = GcpSpider(api_key="K", api_url="https://proxy.example/skus?access_token=T")
    url = spider.page_url("p2")
    assert url.count("?") == 1 and url.endswith("?access_token=T&key=K&pageToken=p2")
    assert with_query("https://h/p", "a=1") == "https://h/p?a=1"
