"""The rankings that work in temporary tables answer on a connection that
may make none (a PostgreSQL hot standby or read-only role, an SQLite store
opened query-only): `compare`'s candidates rank every price instead, and
the report's bars are a `WITH` list, the same instances as with the
temporary table. Before, `compare` and the report failed there with
"cannot execute DROP TABLE in a read-only transaction"."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from db.store.engine import make_engine, migrate
from db.store.reads import rankings
from db.store.reads.connection import Db, engine_db
from db.store.reads.rows import PriceFilter
from tracker.analytics.columns import MODEL_CLASSES
from tracker.file_import.importing import import_file
from tracker.run.pipeline import Pipeline

WHERE = PriceFilter(os="linux", with_gpus=True)


def _read_only(db: Db) -> None:
    if db.dialect == "sqlite":
        db.execute("PRAGMA query_only=1")
    else:
        db.execute("SET TRANSACTION READ ONLY")  # as on a hot standby


@pytest.fixture
def engine(db_url: str, tmp_path: Path):
    engine = make_engine(db_url)
    migrate(engine)
    stamp = datetime(2026, 5, 1, tzinfo=UTC).isoformat()
    rows = [
        {"provider": "mine", "region": region, "instance_type": f"{gpu.lower()}-{n}x8", "price_model": model}
        | {"price": f"{10 + n + k}.25", "currency": "USD", "unit": "hour", "gpu_model": gpu}
        | {"gpu_count": "8", "os": "linux", "observed_at": stamp}
        for n in range(12)
        for k, region in enumerate(("r1", "r2"))
        for model in ("on_demand", "spot")
        for gpu in ("H100", "A100")
    ]
    path = tmp_path / "prices.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert import_file(Pipeline(engine=engine, clock=lambda: datetime(2026, 5, 2, tzinfo=UTC)), path, source="mine").ok
    yield engine
    engine.dispose()


def _bars(db: Db) -> list[tuple[str, str, str, float]]:
    lows = rankings.cheapest_per_gpu(db, WHERE, MODEL_CLASSES)
    return [(r["gpu_model"], r["kind"], r["currency"], float(r["low"]) * 1.2) for r in lows]


def test_the_report_bars_and_compare_candidates_answer_read_only(engine) -> None:
    usd = {"USD": 1.0}.copy
    with engine_db(engine) as db:
        assert db.temp_tables()
        bars = _bars(db)
        written = rankings.instances_below(db, WHERE, MODEL_CLASSES, bars)
        candidates = rankings.cheapest_rows(db, WHERE, lambda _: usd(), ["on_demand", "spot"], 3)
        db.conn.rollback()
    assert len(bars) == 4 and 0 < len(written) < 96
    assert candidates  # with a temporary table: the instances under the 3rd cheapest rate
    with engine_db(engine) as db:
        _read_only(db)
        assert not db.temp_tables()
        assert rankings.instances_below(db, WHERE, MODEL_CLASSES, bars) == written
        assert rankings.cheapest_rows(db, WHERE, lambda _: usd(), ["on_demand", "spot"], 3) is None  # all rank
        db.conn.rollback()
