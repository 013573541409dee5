"""The one hourly-rate expression (db.store.reads.rates): the index's
spelling and the scan's give the rate `db.money.effective_hourly` gives, on
every back end, for every unit and term a price states."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
import sqlalchemy as sa

from db.money import effective_hourly
from db.store.reads.rates import HOURLY_SQL, SCAN_HOURLY_SQL
from db.tables import PricePoint

CASES = [
    ("2.5", "hour", "", None),
    ("1800", "month", "", None),
    ("21900", "year", "", None),
    ("30000", "term", "1yr", None),
    ("40000", "term", "3yr", "5000"),
    ("1.2", "hour", "1yr", "8760"),  # a reserved hourly rate with its fee spread over the term
    ("500", "month", "6mo", None),
    ("9", "term", "", None),  # a term price without a term: no hourly rate
    ("3", "gb", "", None),  # a side cost: no hourly rate
]


@pytest.mark.parametrize("spelling", [HOURLY_SQL, SCAN_HOURLY_SQL], ids=["index", "scan"])
def test_both_spellings_give_the_exact_rate(engine: sa.Engine, spelling: str) -> None:
    rows = [
        {
            "key": f"k{i}",
            "value_hash": "h",
            "source": "s",
            "provider": "p",
            "region": "r",
            "instance_type": "i",
            "price_model": "reserved",
            "price": price,
            "unit": unit,
            "term": term,
            "upfront_fee": fee,
            "currency": "USD",
            "valid_from": datetime(2026, 1, 1, tzinfo=UTC),
        }
        for i, (price, unit, term, fee) in enumerate(CASES)
    ]
    with engine.begin() as conn:
        conn.execute(sa.insert(PricePoint.__table__), rows)
        stmt = sa.text(f"SELECT key, {spelling} FROM price_points")
        found: dict[str, float | None] = {str(k): v for k, v in conn.execute(stmt).tuples()}
    for i, (price, unit, term, fee) in enumerate(CASES):
        exact = effective_hourly(Decimal(price), unit, term, Decimal(fee) if fee else None)
        got = found[f"k{i}"]
        assert (got is None) == (exact is None), CASES[i]
        if exact is not None:
            assert got == pytest.approx(float(exact), rel=1e-12), CASES[i]
