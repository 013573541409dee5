"""The dashboard's price listings (db.store.reads.browse.page_prices): pages read
in index order (migration 0011) add up to the whole listing, rows without a
sort value last in either direction, and the count is capped."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
import sqlalchemy as sa

from db.money import effective_hourly
from db.store.reads.browse import page_prices
from db.store.reads.rows import PriceFilter
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
    valued = sorted((r for r in rows if _per_gpu(r) is not None), key=lambda r: _per_gpu(r) or 0, reverse=descending)
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


GROUPS = [
    PriceFilter(regions=[("aws", "r1"), ("gcp", "r2")]),
    PriceFilter(regions=[("aws", "r3")], providers_everywhere=["gcp"], named_regions=[("gcp", "r0"), ("aws", "r3")]),
    PriceFilter(regions=[], providers_everywhere=[]),
    PriceFilter(regions=[("gcp", "r1")], gpu="h1", price_model="on_demand", currency="USD"),
]


@pytest.mark.parametrize("where", GROUPS)
def test_one_filter_reads_the_same_prices_paged_or_whole(store: sa.Engine, where: PriceFilter) -> None:
    """One `PriceFilter`: the dashboard's pages (`page_prices`) and the
    commands' reads (`rows.prices`) keep the same prices, a region group too."""
    from db.store.reads import rows
    from db.store.reads.connection import engine_db

    with engine_db(store) as db:
        whole = {r["key"] for r in rows.prices(db, where)}
    with store.connect() as conn:
        paged = {r["key"] for r in page_prices(conn, where, limit=100, offset=0).rows}
    assert paged == whole
    kept = {
        r["key"] for r in _rows() if r["valid_to"] is None and (r["provider"], r["region"]) in set(where.regions or ())
    }
    if not where.providers_everywhere and where.gpu is None:
        assert whole == kept


def test_a_listing_refuses_a_filter_it_does_not_read(store: sa.Engine) -> None:
    with store.connect() as conn, pytest.raises(ValueError, match="do not filter on os"):
        page_prices(conn, PriceFilter(os="linux"), limit=5, offset=0)
