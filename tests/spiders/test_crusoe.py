"""Crusoe Cloud: the pricing page in its two known layouts and as a real copy
(tests/fixtures/crusoe/pricing-real-2026-08-22.html: only the GPU instances
are GPU offers, not the Self-Serve Deployments endpoints), the API answers,
the signature as Crusoe documents it, the normalizer (types priced by their
GPU's card, stock per location), a replay of the demo captures (constructed;
see tests/fixtures/crusoe/make_fixtures.py), the secrets kept out of captures
and the missing key."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from parsel import Selector

from spiders.crusoe.pages import api_error, first_project, parse_capacities, parse_pricing, parse_types
from spiders.crusoe.signing import signed_headers
from spiders.har import read_har
from spiders.pages import PageShapeError
from tests.conftest import DEMO_CAPTURES, FIXTURES
from tests.helpers.harutil import from_jsonl, only
from tracker.normalize import NormalizeError
from tracker.normalize.providers.crusoe import normalize

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

FOLDER = DEMO_CAPTURES / "crusoe"
EARLY, LATE = sorted(FOLDER.glob("*.har.gz"))


def raw_items(path: Path = EARLY, regions: list[str] | None = None) -> list[Any]:
    items = []
    records: list[Any]
    for entry in read_har(path)["log"]["entries"]:
        url, body = entry["request"]["url"], entry["response"]["content"]["text"]
        if url.endswith("/cloud/pricing"):
            kind, records = "crusoe.price", parse_pricing(Selector(text=body))
        elif url.endswith("/compute/vms/types"):
            kind, records = "crusoe.type", parse_types(body.encode())
        elif url.endswith("/capacities"):
            kind, records = "crusoe.capacity", parse_capacities(body.encode())
        else:
            continue
        items += [
            {
                "kind": kind,
                "observed_at": entry["startedDateTime"],
                "source_url": url,
                "regions": regions or [],
                "data": r,
            }
            for r in records
        ]
    return items


def test_both_card_layouts_read_alike() -> None:
    cms = parse_pricing(Selector(text=(FIXTURES / "crusoe" / "pricing-cms-list.html").read_text()))
    demo = [i["data"] for i in raw_items() if i["kind"] == "crusoe.price"]
    assert cms == demo
    assert demo[3] == {
        "name": "NVIDIA H100",
        "tags": ["80GB", "HGX"],
        "prices": ["$3.90/GPU-hr", "Contact sales"],
        "section": "GPU instances pricing",
    }


REAL = FIXTURES / "crusoe" / "pricing-real-2026-08-22.html"


def real_cards() -> list[Any]:
    return parse_pricing(Selector(text=REAL.read_text()))


def test_the_real_page_cards_and_their_sections() -> None:
    cards = real_cards()
    gpu = [c for c in cards if c.get("section") == "GPU instances pricing"]
    assert [(c["name"], c["tags"], c["prices"][0]) for c in gpu] == [
        ("NVIDIA GB200", ["186GB", "NVL72"], "Contact sales"),
        ("NVIDIA B200", ["180GB", "HGX"], "Contact sales"),
        ("NVIDIA H200", ["141GB", "HGX"], "$4.29/GPU-hr"),
        ("NVIDIA H100", ["80GB", "HGX"], "$3.90/GPU-hr"),
        ("NVIDIA A100", ["80GB", "SXM"], "$2.30/GPU-hr"),
        ("NVIDIA A100", ["80GB", "PCIe"], "$2.00/GPU-hr"),
        ("NVIDIA L40S", ["48GB"], "$1.50/GPU-hr"),
        ("AMD MI355X", ["288GB"], "Contact sales"),
        ("AMD MI300X", ["192GB"], "$3.45/GPU-hr"),
    ]
    endpoints = [c for c in cards if "Self-Serve" in c.get("section", "")]
    assert [(c["name"], c["tags"], c["prices"]) for c in endpoints] == [
        ("NVIDIA H100", ["80GB", "HGX"], ["$5.50"]),
        ("NVIDIA H200", ["141GB", "HGX"], ["$6.00"]),
    ]


def test_on_the_real_page_only_vm_gpu_cards_price_types() -> None:
    page = [
        {"kind": "crusoe.price", "observed_at": "2026-08-22T00:00:00Z", "source_url": "", "regions": [], "data": c}
        for c in real_cards()
    ]
    out = normalize(from_jsonl([*page, *(i for i in raw_items() if i["kind"] != "crusoe.price")]))
    h100 = only(out.quotes, instance_type="h100-80gb-sxm-ib.8x", region="us-east1-a")
    h200 = only(out.quotes, instance_type="h200-141gb-sxm-ib.8x", region="eu-iceland1-a")
    assert (h100.per_gpu_hour(), h200.per_gpu_hour()) == (Decimal("3.90"), Decimal("4.29"))
    endpoint_notes = [n for n in out.notes if "Self-Serve Deployments" in n]
    assert endpoint_notes == [
        "crusoe: card 'NVIDIA H100' under 'Self-Serve Deployments pricing' is not a GPU instance"
        " (a managed product priced $5.50); left out",
        "crusoe: card 'NVIDIA H200' under 'Self-Serve Deployments pricing' is not a GPU instance"
        " (a managed product priced $6.00); left out",
    ]
    assert not any("DeepSeek" in n or "General-purpose" in n for n in out.notes)


def test_answers_of_the_wrong_shape_are_errors() -> None:
    with pytest.raises(PageShapeError, match="no GPU card"):
        parse_pricing(Selector(text="<html><body><h1>Pricing</h1><table></table></body></html>"))
    with pytest.raises(PageShapeError, match="no items list"):
        parse_capacities(b'{"capacities": []}')
    with pytest.raises(PageShapeError, match="lists no type"):
        parse_types(b'{"items": []}')
    with pytest.raises(PageShapeError, match="sees no project"):
        first_project(b'{"items": []}')
    assert api_error(b'{"code": "401", "message": "bad_credential"}') == "401: bad_credential"
    assert api_error(b"<html>") is None


def test_the_signature_is_the_documented_hmac() -> None:
    secret = base64.urlsafe_b64encode(b"the secret key").decode().rstrip("=")
    when = datetime(2026, 10, 5, 8, 0, 0, 123456, tzinfo=UTC)
    headers = signed_headers("get", "https://api.crusoecloud.com/v1alpha5/capacities?b=2&a=1", "AK", secret, when)
    assert headers["X-Crusoe-Timestamp"] == "2026-10-05T08:00:00+00:00"
    payload = b"/v1alpha5/capacities\na=1&b=2\nGET\n2026-10-05T08:00:00+00:00\n"
    digest = hmac.new(b"the secret key", payload, hashlib.sha256).digest()
    assert headers["Authorization"] == "Bearer 1.0:AK:" + base64.urlsafe_b64encode(digest).decode().rstrip("=")


# type, location, price, availability
QUOTES = [
    ("h100-80gb-sxm-ib.8x", "us-east1-a", "31.20", "sold_out"),
    ("h100-80gb-sxm-ib.8x", "eu-iceland1-a", "31.20", "available"),  # 2 and 0: the largest counts
    ("h200-141gb-sxm-ib.8x", "us-southcentral1-a", "34.32", "sold_out"),
    ("a100-80gb-sxm-ib.8x", "us-east1-a", "18.40", "available"),  # the SXM card, not the PCIe one
    ("l40s-48gb.1x", "us-northcentral1-a", "1.50", "available"),
    ("l40s-48gb.10x", "us-northcentral1-a", "15.00", "available"),
]


@pytest.mark.parametrize("kind, location, price, stock", QUOTES)
def test_types_priced_by_their_gpu_with_stock_per_location(kind, location, price, stock) -> None:
    quote = only(normalize(raw_items()).quotes, instance_type=kind, region=location)
    assert (quote.price, quote.availability, quote.currency, quote.price_model) == (
        Decimal(price),
        stock,
        "USD",
        "on_demand",
    )
    assert quote.source_url == "https://www.crusoe.ai/cloud/pricing"


def test_gpu_figures_notes_and_what_is_left_out() -> None:
    out = normalize(raw_items())
    h200 = only(out.quotes, instance_type="h200-141gb-sxm-ib.8x", region="eu-iceland1-a")
    assert (h200.gpu_model, h200.gpu_count, h200.gpu_memory_gb, h200.vcpu, h200.memory_gb) == (
        "H200",
        Decimal(8),
        Decimal(1128),
        Decimal(176),
        Decimal(1960),
    )
    assert h200.gpu_interconnect == "NVLink 4 via NVSwitch 3 (900 GB/s)"
    l40s = only(out.quotes, instance_type="l40s-48gb.1x", region="us-northcentral1-a")
    assert (l40s.gpu_model, l40s.gpu_interconnect, l40s.per_gpu_hour()) == ("L40S", "PCIe", Decimal("1.50"))
    assert not [q for q in out.quotes if q.instance_type.startswith(("c1a", "b200"))]
    assert len(out.quotes) == 7
    assert out.notes == [
        "crusoe: card 'NVIDIA GB200 186GB NVL72' gives no price per GPU-hour ('Contact sales')",
        "crusoe: card 'NVIDIA B200 180GB HGX' gives no price per GPU-hour ('Contact sales')",
        "crusoe: card 'NVIDIA H100' under 'Self-Serve Deployments pricing' is not a GPU instance"
        " (a managed product priced $5.50); left out",
        "crusoe: card 'NVIDIA H200' under 'Self-Serve Deployments pricing' is not a GPU instance"
        " (a managed product priced $6.00); left out",
        "crusoe: type b200-180gb-sxm-ib.8x skipped: no card of the pricing page prices its B200-SXM-180GB",
    ]


def test_regions_select_locations() -> None:
    quotes = normalize(raw_items(regions=["eu-iceland1-a"])).quotes
    assert {q.region for q in quotes} == {"eu-iceland1-a"} and len(quotes) == 2
    with pytest.raises(NormalizeError, match="no GPU type could be priced"):
        normalize(raw_items(regions=["mars-1a"]))


def test_odd_types_and_capacities_are_skipped_with_a_note() -> None:
    items = raw_items()
    kind = next(i for i in items if i["kind"] == "crusoe.type")
    odd = copy.deepcopy(kind)
    odd["data"].update(product_name="a100.2x", gpu_type="A100", num_gpu=2)  # the API's own example: no memory
    weird = copy.deepcopy(kind)
    weird["data"].update(product_name="mi355x.8x", gpu_type="MI355X_288GB")
    bad = copy.deepcopy(next(i for i in items if i["kind"] == "crusoe.capacity"))
    bad["data"]["quantity"] = "many"
    out = normalize([*items, odd, weird, bad])
    assert len(out.quotes) == 7
    assert "crusoe: type a100.2x skipped: its GPU 'A100' is not one we know" in out.notes
    assert "crusoe: type mi355x.8x skipped: its GPU 'MI355X_288GB' is not one we know" in out.notes
    assert any(n.startswith("crusoe: a capacity entry skipped") for n in out.notes)


def test_no_page_or_no_types_fails_the_run() -> None:
    items = raw_items()
    with pytest.raises(NormalizeError, match="no GPU card"):
        normalize([i for i in items if i["kind"] != "crusoe.price"])
    with pytest.raises(NormalizeError, match="no VM type"):
        normalize([i for i in items if i["kind"] != "crusoe.type"])


def crawl(cli, har: Path):
    return cli("crawl", "crusoe", "--replay", str(har), "--format", "json")


def test_replay_two_captures_says_8xh100_is_available_again(sqlite_cli) -> None:
    assert crawl(sqlite_cli, EARLY).code == 0
    changes = json.loads(crawl(sqlite_cli, LATE).out)
    stock = sorted((c["instance_type"], c["region"]) for c in changes if c["kind"] == "availability_changed")
    assert stock == [("h100-80gb-sxm-ib.8x", "us-east1-a"), ("l40s-48gb.10x", "us-northcentral1-a")]
    drops = sorted((c["region"], c["new_price"]) for c in changes if c["kind"] == "price_drop")
    assert drops == [("eu-iceland1-a", "28.80"), ("us-east1-a", "28.80")]


def test_the_capture_holds_no_secret() -> None:
    for entry in read_har(EARLY)["log"]["entries"]:
        auth = [h["value"] for h in entry["request"]["headers"] if h["name"].lower() == "authorization"]
        assert auth in ([], ["REDACTED"])


def test_a_live_crawl_without_a_key_is_skipped_in_one_sentence(sqlite_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_CRUSOE_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("GPU_TRACKER_CRUSOE_ACCESS_KEY_SECRET", raising=False)
    result = sqlite_cli("crawl", "crusoe")
    errors = [line for line in result.err.splitlines() if line.startswith("error:")]
    assert result.code == 1 and "Traceback" not in result.err and len(errors) == 1
    assert "crusoe: skipped: no API key; set access_key_id and access_key_secret under [providers.crusoe]" in errors[0]
