"""A first big import loads its rows with the prices table's indexes
dropped and builds each once after (`db/store/writes/bulk_load.py`), on
SQLite and PostgreSQL: every index is there afterwards, as the migrations
made it, PostgreSQL's table vacuumed and analyzed, the rows and kept rates are those of a row-by-row load, and a
rejected file leaves the store as it was, indexes included.

`BULK_ROWS` is lowered so that a file of a few hundred rows takes the path."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from db.store.engine import make_engine, migrate
from db.store.reads.connection import engine_db
from db.store.writes import bulk_load, summary
from tracker.errors import UserError
from tracker.file_import.importing import import_file
from tracker.run.pipeline import Pipeline

STAMP = datetime(2026, 5, 1, tzinfo=UTC).isoformat()
N = 24 * 12  # 288 rows: 24 instance types in 2 regions, 6 price models


def _rows(n: int = N, *, bad: int | None = None) -> list[dict[str, Any]]:
    models = (("on_demand", ""), ("spot", ""), ("reserved", "1yr"), ("reserved", "3yr"), ("savings_plan", "1yr"))
    rows = []
    for i in range(n):
        model, term = models[i % 6] if i % 6 < 5 else ("savings_plan", "3yr")
        rows.append(
            {
                "provider": "mine",
                "region": f"r{i % 2}",
                "instance_type": f"g{i // 12}x8",
                "gpu_model": "H100",
                "gpu_count": "8",
                "os": "linux" if i % 12 < 6 else "windows",
                "price_model": model,
                "term": term,
                "price": "cheap" if i == bad else f"{20 + i / 100:.2f}" if model != "reserved" else f"{80000 + i}",
                "currency": "USD",
                "unit": "term" if model == "reserved" else "hour",
                "observed_at": STAMP,
            }
        )
    return rows


def _file(tmp_path: Path, rows: list[dict[str, Any]], name: str = "prices.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _indexes(engine: sa.Engine) -> dict[str, tuple[str, int]]:
    """Each index of price_points: its definition, and on PostgreSQL its
    relation's id, which a rebuilt index does not keep."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            sql = "SELECT name, sql, 0 FROM sqlite_master WHERE type = 'index' AND tbl_name = 'price_points'"
        else:
            sql = (
                "SELECT i.indexname, i.indexdef, c.oid::int FROM pg_indexes AS i JOIN pg_class AS c "
                "ON c.relname = i.indexname AND c.relnamespace = to_regnamespace(i.schemaname) "
                "WHERE i.schemaname = current_schema() AND i.tablename = 'price_points'"
            )
        return {name: (ddl or "", ident) for name, ddl, ident in conn.exec_driver_sql(sql)}


def _stored(engine: sa.Engine) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The open prices (without ids and runs) and the kept rates, in order."""
    with engine_db(engine) as db:
        prices = db.tuples(
            "SELECT key, value_hash, provider, region, instance_type, os, price_model, term, price, unit, valid_from "
            "FROM price_points WHERE valid_to IS NULL ORDER BY key"
        )
        order = ", ".join(summary.KEY)
        rates = db.tuples(f"SELECT {', '.join(summary.COLUMNS)} FROM {summary.TABLE} ORDER BY {order}")
        stale = summary.stale(db)
    rounded = [tuple(round(v, 9) if isinstance(v, float) else v for v in row) for row in rates]
    assert stale == set()
    return [tuple(map(str, row)) for row in prices], rounded


STATEMENTS: list[str] = []  # what SQLite was asked, since the engine's start


@pytest.fixture
def engine(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(bulk_load, "BULK_ROWS", 100)
    engine = make_engine(db_url)
    STATEMENTS.clear()
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", lambda conn, _: conn.set_trace_callback(STATEMENTS.append))
    migrate(engine)
    yield engine
    engine.dispose()


def _rebuilt(engine: sa.Engine, before: dict[str, tuple[str, int]]) -> list[str]:
    """The indexes of `before` dropped and created again since."""
    if engine.dialect.name == "sqlite":
        text = "\n".join(STATEMENTS)
        return sorted(n for n in before if f'DROP INDEX "{n}"' in text and before[n][0] in text)
    after = _indexes(engine)
    return sorted(n for n, (_, ident) in before.items() if after[n][1] != ident)


def _pipeline(engine: sa.Engine) -> Pipeline:
    return Pipeline(engine=engine, clock=lambda: datetime(2026, 5, 2, tzinfo=UTC))


def test_a_first_big_import_builds_every_index_once_and_stores_the_same(
    engine: sa.Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _indexes(engine)
    assert len(before) >= 13  # the table's own and the listings' (0011, 0013)
    STATEMENTS.clear()
    report = import_file(_pipeline(engine), _file(tmp_path, _rows()), source="mine")
    assert (report.ok, report.rows_written) == (True, N)
    after = _indexes(engine)
    assert {name: ddl for name, (ddl, _) in after.items()} == {name: ddl for name, (ddl, _) in before.items()}
    assert _rebuilt(engine, before) == sorted(n for n in before if n != "price_points_pkey")  # each built anew
    bulk = _stored(engine)
    assert len(bulk[0]) == N and bulk[1]  # the kept rates worked out by the import itself
    if engine.dialect.name == "postgresql":  # vacuumed and analyzed: the first answer reads a settled table
        with engine.connect() as conn:
            sql = "SELECT relallvisible, reltuples FROM pg_class WHERE oid = 'price_points'::regclass"
            visible, tuples = conn.exec_driver_sql(sql).one()
        assert visible > 0 and tuples == N

    # The same file the row-by-row way, into the store emptied: the same prices and rates.
    monkeypatch.setattr(bulk_load, "BULK_ROWS", 10**9)
    with engine.begin() as conn:
        for table in ("changes", "suspect_prices", summary.TABLE, "price_points", "crawl_runs"):
            conn.exec_driver_sql(f"DELETE FROM {table}")
    STATEMENTS.clear()
    assert import_file(_pipeline(engine), _file(tmp_path, _rows(), "again.jsonl"), source="mine").ok
    assert _indexes(engine) == after
    assert _rebuilt(engine, after) == []
    assert _stored(engine) == bulk


def test_a_rejected_big_import_leaves_the_store_and_its_indexes_as_they_were(engine: sa.Engine, tmp_path: Path) -> None:
    before = _indexes(engine)
    STATEMENTS.clear()
    with pytest.raises(UserError, match="line 280"):
        import_file(_pipeline(engine), _file(tmp_path, _rows(bad=279)), source="mine")
    assert _indexes(engine) == before
    assert len(_rebuilt(engine, before)) in (0, len(before))  # on SQLite dropped, then rolled back
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM price_points").scalar() == 0


def test_a_store_holding_many_rows_loads_into_its_indexes(engine: sa.Engine, tmp_path: Path) -> None:
    """A table that already holds a quarter of what the file brings keeps
    its indexes while the rows go in; a second source's first import as big
    as the first builds them afresh."""
    pipeline = _pipeline(engine)
    assert import_file(pipeline, _file(tmp_path, _rows(96)), source="first").ok  # under BULK_ROWS
    before = _indexes(engine)
    STATEMENTS.clear()
    assert import_file(pipeline, _file(tmp_path, _rows(), "second.jsonl"), source="second").ok
    assert _indexes(engine) == before
    assert _rebuilt(engine, before) == []  # 96 held >= 288 / 4
    with engine_db(engine) as db:
        assert not bulk_load.worth_it(db, 4 * 384)
        assert bulk_load.worth_it(db, 4 * 384 + 4)
