"""`gpu-tracker import` of N rows into a fresh SQLite store, against its
floor: validating the same rows as PriceQuotes and one Core executemany of
them. The ratio is what reading the file, diffing and the run bookkeeping add."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from benchmarks.harness import Figure, measure_in_child


def _rows(n: int) -> list[dict[str, str]]:
    return [
        {
            "provider": "negotiated",
            "region": f"r{i % 20}",
            "instance_type": f"gpu-{i:06d}",
            "gpu_model": "H100",
            "gpu_count": "8",
            "price_model": "on_demand",
            "price": f"{10 + i / 100:.2f}",
            "currency": "USD",
            "unit": "hour",
        }
        for i in range(n)
    ]


def _engine(folder: Path) -> sa.Engine:
    from db.engine import make_engine, migrate

    engine = make_engine(f"sqlite:///{folder / 'store.db'}")
    migrate(engine)
    return engine


def _import(folder: str, n: int) -> int:
    from tracker.file_import.importing import import_file
    from tracker.run.pipeline import Pipeline

    path = Path(folder) / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows(n)), encoding="utf-8")
    report = import_file(Pipeline(engine=_engine(Path(folder))), path, source="bench")
    assert report.ok, report.error
    return report.rows_written


def _core_insert(folder: str, n: int) -> int:
    from sqlmodel import Session

    from db.bulk.encoding import StagedQuote, price_row
    from db.bulk.writer import insert_price_rows
    from db.run_store import RunStore
    from db.schema import PriceQuote

    now = datetime.now(UTC)
    engine = _engine(Path(folder))
    with Session(engine) as session:
        store = RunStore.begin(
            session, source="bench", provider="negotiated", spider="", mode="import", regions=[], now=now
        )
        quotes = [PriceQuote.model_validate(r | {"observed_at": now}) for r in _rows(n)]
        rows = [price_row(StagedQuote.of(q), source="bench", run_id=store.run_id, valid_from=now) for q in quotes]
        insert_price_rows(session=session, rows=rows)
        session.commit()
    return len(rows)


def run(quick: bool) -> list[Figure]:
    n = 2_000 if quick else 20_000
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        base_s, _, _ = measure_in_child(_core_insert, a, n)
        seconds, rss, written = measure_in_child(_import, b, n)
    assert written == n
    ratio = seconds / base_s
    return [
        Figure(
            name=f"import {n:,} rows (JSON Lines, SQLite)",
            seconds=seconds,
            baseline_name="validate + Core insert of the same rows",
            baseline_seconds=base_s,
            peak_rss_mb=rss,
            target="<= 3x baseline",
            passed=ratio <= 3,
            note=f"{n / seconds:,.0f} rows/s",
        )
    ]
