"""`tco` and `recommend` with a limit read and price only the candidates
(tracker/analytics/candidates.py): their first rows are those of the full
computation, which the golden answers hold, on the demo store."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tracker.analytics.history import open_store, records
from tracker.analytics.recommend import Needs
from tracker.analytics.recommend_store import recommend_store
from tracker.analytics.reference import load_references
from tracker.analytics.tco import Credit, TcoInputs, parse_mix, tco_store

TCO_CASES = [
    ("H100", TcoInputs(count=Decimal(8))),
    (
        "A100",
        TcoInputs(count=Decimal(8), hours_per_month=Decimal(500), mix=parse_mix("on_demand=0.5,reserved_1yr=0.5")),
    ),
    ("A100", TcoInputs(count=Decimal(3), mix=parse_mix("spot=1"), credit=Credit(Decimal(5000), "USD", months=6))),
    ("", TcoInputs(count=Decimal(1), mix=parse_mix("reserved_3yr=1"), currency="CNY")),
    ("L", TcoInputs(count=Decimal(2), mix=parse_mix("monthly=1"), currency="EUR")),
]
NEEDS = [
    Needs(gpus=Decimal(8), min_gpu_memory_gb=Decimal(70)),
    Needs(),
    Needs(gpus=Decimal("0.5"), workload="inference"),
    Needs(hours_per_month=Decimal(100), months=3, qualifies=frozenset({"new_users"}), currency="CNY"),
    Needs(gpus=Decimal(4), region_group="eu", mixes=(parse_mix("on_demand=0.25,reserved_1yr=0.75"),)),
    Needs(gpus=Decimal(2), throughput={"h100": Decimal(100), "a100": Decimal(60), "l40s": Decimal(30)}),
]


@pytest.fixture
def demo_store(demo_db_url):
    engine = open_store(demo_db_url)
    yield engine
    engine.dispose()


def test_tco_with_a_limit_ranks_as_the_full_computation(demo_store) -> None:
    refs = load_references()
    for gpu, inputs in TCO_CASES:
        full = tco_store(demo_store, refs, inputs, gpu=gpu)
        for limit in (1, 3, 10):
            few = tco_store(demo_store, refs, inputs, gpu=gpu, limit=limit)
            assert records(few) == records(full.head(limit)), (gpu, inputs, limit)
            assert few.attrs["skipped"] == full.attrs["skipped"]


def test_recommend_with_a_limit_ranks_as_the_full_computation(demo_store) -> None:
    refs = load_references()
    for needs in NEEDS:
        full = recommend_store(demo_store, refs, needs)
        for limit in (1, 5, 20):
            few = recommend_store(demo_store, refs, needs, limit=limit)
            assert records(few) == records(full.head(limit)), (needs, limit)
            assert few.attrs["notes"] == full.attrs["notes"]
