"""Verda (formerly DataCrunch): the API answers, the normalizer with stock per
location, a replay of the demo captures (constructed in the verda SDK's
shapes; see tests/fixtures/verda/make_fixtures.py), the secrets kept out of
captures, and the missing API client."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from spiders.har import SECRET_PLACEHOLDER, mask_json_body, read_har, request_key
from spiders.pages import PageShapeError
from spiders.verda.api_pages import access_token, parse_availability, parse_instance_types, parse_locations
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import only
from tracker.normalize import NormalizeError
from tracker.normalize.providers.verda import normalize

# A whole crawl replayed end to end tests the spider, which does not depend on the store.
pytestmark = pytest.mark.backends("sqlite")

FOLDER = DEMO_CAPTURES / "verda"
EARLY, LATE = sorted(FOLDER.glob("*.har.gz"))


def raw_items(path: Path = EARLY, regions: list[str] | None = None) -> list[Any]:
    items = []
    records: list[Any]
    for entry in read_har(path)["log"]["entries"]:
        url, body = entry["request"]["url"], entry["response"]["content"]["text"].encode()
        if url.endswith("/oauth2/token"):
            continue
        if "/instance-types" in url:
            kind, records = "verda.type", parse_instance_types(body)
        elif url.endswith("/locations"):
            kind, records = "verda.location", parse_locations(body)
        else:
            kind, records = "verda.availability", parse_availability(body, url.endswith("isSpot=true"))
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


def test_the_capture_holds_no_secret() -> None:
    token = read_har(EARLY)["log"]["entries"][0]
    grant = json.loads(token["request"]["postData"]["text"])
    assert (grant["client_id"], grant["client_secret"]) == (SECRET_PLACEHOLDER, SECRET_PLACEHOLDER)
    assert access_token(token["response"]["content"]["text"].encode()) == SECRET_PLACEHOLDER


def test_secret_body_members_are_masked_and_match_any_value() -> None:
    secret = ["client_id", "client_secret", "access_token"]
    sent = json.dumps({"grant_type": "client_credentials", "client_id": "abc", "client_secret": "s3cret"}).encode()
    masked = mask_json_body(sent, secret)
    assert masked is not None
    assert b"s3cret" not in masked and json.loads(masked)["grant_type"] == "client_credentials"
    url = "https://api.verda.com/v1/oauth2/token"
    assert request_key("POST", url, sent, secret) == request_key("POST", url, masked, secret)
    other = sent.replace(b"client_credentials", b"refresh_token")
    assert request_key("POST", url, other, secret) != request_key("POST", url, masked, secret)
    assert mask_json_body(b"not json", secret) == b"not json"


def test_answers_of_the_wrong_shape_are_errors() -> None:
    with pytest.raises(PageShapeError, match="no access_token"):
        access_token(b'{"error": "invalid_client"}')
    with pytest.raises(PageShapeError, match="no location_code"):
        parse_availability(b'[{"availabilities": []}]', False)


# type, location, price model, price, availability
QUOTES = [
    ("1H100.80S.30V", "FIN-01", "on_demand", "3.95", "available"),
    ("1H100.80S.30V", "FIN-02", "on_demand", "3.95", "sold_out"),
    ("1H100.80S.30V", "FIN-03", "spot", "1.70", "available"),
    ("8H100.80S.176V", "FIN-03", "on_demand", "31.60", "available"),
    ("8H100.80S.176V", "FIN-01", "on_demand", "31.60", "sold_out"),
    ("8V100.48V", "FIN-01", "spot", "1.12", "available"),
    ("1A100.40S.22V", "ICE-01", "on_demand", "1.29", "sold_out"),
]


@pytest.mark.parametrize("kind, location, model, price, stock", QUOTES)
def test_quotes_with_stock_per_location(kind, location, model, price, stock) -> None:
    quote = only(normalize(raw_items()).quotes, instance_type=kind, region=location, price_model=model)
    assert (quote.price, quote.availability, quote.currency) == (Decimal(price), stock, "USD")


def test_gpu_figures_and_cpu_types_left_out() -> None:
    quotes = normalize(raw_items()).quotes
    h100 = only(quotes, instance_type="8H100.80S.176V", region="FIN-03", price_model="on_demand")
    assert (h100.gpu_model, h100.gpu_count, h100.gpu_memory_gb, h100.vcpu, h100.memory_gb) == (
        "H100",
        Decimal(8),
        Decimal(640),
        Decimal(176),
        Decimal(1480),
    )
    assert h100.gpu_interconnect == "NVLink 4 via NVSwitch 3 (900 GB/s)"
    ada = only(quotes, instance_type="1RTX6000ADA.10V", region="FIN-02", price_model="on_demand")
    assert (ada.gpu_model, ada.gpu_interconnect) == ("RTX 6000 Ada", "PCIe")
    assert not [q for q in quotes if q.instance_type.startswith("CPU.")]
    # 5 GPU types x 4 locations x (on demand + spot)
    assert len(quotes) == 40


def test_regions_select_locations() -> None:
    quotes = normalize(raw_items(regions=["FIN-03"])).quotes
    assert {q.region for q in quotes} == {"FIN-03"}
    with pytest.raises(NormalizeError, match="no location among"):
        normalize(raw_items(regions=["MARS-01"]))


def test_an_odd_type_is_skipped_with_a_note() -> None:
    items = raw_items()
    odd = copy.deepcopy(next(i for i in items if i["kind"] == "verda.type"))
    odd["data"].update(instance_type="1GB300.36V", gpu={"description": "1x GB300 288GB", "number_of_gpus": 1})
    out = normalize([*items, odd])
    assert len(out.quotes) == 40
    assert out.notes == ["verda: type 1GB300.36V skipped: its GPU '1x GB300 288GB' is not one we know"]


def crawl(cli, har: Path):
    return cli("crawl", "verda", "--replay", str(har), "--format", "json")


def test_replay_two_captures_says_8xh100_is_available_again(sqlite_cli) -> None:
    assert crawl(sqlite_cli, EARLY).code == 0
    changes = json.loads(crawl(sqlite_cli, LATE).out)
    stock = sorted(
        (c["instance_type"], c["region"], c["detail"]) for c in changes if c["kind"] == "availability_changed"
    )
    assert [(t, r) for t, r, _ in stock] == [("8H100.80S.176V", "FIN-01"), ("8H100.80S.176V", "FIN-03")]
    drops = {(c["region"], c["price_model"], c["new_price"]) for c in changes if c["kind"] == "price_drop"}
    assert len(drops) == 8 and ("FIN-01", "on_demand", "3.35") in drops and ("ICE-01", "spot", "1.49") in drops


def test_a_live_crawl_without_a_client_is_skipped_in_one_sentence(sqlite_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_TRACKER_VERDA_CLIENT_ID", raising=False)
    monkeypatch.delenv("GPU_TRACKER_VERDA_CLIENT_SECRET", raising=False)
    result = sqlite_cli("crawl", "verda")
    errors = [line for line in result.err.splitlines() if line.startswith("error:")]
    assert result.code == 1 and "Traceback" not in result.err and len(errors) == 1
    assert "verda: skipped: no API key; set client_id and client_secret under [providers.verda]" in errors[0]
    assert "GPU_TRACKER_VERDA_CLIENT_ID and GPU_TRACKER_VERDA_CLIENT_SECRET" in errors[0]
