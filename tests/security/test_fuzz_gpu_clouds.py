"""Hostile answers to the GPU clouds' page objects and normalizers (Vultr,
DigitalOcean, Verda): a page either parses, or fails with a PageShapeError;
what it yields either normalizes, or fails with a NormalizeError, an odd item
becoming a note. Never another exception."""

from __future__ import annotations

from typing import Any

from hypothesis import given

from spiders.digitalocean.pages import parse_sizes_page
from spiders.pages import PageShapeError
from spiders.verda.api_pages import access_token, parse_availability, parse_instance_types, parse_locations
from spiders.vultr.pages import parse_plans_page
from tests.security.shapes import bodies
from tests.security.test_fuzz import FUZZ
from tracker.normalize import NormalizeError
from tracker.normalize.providers import digitalocean, verda, vultr

VCG = {
    "id": "vcg-a100-1c-6g-4vram",
    "vcpu_count": 1,
    "ram": 6144,
    "monthly_cost": 90,
    "hourly_cost": 0.123,
    "type": "vcg",
    "locations": ["ewr"],
    "gpu_vram_gb": 4,
    "gpu_type": "NVIDIA_A100",
}
METAL = {
    "id": "vbm-112c-2048gb-8-h100-gpu",
    "hourly_cost": 23.92,
    "hourly_cost_preemptible": 18.4,
    "locations": ["sea"],
}
VULTR = {"plans": [VCG], "meta": {"total": 1, "links": {"next": "bmV4dA==", "prev": ""}}}
SIZE = {
    "slug": "gpu-h100x1-80gb",
    "memory": 245760,
    "vcpus": 20,
    "price_monthly": 2522.16,
    "price_hourly": 3.39,
    "regions": ["nyc2"],
    "available": True,
    "gpu_info": {"count": 1, "vram": {"amount": 80, "unit": "gib"}, "model": "nvidia_h100"},
}
SIZES = {"sizes": [SIZE], "links": {"pages": {"next": "https://api.digitalocean.com/v2/sizes?page=2"}}}
TYPE = {
    "instance_type": "1H100.80S.30V",
    "price_per_hour": "3.95",
    "spot_price": "1.70",
    "currency": "usd",
    "cpu": {"number_of_cores": 30},
    "gpu": {"description": "1x H100 SXM5 80GB", "number_of_gpus": 1},
    "gpu_memory": {"size_in_gigabytes": 80},
    "memory": {"size_in_gigabytes": 120},
}
STOCK = [{"location_code": "FIN-01", "availabilities": ["1H100.80S.30V"]}]


def item(kind: str, data: Any) -> Any:
    return {"kind": kind, "observed_at": "2026-10-05T06:00:00Z", "source_url": "https://x", "data": data}


def survives(parse, normalizer, *args: Any) -> None:
    try:
        records = parse(*args)
    except PageShapeError:
        return
    try:
        normalizer(records)
    except NormalizeError:
        pass


@FUZZ
@given(bodies(VULTR), bodies({"plans_metal": [METAL]}))
def test_vultr(page: bytes, metal: bytes) -> None:
    survives(parse_plans_page, lambda r: vultr.normalize([item("vultr.plan", p) for p in r[0]]), page)
    survives(
        lambda b: parse_plans_page(b, metal=True),
        lambda r: vultr.normalize([item("vultr.metal", p) for p in r[0]]),
        metal,
    )


@FUZZ
@given(bodies(SIZES))
def test_digitalocean(page: bytes) -> None:
    survives(
        lambda b: parse_sizes_page(b, "api.digitalocean.com"),
        lambda r: digitalocean.normalize([item("digitalocean.size", s) for s in r[0]]),
        page,
    )


@FUZZ
@given(bodies([TYPE]), bodies(STOCK), bodies({"access_token": "t"}))
def test_verda(types: bytes, stock: bytes, token: bytes) -> None:
    try:
        access_token(token)
    except PageShapeError:
        pass
    location = [item("verda.location", loc) for loc in parse_locations(b'[{"code": "FIN-01"}]')]

    def both(body: bytes) -> tuple[list[Any], list[Any]]:
        return parse_instance_types(body), parse_availability(stock, False)

    def norm(found: tuple[list[Any], list[Any]]) -> None:
        kinds, avail = found
        verda.normalize(
            [*(item("verda.type", k) for k in kinds), *location, *(item("verda.availability", a) for a in avail)]
        )

    survives(both, norm, types)
