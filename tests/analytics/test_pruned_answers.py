"""`tco` and `recommend` with a limit read and price only the candidates
(tracker/analytics/candidates.py): their first rows are those of the full
computation, which the golden answers hold, on the demo store."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tracker.analytics.facts.reference import load_references
from tracker.analytics.history import open_store, records
from tracker.analytics.recommend import Needs
from tracker.analytics.recommend.store import recommend_rows
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
    # Every option, not one per provider, GPU model and kind of price.
    Needs(gpus=Decimal(8), min_gpu_memory_gb=Decimal(70), all_options=True),
    Needs(gpus=Decimal(4), region_group="eu", mixes=(parse_mix("on_demand=0.25,reserved_1yr=0.75"),), all_options=True),
    # Many marketplace groups with fewer host offers than the instances 24 GPUs take.
    Needs(gpus=Decimal(24), workload="inference"),
    Needs(gpus=Decimal(24), all_options=True),
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
        full, notes = recommend_rows(demo_store, refs, needs)
        for limit in (1, 5, 20):
            few, few_notes = recommend_rows(demo_store, refs, needs, limit=limit)
            assert few == full[:limit], (needs, limit)
            assert few_notes == notes


COMPARE_CASES: list[dict[str, Any]] = [
    {"gpu": "H100"},
    {"gpu": "A100", "currency": "CNY"},
    {"gpu": "H100", "count": Decimal(8), "price_models": ["on_demand", "spot"]},
    {"gpu": "L", "currency": "EUR", "os": None},
    {"gpu": "4090"},
]


def test_compare_with_a_limit_ranks_as_the_full_computation(demo_store) -> None:
    """The first `limit` rows of `compare`, its candidates ranked in SQL, are
    those of every price ranked: ranks, figures, spot savings and monthly discounts."""
    from tracker.analytics.compare import compare_rows

    refs = load_references()
    for case in COMPARE_CASES:
        full = compare_rows(demo_store, refs, **case)
        assert full, case
        for limit in (1, 3, 10):
            assert compare_rows(demo_store, refs, limit=limit, **case) == full[:limit], (case, limit)


def test_compare_reads_only_the_candidates(demo_store) -> None:
    """The SQL ranking leaves most H100 instances out for the first three rows."""
    from db.store.reads import rankings
    from db.store.reads.connection import engine_db
    from db.store.reads.rows import PriceFilter

    refs = load_references()
    where = PriceFilter(gpu="H100", os="linux", with_gpus=True)
    with engine_db(demo_store) as db:
        asked: list[list[str]] = []

        def fx_of(currencies: list[str]) -> dict[str, float]:
            asked.append(currencies)
            return {c: float(refs.fx.conversion(c, "USD").rate) for c in currencies}

        keys = rankings.cheapest_rows(db, where, fx_of, [], 3)
        condition, params = where.where(db)
        sql = f"SELECT DISTINCT provider, region, instance_type FROM price_points WHERE {condition}"
        every = {tuple(r) for r in db.tuples(sql, params)}
        currencies = db.tuples(f"SELECT DISTINCT currency FROM price_points WHERE {condition}", params)
    assert keys is not None and 3 <= len(keys) < len(every) / 4
    assert asked == [sorted({c for (c,) in currencies})]
