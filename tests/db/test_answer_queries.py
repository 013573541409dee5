"""The one definition of each read (`db.store.reads.rows`): rows as the ORM
reads them, and the index migration 0010 adds serving the reads by place."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from db.store.reads.connection import engine_db
from db.store.reads.rows import PRICE_COLUMNS, PriceFilter
from db.tables import PricePoint


def test_a_price_row_has_the_columns_of_the_table_in_order() -> None:
    assert tuple(PricePoint.model_fields) == PRICE_COLUMNS


def test_the_place_index_is_there(engine: sa.Engine) -> None:
    names = {ix["name"] for ix in sa.inspect(engine).get_indexes("price_points")}
    assert "ix_price_points_place" in names


def test_prices_by_place_are_searched_not_scanned(engine: sa.Engine) -> None:
    where = PriceFilter(provider="aws", region="us-east-1", gpu="H100", current=False)
    with engine_db(engine) as db:
        condition, params = where.where(db)
        if db.dialect == "postgresql":
            # PostgreSQL plans by statistics, and an empty table is best
            # scanned: asked not to scan, it names the index that serves.
            db.execute("SET LOCAL enable_seqscan = off")
            explain = "EXPLAIN"
        else:
            explain = "EXPLAIN QUERY PLAN"
        plan = " ".join(str(r) for r in db.tuples(f"{explain} SELECT * FROM price_points WHERE {condition}", params))
    assert "ix_price_points_place" in plan, plan


@pytest.mark.backends("sqlite")  # SQLite's page cache; PostgreSQL's memory is the server's
def test_a_scan_runs_with_a_small_page_cache_and_gives_the_stores_back(engine: sa.Engine) -> None:
    with engine_db(engine) as db:
        (before,) = db.tuples("PRAGMA cache_size")[0]
        with db.scanning(cache_kb=2048) as scan:
            assert scan.tuples("PRAGMA cache_size")[0][0] == -2048
        assert db.tuples("PRAGMA cache_size")[0][0] == before == -65536


def test_a_gpu_matched_in_part_finds_the_rows_the_plain_match_finds(demo_db_url: str) -> None:
    """On PostgreSQL the filter names the matching models (walked down their
    index), so that the index serves it; the rows are those of the plain
    `lower(gpu_model) LIKE '%part%'` over every open row, on both back ends."""
    from db.store.engine import make_engine
    from db.store.reads.rows import open_gpu_models

    engine = make_engine(demo_db_url)
    plain = "SELECT {what} FROM price_points WHERE valid_to IS NULL AND lower(gpu_model) LIKE ? ESCAPE '/'"
    with engine_db(engine) as db:
        # "_" and "%" are matched as written (as the dashboard matches them), not as wildcards.
        for part in ("H100", "a1", "NV", "l4", "_", "1%", "zzz"):
            pattern = [f"%{part.lower().replace('_', '/_').replace('%', '/%')}%"]
            models = open_gpu_models(db, part)
            assert len(models) == len(set(models))
            assert set(models) == {m for (m,) in db.tuples(plain.format(what="DISTINCT gpu_model"), pattern)}, part
            condition, params = PriceFilter(gpu=part).where(db)
            found = {i for (i,) in db.tuples(f"SELECT id FROM price_points WHERE {condition}", params)}
            assert found == {i for (i,) in db.tuples(plain.format(what="id"), pattern)}, part
            assert found or part in ("zzz", "_", "1%")
            if db.dialect == "postgresql":
                assert "LIKE" not in condition  # the models, named
    engine.dispose()
