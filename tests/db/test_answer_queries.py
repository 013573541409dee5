"""The one definition of each read (`db.store.reads.rows`): rows as the ORM
reads them, and the index migration 0010 adds serving the reads by place."""

from __future__ import annotations

from pathlib import Path

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


def _held_store(engine: sa.Engine) -> list[int]:
    """Five prices of one instance: three open ones held as suspect (written
    3yr, 1yr, then 1yr Windows, so that neither their ids nor the marks'
    order is the prices' order), one open and not held, one held but closed.
    The ids of the open prices not held."""
    from datetime import UTC, datetime
    from decimal import Decimal

    from sqlmodel import Session

    from db.bulk.encoding import PRICE_COLUMNS as WRITTEN
    from db.bulk.encoding import StagedQuote, price_row
    from db.schema import PriceModel, PriceQuote, Unit

    t0 = datetime(2026, 3, 1, tzinfo=UTC)
    held = [("3yr", "linux"), ("1yr", "linux"), ("1yr", "windows")]
    kept = [("1yr", "linux", "L4")]  # another instance's: another key
    rows, marks = [], []
    for n, (term, os, *model) in enumerate([*held, *kept, ("3yr", "windows")]):
        quote = PriceQuote(
            provider="acme",
            region="r1",
            instance_type="gpu.1x" if model else "gpu.8x",
            gpu_model=model[0] if model else "H100",
            gpu_count=Decimal(8),
            os=os,
            price_model=PriceModel.reserved,
            term=term,
            payment_option="no_upfront",
            price=Decimal(1000 + n),
            currency="USD",
            unit=Unit.term,
            observed_at=t0,
        )
        row = dict(zip(WRITTEN, price_row(StagedQuote.of(quote), source="s", run_id=None, valid_from=t0), strict=True))
        row["valid_to"] = t0 if n == 4 else None  # the last closed: its mark holds no open price
        rows.append(row)
        if n != 3:
            marks.append({"source": "s", "key": row["key"], "provider": "acme", "reason": f"r{n}", "observed_at": t0})
    with Session(engine) as session:
        conn = session.connection()
        conn.execute(sa.insert(PricePoint.__table__), rows)
        conn.execute(sa.text("DELETE FROM suspect_prices"))
        conn.execute(
            sa.text(
                "INSERT INTO suspect_prices (source, key, provider, reason, observed_at) "
                "VALUES (:source, :key, :provider, :reason, :observed_at)"
            ),
            marks,
        )
        found = [i for (i,) in conn.execute(sa.text("SELECT id FROM price_points WHERE price = '1003'"))]
        session.commit()
    return found


def test_the_held_prices_are_listed_in_the_prices_order_and_counted(engine: sa.Engine) -> None:
    """Ties on provider, instance, region and price model in the prices'
    order (term, operating system), the same on both back ends; a closed
    price's mark neither listed nor counted; the suspect filter leaves out
    exactly the held open prices, whatever the statement calls the table,
    and is the filter's last condition (its probes for the rows the others leave)."""
    from db.store.reads.rows import NOT_SUSPECT
    from db.store.writes.suspects import held, held_count

    kept = _held_store(engine)
    with engine_db(engine) as db:
        listed = held(db)
        assert [(r["reason"], r["price"]) for r in listed] == [("r1", "1001"), ("r2", "1002"), ("r0", "1000")]
        assert held_count(db) == 3 and held_count(db, "h10") == 3 and held_count(db, "l4") == 0
        sql = f"SELECT p.id FROM (SELECT * FROM price_points) AS p WHERE valid_to IS NULL AND {NOT_SUSPECT}"
        assert [i for (i,) in db.tuples(sql)] == kept
        terms = PriceFilter(gpu="H100", os="linux", with_gpus=True, include_suspect=False).terms(db)
        assert terms[-1].sql == NOT_SUSPECT
        condition, params = PriceFilter(include_suspect=False).where(db)
        assert [i for (i,) in db.tuples(f"SELECT id FROM price_points WHERE {condition}", params)] == kept


def test_a_read_ahead_runs_on_a_connection_of_its_own_on_postgresql(db_url: str) -> None:
    """`ahead`: on PostgreSQL the read runs on a second connection (another
    server process) while the first goes on; on SQLite, on the store's own."""
    from db.store.reads.reader import ahead, open_reader

    reader = open_reader(db_url)
    assert reader is not None
    with reader:
        if reader.dialect == "sqlite":
            mine = reader.tuples("PRAGMA database_list")[0][2]
            found = ahead(reader, lambda db: db.tuples("PRAGMA database_list")[0][2])()
            assert found == mine
            return
        mine = reader.tuples("SELECT pg_backend_pid()")[0][0]
        pending = ahead(reader, lambda db: db.tuples("SELECT pg_backend_pid()")[0][0])
        assert reader.tuples("SELECT 41")[0][0] == 41  # the first connection answers meanwhile
        other = pending()
        assert isinstance(other, int) and other != mine


def test_a_read_ahead_falls_back_to_the_stores_connection_when_it_cannot_connect(tmp_path: Path) -> None:
    import sqlite3

    from db.store.reads.reader import Reader, ahead

    reader = Reader(sqlite3.connect(tmp_path / "store.db"), "sqlite")
    reader.url = "postgresql+psycopg://nobody@127.0.0.1:1/none"  # a port nothing listens on: refused at once
    with reader:
        assert ahead(reader, lambda db: db.tuples("SELECT 41")[0][0])() == 41
