"""Hostile answers to Crusoe's page objects and normalizer: the API's VM types
and capacities, and pricing-page cards of any shape, either parse or fail with
a PageShapeError, and what they yield either normalizes or fails with a
NormalizeError, an odd item becoming a note. Never another exception."""

from __future__ import annotations

from typing import Any

from hypothesis import given

from spiders.crusoe.pages import parse_capacities, parse_types
from spiders.pages import PageShapeError, load_json
from tests.security.shapes import bodies
from tests.security.test_fuzz import FUZZ
from tests.security.test_fuzz_gpu_clouds import item, survives
from tracker.normalize.providers import crusoe

CARD = {"name": "NVIDIA H100", "tags": ["80GB", "HGX"], "prices": ["$3.90/GPU-hr", "Contact sales"]}
TYPE = {
    "product_name": "h100-80gb-sxm-ib.8x",
    "cpu_cores": 176,
    "memory_gb": 960,
    "num_gpu": 8,
    "gpu_type": "H100-SXM-80GB",
}
CAPACITY = {"location": "us-east1-a", "quantity": 2, "num_slices": 8, "type": "h100-80gb-sxm-ib.8x"}


@FUZZ
@given(bodies({"items": [TYPE]}), bodies({"items": [CAPACITY]}), bodies([CARD, "CPU"]))
def test_crusoe(types: bytes, capacities: bytes, cards: bytes) -> None:
    try:
        found = load_json(cards, "cards")
    except PageShapeError:
        found = [CARD]
    priced = [item("crusoe.price", c) for c in (found if isinstance(found, list) else [found])]
    stock = [item("crusoe.capacity", CAPACITY)]

    def both(body: bytes) -> list[Any]:
        return [*(item("crusoe.type", t) for t in parse_types(body)), *stock]

    survives(both, lambda records: crusoe.normalize([*priced, *records]), types)
    survives(
        parse_capacities,
        lambda caps: crusoe.normalize(
            [*priced, item("crusoe.type", TYPE), *(item("crusoe.capacity", c) for c in caps)]
        ),
        capacities,
    )
