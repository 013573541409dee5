"""The store the import benchmark fills, and what it measures there: a
history query's p99, and the naive ORM path beside the real one."""

from __future__ import annotations

import os
import statistics
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from itertools import islice

import sqlalchemy as sa
from sqlmodel import Session

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PG_URL = os.environ.get("GPU_TRACKER_BENCH_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/gpu_tracker_bench")


def _engine(url: str) -> sa.Engine:
    from db.store.engine import make_engine, migrate

    engine = make_engine(url)
    migrate(engine)
    return engine


def fresh_pg_database(suffix: str = "", *, copy_of: str | None = None) -> str | None:
    """The URL of a new benchmark database: empty, or a copy of the one at
    `copy_of` (no one may be connected to it); None when PostgreSQL is not
    reachable."""
    server, name = (copy_of or PG_URL).rsplit("/", 1)
    template = f' TEMPLATE "{name}"' if copy_of else ""
    admin = sa.create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}{suffix}"')
            conn.exec_driver_sql(f'CREATE DATABASE "{name}{suffix}"{template}')
    except sa.exc.OperationalError:
        return None
    finally:
        admin.dispose()
    return f"{server}/{name}{suffix}"


def history_p99(url: str, days: int = 730, repeats: int = 200) -> float:
    """p99 seconds of the history query of one instance with a price change
    every day for `days` days, in a store that also holds everything else."""
    from db.bulk.encoding import PRICE_COLUMNS, StagedQuote, price_row
    from db.schema import PriceModel, PriceQuote, Unit
    from db.store.reads import session as store
    from db.tables import PricePoint

    engine = _engine(url)
    quote = PriceQuote(
        provider="bench",
        region="region-0",
        instance_type="hist.48xlarge",
        gpu_model="A100 80GB",
        gpu_count=Decimal(8),
        price_model=PriceModel.on_demand,
        price=Decimal(20),
        currency="USD",
        unit=Unit.hour,
        observed_at=T0,
    )
    with Session(engine) as session:
        rows = []
        for day in range(days):
            values = price_row(
                StagedQuote.of(quote), source="history", run_id=None, valid_from=T0 + timedelta(days=day)
            )
            row = dict(zip(PRICE_COLUMNS, values, strict=True))
            row.update(
                price=str(Decimal("20") + Decimal(day) / 100),
                valid_to=T0 + timedelta(days=day + 1) if day < days - 1 else None,
            )
            rows.append(row)
        session.connection().execute(sa.insert(PricePoint.__table__), rows)
        session.commit()
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            found = store.query_prices(session=session, instance_type="hist.48xlarge", current=False)
            samples.append(time.perf_counter() - start)
            assert len(found) == days
    engine.dispose()
    return statistics.quantiles(samples, n=100)[98]


def naive_orm(url: str, path: str, n: int) -> float:
    """The first `n` rows of the file the naive way: one PriceQuote and one
    ORM object per row, `session.add` each."""
    from db.bulk.encoding import PRICE_COLUMNS, StagedQuote, price_row
    from db.schema import PriceQuote
    from db.store.writes.run_store import RunStore
    from db.tables import PricePoint

    engine = _engine(url)
    start = time.perf_counter()
    with open(path, encoding="utf-8") as fh:
        quotes = [PriceQuote.model_validate_json(line) for line in islice(fh, n)]
    with Session(engine) as session:
        store = RunStore.begin(session, source="naive", provider="bench", spider="", mode="naive", regions=[], now=T0)
        for q in quotes:
            row = price_row(StagedQuote.of(q), source="naive", run_id=store.run_id, valid_from=T0)
            session.add(PricePoint(**dict(zip(PRICE_COLUMNS, row, strict=True))))
        session.commit()
    engine.dispose()
    return time.perf_counter() - start
