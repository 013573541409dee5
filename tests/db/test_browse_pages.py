"""The dashboard's price listings (db.store.reads.browse.page_prices): pages read
in index order (migration 0011) add up to the whole listing, rows without a
sort value last in either direction, and the count is capped."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
import sqlalchemy as sa

from db.money import effective_hourly
from db.store.reads.browse import PriceFilter, page_prices
from db.tables import PricePoint

_P = PricePoint.__table__
START = datetime(2026, 1, 1, tzinfo=UTC)


def _rows() -> list[dict]:
    rows = []
    for i in range(23):
        unit, term = [("hour", ""), ("month", ""), ("term", "1yr")][i % 3]
        rows.append(
            {
                "key": f"k{i}",
                "value_hash": "h",
                "source": "s",
                "provider": ["aws", "gcp"][i % 2],
                "region": f"r{i % 4}",
                "instance_type": f"i{i % 5}",
                "gpu_model": "H100" if i % 2 else "A100",
                "gpu_count": None if i % 7 == 0 else str(1 + i % 4),
                "price_model": ["on_demand", "spot", "reserved"][i % 3],
                "term": term,
                "price": str(Decimal(1000 + (i * 37) % 101) / 100),
                "currency": "USD",
                "unit": unit,
                "valid_from": START,
                "valid_to": None,
            }
        )
    rows.append({**rows[0], "key": "closed", "valid_to": START})  # a closed price is never listed
    return rows


@pytest.fixture
def store(engine: sa.Engine) -> sa.Engine:
    with engine.begin() as conn:
        conn.execute(sa.insert(_P), _rows())
    return engine


def _per_gpu(row: dict) -> Decimal | None:
    hourly = effective_hourly(Decimal(row["price"]), row["unit"], row["term"])
    return hourly / Decimal(row["gpu_count"]) if hourly is not None and row["gpu_count"] else None


def _all_pages(engine: sa.Engine, **kw: object) -> list[str]:
    keys: list[str] = []
    with engine.connect() as conn:
        for offset in range(0, 30, 4):
            found = page_prices(conn, PriceFilter(), limit=4, offset=offset, **kw)  # type: ignore[arg-type]
            keys += [r["key"] for r in found.rows]
    return keys


@pytest.mark.parametrize("descending", [False, True])
def test_pages_sorted_per_gpu_hour_add_up_with_the_rows_without_one_last(store: sa.Engine, descending: bool) -> None:
    rows = [r for r in _rows() if r["valid_to"] is None]
    valued = sorted((r for r in rows if _per_gpu(r) is not None), key=_per_gpu, reverse=descending)
    unvalued = [r["key"] for r in rows if _per_gpu(r) is None]
    keys = _all_pages(store, sort="price_per_gpu_hour", descending=descending)
    assert len(keys) == len(set(keys)) == len(rows)
    assert [_per_gpu(next(r for r in rows if r["key"] == k)) for k in keys[: len(valued)]] == [
        _per_gpu(r) for r in valued
    ]
    assert sorted(keys[len(valued) :]) == sorted(unvalued) and unvalued


def test_a_listing_counts_up_to_its_cap_and_says_so(store: sa.Engine) -> None:
    with store.connect() as conn:
        exact = page_prices(conn, PriceFilter(), limit=5, offset=0)
        capped = page_prices(conn, PriceFilter(), limit=5, offset=0, count_cap=10)
        deep = page_prices(conn, PriceFilter(), limit=5, offset=15, count_cap=10)
        last = page_prices(conn, PriceFilter(), limit=5, offset=20, count_cap=10)
        past = page_prices(conn, PriceFilter(), limit=5, offset=40, count_cap=10)
        none = page_prices(conn, PriceFilter(gpu="B200", gpu_models=[]), sort="price", limit=5, offset=0)
    assert (exact.total, exact.exact) == (23, True)
    assert (capped.total, capped.exact) == (10, False)
    assert (deep.total, deep.exact) == (20, False)
    assert (last.total, last.exact, len(last.rows)) == (23, True, 3)
    assert (past.rows, past.total, past.exact) == ([], 23, True)
    assert (none.rows, none.total, none.exact) == ([], 0, True)
