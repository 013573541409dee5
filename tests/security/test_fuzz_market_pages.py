"""Hostile marketplace answers (Vast.ai, TensorDock, RunPod, AutoDL, 矩池云):
the page objects raise only PageShapeError, and whatever they let through
the normalizers turn into quotes or a NormalizeError, never a crash."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given

from spiders.autodl.pages import parse_machines as autodl_machines
from spiders.matpool.pages import parse_machines as matpool_machines
from spiders.pages import PageShapeError
from spiders.runpod.pages import parse_catalog, parse_stock
from spiders.tensordock.pages import parse_hostnodes
from spiders.vastai.pages import parse_offers
from tests.security.shapes import bodies
from tests.security.test_fuzz import FUZZ
from tracker.normalize import NormalizeError
from tracker.normalize.providers import autodl, matpool, runpod, tensordock, vastai

WHEN = datetime(2026, 11, 2, tzinfo=UTC).isoformat()
VAST = {
    "offers": [
        {
            "id": 1,
            "gpu_name": "RTX 4090",
            "num_gpus": 2,
            "dph_total": 0.8,
            "min_bid": 0.4,
            "gpu_ram": 24564,
            "geolocation": "Sweden, SE",
            "verification": "verified",
        }
    ]
}
TENSORDOCK = {
    "data": {
        "hostnodes": [
            {
                "id": "hn",
                "available_resources": {
                    "gpus": [{"v0Name": "h100-sxm5-80gb", "availableCount": 4, "price_per_hr": 2.2}]
                },
                "location": {"city": "Austin", "country": "United States", "tier": 3},
            }
        ]
    }
}
CATALOG: dict[str, Any] = {
    "data": {
        "countryCodes": ["US"],
        "dataCenters": [{"id": "EU-RO-1", "listed": True}],
        "gpuTypes": [
            {"id": "NVIDIA GeForce RTX 4090", "displayName": "RTX 4090", "memoryInGb": 24, "securePrice": 0.69}
        ],
    }
}
STOCK = {
    "data": {
        "gpuTypes": [
            {
                "id": "NVIDIA GeForce RTX 4090",
                "lowestPrice": {"stockStatus": "High", "uninterruptablePrice": 0.34, "minimumBidPrice": 0.2},
            }
        ]
    }
}
AUTODL = {
    "code": "Success",
    "data": {
        "list": [
            {
                "machine_id": "m",
                "region_sign": "beijing-B",
                "region_name": "北京B区",
                "gpu_name": "RTX 4090",
                "gpu_number": 8,
                "gpu_idle_num": 3,
                "machine_sku_info": [{"type": "payg", "current_price": 1980}],
            }
        ],
        "max_page": 1,
    },
}
MATPOOL = {
    "code": 0,
    "machines": [
        {
            "agentId": 1,
            "gpu": {"available": 2, "total": 8},
            "hardware": {"gpu": {"gpuName": "RTX 4090"}, "priceMillicent": 220000},
        }
    ],
    "pagination": {"numPages": 1},
}


def items(kind: str, records: list[Any], regions: list[str] | None = None) -> list[Any]:
    return [
        {"kind": kind, "observed_at": WHEN, "source_url": "https://x", "regions": regions or [], "data": r}
        for r in records
    ]


def through(parse, normalize, kind: str, body: bytes, *args: Any) -> None:
    """The page object, then the normalizer on what it kept."""
    try:
        found = parse(body, *args)
    except PageShapeError:
        return
    records = found[0] if isinstance(found, tuple) else found
    try:
        normalize(items(kind, list(records)))
    except NormalizeError:
        pass


def test_the_valid_documents_give_quotes() -> None:
    import json

    assert vastai.normalize(items("vastai.offer", parse_offers(json.dumps(VAST).encode())[0])).quotes
    assert tensordock.normalize(items("tensordock.hostnode", parse_hostnodes(json.dumps(TENSORDOCK).encode())[0]))
    assert autodl.normalize(items("autodl.machine", autodl_machines(json.dumps(AUTODL).encode())[0])).quotes
    assert matpool.normalize(items("matpool.machine", matpool_machines(json.dumps(MATPOOL).encode())[0])).quotes
    types = items("runpod.gpu_type", parse_catalog(json.dumps(CATALOG).encode())[0])
    stock = items("runpod.stock", parse_stock(json.dumps(STOCK).encode(), "US", 1))
    assert runpod.normalize_community(types + stock).quotes
    assert runpod.normalize(types + items("runpod.stock", parse_stock(json.dumps(STOCK).encode(), "EU-RO-1", 1)))


@FUZZ
@given(bodies(VAST), bodies(TENSORDOCK))
def test_vastai_and_tensordock(vast: bytes, hostnodes: bytes) -> None:
    through(parse_offers, vastai.normalize, "vastai.offer", vast)
    through(parse_hostnodes, tensordock.normalize, "tensordock.hostnode", hostnodes)


@FUZZ
@given(bodies(AUTODL), bodies(MATPOOL))
def test_autodl_and_matpool(machines: bytes, market: bytes) -> None:
    through(autodl_machines, autodl.normalize, "autodl.machine", machines)
    through(matpool_machines, matpool.normalize, "matpool.machine", market)


@FUZZ
@given(bodies(CATALOG), bodies(STOCK))
def test_runpod(catalog: bytes, stock: bytes) -> None:
    try:
        types = items("runpod.gpu_type", parse_catalog(catalog)[0])
    except PageShapeError:
        types = items("runpod.gpu_type", [CATALOG["data"]["gpuTypes"][0]])
    try:
        found = items("runpod.stock", parse_stock(stock, "US", 2))
    except PageShapeError:
        return
    for normalize in (runpod.normalize, runpod.normalize_community):
        try:
            normalize(types + found)
        except NormalizeError:
            pass
