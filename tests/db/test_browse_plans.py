"""How the dashboard's price listings (db.store.reads.browse.page_prices) read a
page: every sort and filter from an index, never a sort of every open price
(issue 33 measured 3 to 5 s for one on a million), and whichever way a page
is read, the same rows in the same order as one plain ORDER BY of them all."""

from __future__ import annotations

import re
import runpy
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from db.store.reads.browse import _ORDER, SORTS, page_prices
from db.store.reads.rates import GPU_COUNT_SQL, HOURLY_SQL, PER_GPU_HOUR_SQL, PRICE_SQL
from db.store.reads.rows import PriceFilter
from db.tables import PricePoint

_P = PricePoint.__table__
START = datetime(2026, 1, 1, tzinfo=UTC)
MODELS = [("on_demand", ""), ("spot", ""), ("reserved", "1yr"), ("reserved", "3yr"), ("savings_plan", "1yr")]
FILTERS: list[dict[str, Any]] = [
    {},
    {"region": "r2"},
    {"instance_type": "i3"},
    {"gpu": "H100", "gpu_models": ["H100"]},
    {"gpu": "A", "gpu_models": ["A10", "A100"]},
    {"provider": "gcp", "region": "r1"},
    {"price_model": "spot"},
    {"provider": "aws", "price_model": "reserved", "instance_type": "i3"},
]


def _rows() -> list[dict[str, Any]]:
    rows = []
    for i in range(60):
        model, term = MODELS[i % 5]
        rows.append(
            {
                "key": f"k{i}",
                "value_hash": "h",
                "source": "s",
                "provider": ["aws", "gcp", "azure"][i % 3],
                "region": f"r{i % 4}",
                "instance_type": f"i{i % 6}",
                "gpu_model": None if i % 11 == 0 else ["H100", "A100", "A10"][i % 3],
                "gpu_count": None if i % 7 == 0 else str(1 + i % 4),
                "os": ["linux", "windows"][i % 2],
                "price_model": model,
                "term": term,
                "price": f"{10 + (i * 37) % 23}.{i % 10}",
                "currency": "USD",
                "unit": "term" if model == "reserved" else "hour",
                "valid_from": START + timedelta(days=i % 3),
                "valid_to": None,
            }
        )
    rows.append({**rows[1], "key": "closed", "valid_to": START})  # a closed price is never listed
    return rows


@pytest.fixture
def store(engine: sa.Engine) -> sa.Engine:
    with engine.begin() as conn:
        conn.execute(sa.insert(_P), _rows())
    return engine


def _expected(conn: sa.Connection, f: PriceFilter, sort: str | None, descending: bool) -> list[str]:
    """The whole listing as one plain ORDER BY (with the rows that have no
    sort value after those that do), in the store's own collation."""
    from db.store.reads.browse import _price_where

    where = _price_where(f, conn)
    tiebreak = [_P.c[name] for name in _ORDER]
    if not sort:
        return list(conn.scalars(sa.select(_P.c.key).where(*where).order_by(*tiebreak)))
    keys = SORTS[sort]()
    order = [k.desc() if descending else k for k in keys]
    valued = sa.select(_P.c.key).where(*where, *(k.is_not(None) for k in keys)).order_by(*order, *tiebreak)
    unvalued = sa.select(_P.c.key).where(*where, sa.or_(*(k.is_(None) for k in keys))).order_by(*tiebreak)
    return list(conn.scalars(valued)) + list(conn.scalars(unvalued))


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("sort", [None, *SORTS])
def test_every_sort_and_filter_pages_through_the_listing_of_one_order_by(
    store: sa.Engine, sort: str | None, descending: bool
) -> None:
    """Each count cap reads the pages its own way. 0: every listing has more
    matches than the cap, so its pages are read in an index's order (a value
    at a time for the column sorts); 3: some have; 10,000: the matches are
    few, read by a filter and sorted."""
    with store.connect() as conn:
        for filters in FILTERS:
            f = PriceFilter(**filters)
            expected = _expected(conn, f, sort, descending)
            assert expected or filters, "the test rows match the listing"
            for cap in (0, 3, 10_000):
                found: list[str] = []
                for offset in range(0, 70, 7):
                    page = page_prices(conn, f, sort=sort, descending=descending, limit=7, offset=offset, count_cap=cap)
                    found += [r["key"] for r in page.rows]
                    if len(page.rows) < 7:
                        assert (page.total, page.exact) == (len(expected), True)
                        break
                assert found == expected, (filters, sort, descending, cap)


def _statements(engine: sa.Engine, f: PriceFilter, sort: str | None, descending: bool) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        seen.append((statement, parameters))

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        with engine.connect() as conn:  # count_cap 0: the pages of a million matches
            page = page_prices(conn, f, sort=sort, descending=descending, limit=2, offset=1, count_cap=0)
            assert page.rows
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    return seen


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("sort", [None, *SORTS])
@pytest.mark.backends("sqlite")
def test_sqlite_reads_every_sort_and_filter_from_an_index(store: sa.Engine, sort: str | None, descending: bool) -> None:
    """No statement of a page sorts every match (a temp B-tree for the whole
    ORDER BY) or scans the table; sorting the few rows of one place or price
    ("RIGHT PART OF ORDER BY"), or of one instance type, is what the
    indexes leave. SQLite plans
    without statistics, so the plan is the same on a million rows."""
    for filters in FILTERS:
        for statement, parameters in _statements(store, PriceFilter(**filters), sort, descending):
            with store.connect() as conn:
                plan = [r[-1] for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)]
            # The rows of one value are sorted by themselves: one instance
            # type's (ix_price_points_instance leads with the type), or those
            # without a value of the sort key, after all the others.
            one_type = any(step.endswith("ix_price_points_instance (instance_type=?)") for step in plan)
            one_value = one_type or statement.count(" IS NULL") > 1
            assert one_value or "USE TEMP B-TREE FOR ORDER BY" not in plan, (filters, statement[-700:], plan)
            assert all("INDEX" in step for step in plan if step.startswith("SCAN price_points")), plan


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("sort", [None, *SORTS])
@pytest.mark.backends("postgres")
def test_postgres_can_read_every_sort_from_an_index(store: sa.Engine, sort: str | None, descending: bool) -> None:
    """PostgreSQL plans by its statistics, so on a few test rows it would
    rightly sort them; forbidden to sort or scan the table, it still finds a
    plan with no Sort of the matches (an Incremental Sort of a place's few rows
    is allowed): an index holds each order the listings read."""
    for statement, parameters in _statements(store, PriceFilter(), sort, descending):
        with store.connect() as conn:
            for setting in ("enable_sort", "enable_seqscan", "enable_bitmapscan"):
                conn.exec_driver_sql(f"SET LOCAL {setting} = off")
            plan = "\n".join(r[0] for r in conn.exec_driver_sql("EXPLAIN " + statement, parameters))
        assert not re.search(r"(^|->  )Sort ", plan, re.M), (statement, plan)
        assert "Seq Scan" not in plan, (statement, plan)


def test_the_sort_keys_are_spelled_as_the_migrations_index_them() -> None:
    """An index on an expression serves only the same expression, literals
    and all: browse's sort keys and migrations 0011 and 0013 must agree."""
    versions = Path(__file__).parents[2] / "db" / "migrations" / "versions"
    found = [runpy.run_path(str(p))["INDEXES"] for p in sorted(versions.glob("001[13]_*.py"))]
    assert len(found) == 2
    indexed = {str(c) for indexes in found for cols in indexes.values() for c in cols}
    for text in (PRICE_SQL, HOURLY_SQL, PER_GPU_HOUR_SQL, GPU_COUNT_SQL):
        assert text in indexed, text
    assert {str(k) for k in SORTS["gpu_count"]()} == {GPU_COUNT_SQL}
