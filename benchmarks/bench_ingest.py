"""Ingest at scale: a million normalized price rows as one run.

Figures, each against a baseline measured in the same run:
- first ingest through the pipeline vs raw `sqlite3.executemany` of the same
  rows into the same table (SQLite), and vs `COPY` (PostgreSQL);
- re-ingest of the unchanged million: 0 rows written, no slower than the
  first ingest's baseline;
- 1% changed: exactly that many changes, within 1.2x of the unchanged run;
- a history query for one instance with two years of daily changes, p99;
- the naive ORM path (one `session.add` per row) beside the real one.
"""

from __future__ import annotations

import os
import random
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from benchmarks.harness import Figure, measure_in_child, timed
from db import store
from db.engine import make_engine, migrate
from db.schema import CrawlResult
from db.tables import PricePoint
from tracker.normalize import Normalized
from tracker.normalize.rows import normalize as normalize_rows
from tracker.pipeline import Pipeline
from tracker.sources import Source

SOURCE = Source("bench", "bench", "", "tracker.normalize.rows")
T0 = datetime(2026, 1, 1, tzinfo=UTC)
PG_URL = os.environ.get("GPU_TRACKER_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def make_rows(n: int, *, changed_every: int = 0, seed: int = 7) -> list[dict[str, Any]]:
    """n distinct quotes in the normalized field names; every
    `changed_every`-th one 5% dearer."""
    rnd = random.Random(seed)
    models = ("on_demand", "spot", "reserved", "savings_plan")
    rows = []
    for i in range(n):
        price = Decimal(rnd.randrange(10_000, 4_000_000)) / 100_000
        if changed_every and i % changed_every == 0:
            price = (price * Decimal("1.05")).quantize(Decimal("0.00001"))
        model = models[i % 4]
        rows.append({"provider": "bench", "region": f"region-{i % 50}", "zone": "",
                     "instance_type": f"gx{i // 200}.{i % 50 // 10}xlarge", "gpu_model": "A100 80GB",
                     "gpu_count": "8", "gpu_memory_gb": "640", "vcpu": "96", "memory_gb": "1152",
                     "os": "linux" if i % 200 < 100 else "windows", "price_model": model,
                     "term": "1yr" if model in ("reserved", "savings_plan") else "",
                     "price": str(price), "currency": "USD", "unit": "term" if model == "reserved" else "hour",
                     "source_url": "https://example.test/prices"})
    return rows


def _items(rows: list[dict[str, Any]], when: datetime) -> list[dict[str, Any]]:
    stamp = when.isoformat()
    return [{"line": n, "observed_at": stamp, "data": r} for n, r in enumerate(rows, start=1)]


def ingest(url: str, rows: list[dict[str, Any]], when: datetime) -> tuple[int, int, str]:
    """One run through the pipeline: (rows written, changes, status)."""
    engine = make_engine(url)
    migrate(engine)
    pipeline = Pipeline(engine=engine)
    run_id = pipeline.begin(SOURCE, spider="bench", mode="import", regions=[])
    result = CrawlResult(source=SOURCE.name, provider=SOURCE.provider, started_at=when, finished_at=when,
                         observed_at=when, items=_items(rows, when))
    report = pipeline.ingest(SOURCE, run_id, result, normalize_rows)
    engine.dispose()
    return report.rows_written, len(report.changes), str(report.status)


def _row_tuples(rows: list[dict[str, Any]]) -> tuple[list[str], list[tuple[Any, ...]]]:
    quotes = normalize_rows(_items(rows, T0)).quotes
    dicts = [store.quote_to_row(q, source=SOURCE.name, run_id=1, valid_from=T0) for q in quotes]
    columns = list(dicts[0])
    return columns, [tuple(d[c] for c in columns) for d in dicts]


def raw_executemany(db: Path, columns: list[str], tuples: list[tuple[Any, ...]]) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("insert into crawl_runs (id, source, provider, spider, mode, started_at, status, regions, pages,"
                 " items, rows_written, changes) values (1, 'bench', 'bench', '', 'raw', ?, 'ok', '', 0, 0, 0, 0)",
                 (T0.replace(tzinfo=None),))
    sql = f"insert into price_points ({', '.join(columns)}) values ({', '.join('?' * len(columns))})"
    conn.executemany(sql, [tuple(v.replace(tzinfo=None) if isinstance(v, datetime) else v for v in t)
                           for t in tuples])
    conn.commit()
    conn.close()


def naive_orm(url: str, rows: list[dict[str, Any]]) -> None:
    engine = make_engine(url)
    migrate(engine)
    quotes = normalize_rows(_items(rows, T0)).quotes
    with Session(engine) as session:
        run = store.start_run(session=session, source="naive", provider="bench", spider="", mode="naive",
                              regions=[], started_at=T0)
        for q in quotes:
            session.add(PricePoint(**store.quote_to_row(q, source="naive", run_id=run.id, valid_from=T0)))
        session.commit()
    engine.dispose()


def history_p99(url: str, days: int = 730, repeats: int = 200) -> float:
    """p99 seconds of the history query of one instance with a price change
    every day for `days` days, in a store that also holds everything else."""
    engine = make_engine(url)
    template = make_rows(1)[0] | {"instance_type": "hist.48xlarge", "region": "region-0"}
    quote = normalize_rows(_items([template], T0)).quotes[0]
    with Session(engine) as session:
        rows = []
        for day in range(days):
            row = store.quote_to_row(quote, source="history", run_id=None, valid_from=T0 + timedelta(days=day))
            row.update(price=str(Decimal("20") + Decimal(day) / 100),
                       valid_to=T0 + timedelta(days=day + 1) if day < days - 1 else None)
            rows.append(row)
        store.insert_prices(session=session, rows=rows)
        session.commit()
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            found = store.query_prices(session=session, instance_type="hist.48xlarge", current=False)
            samples.append(time.perf_counter() - start)
            assert len(found) == days
    engine.dispose()
    return statistics.quantiles(samples, n=100)[98]


def run(quick: bool) -> list[Figure]:
    n = 100_000 if quick else 1_000_000
    rows = make_rows(n)
    changed = make_rows(n, changed_every=100)
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        raw_db = Path(tmp) / "raw.db"
        engine = make_engine(f"sqlite:///{raw_db}")
        migrate(engine)
        engine.dispose()
        columns, tuples = _row_tuples(rows)
        raw_s, _ = timed(lambda: raw_executemany(raw_db, columns, tuples))
        del tuples

        url = f"sqlite:///{Path(tmp) / 'store.db'}"
        first_s, first_rss, (written, _, status) = measure_in_child(ingest, url, rows, T0)
        figures.append(Figure(f"ingest {n:,} rows (SQLite)", first_s, "raw sqlite3.executemany", raw_s,
                              first_rss, "<= 2x, RSS < 500 MB",
                              first_s <= 2 * raw_s and first_rss < 500 and written == n, f"{written:,} rows, {status}"))
        same_s, same_rss, (written, changes, _) = measure_in_child(ingest, url, rows, T0 + timedelta(days=1))
        figures.append(Figure("re-ingest unchanged (SQLite)", same_s, "raw sqlite3.executemany", raw_s, same_rss,
                              "0 rows, <= 1x", written == 0 and changes == 0 and same_s <= raw_s,
                              f"{written} rows, {changes} changes"))
        ch_s, ch_rss, (written, changes, _) = measure_in_child(ingest, url, changed, T0 + timedelta(days=2))
        figures.append(Figure("1% changed (SQLite)", ch_s, "unchanged re-ingest", same_s, ch_rss,
                              f"{n // 100:,} changes, <= 1.2x", changes == n // 100 and ch_s <= 1.2 * same_s,
                              f"{changes:,} changes"))
        p99 = history_p99(url)
        figures.append(Figure("history query p99, 730 intervals", p99, "", None, None, "< 50 ms", p99 < 0.05,
                              f"store holds {n:,} rows"))

        naive_n = n // 10
        naive_s, _ = timed(lambda: naive_orm(f"sqlite:///{Path(tmp) / 'naive.db'}", rows[:naive_n]))
        figures.append(Figure(f"naive ORM add() per row, {naive_n:,} rows", naive_s, "ingest per row",
                              first_s / n * naive_n, None, "", None,
                              f"{naive_s / naive_n * 1e6:.0f} us/row vs {first_s / n * 1e6:.0f} us/row"))
    return figures
