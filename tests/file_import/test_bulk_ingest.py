"""The bulk path: import files bigger than one chunk, streamed through the
diff and written by the background writer, on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from db.bulk.encoding import StagedQuote
from db.schema import PriceModel, PriceQuote, Unit
from db.store.engine import make_engine, migrate
from db.store.reads import session as store
from db.store.writes.run_store import take_statement
from db.tables import ChangeRow, CrawlRun, PricePoint
from tracker.errors import UserError
from tracker.file_import.importing import import_file
from tracker.file_import.rows import QuoteRow, normalize, staged_rows
from tracker.run.pipeline import CHUNK, Pipeline

T0 = datetime(2026, 3, 1, tzinfo=UTC)
N = CHUNK * 2 + 345  # three chunks, the last one partial


def write_csv(path: Path, n: int, *, dearer_every: int = 0, bad_line: int = 0, skip: int = 0) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(
            [
                "provider",
                "region",
                "instance_type",
                "gpu_model",
                "gpu_count",
                "price_model",
                "price",
                "currency",
                "unit",
            ]
        )
        for i in range(skip, n):
            price = Decimal(10) + Decimal(i) / 1000
            if dearer_every and i % dearer_every == 0:
                price += 1
            text = "cheap" if bad_line and i + 2 == bad_line else str(price)
            # A GPU model no market prices: these made-up rates (10 to 30 USD a
            # GPU-hour) are not judged by the market check (tests/run/test_suspect_prices.py).
            out.writerow(["bulk", f"r{i % 7}", f"g{i}.xlarge", "TestGPU", "1", "on_demand", text, "usd", "hour"])
    return path


@pytest.fixture
def pipeline(db_url: str):
    engine = make_engine(db_url)
    migrate(engine)
    clock = iter([T0 + timedelta(days=d) for d in range(100)])
    now = {"t": next(clock)}
    pipe = Pipeline(engine=engine, clock=lambda: now["t"])
    pipe.advance = lambda: now.update(t=next(clock))  # type: ignore[attr-defined]
    yield pipe
    engine.dispose()


def _open_rows(pipeline: Pipeline, source: str = "bulk") -> dict[str, str]:
    with Session(pipeline.engine) as session:
        return {p.instance_type: p.price for p in store.query_prices(session=session) if p.source == source}


@pytest.mark.slow
def test_a_file_of_several_chunks_is_one_run_and_then_a_diff(pipeline: Pipeline, tmp_path: Path) -> None:
    first = import_file(pipeline, write_csv(tmp_path / "a.csv", N), source="bulk")
    assert (first.ok, first.rows_written, first.prices, first.items, first.changes) == (True, N, N, N, [])
    stored = _open_rows(pipeline)
    assert len(stored) == N and stored["g20344.xlarge"] == "30.344" and stored["g0.xlarge"] == "10"

    pipeline.advance()  # type: ignore[attr-defined]
    again = import_file(pipeline, write_csv(tmp_path / "b.csv", N), source="bulk")
    assert (again.rows_written, again.changes) == (0, [])

    pipeline.advance()  # type: ignore[attr-defined]
    changed = import_file(pipeline, write_csv(tmp_path / "c.csv", N, dearer_every=1000), source="bulk")
    kinds = sorted({c.kind for c in changed.changes})
    assert kinds == ["price_increase"] and len(changed.changes) == changed.rows_written == len(range(0, N, 1000))
    rise = next(c for c in changed.changes if c.instance_type == "g12000.xlarge")
    assert (rise.old_price, rise.new_price, rise.currency) == (Decimal("22"), Decimal("23"), "USD")
    assert _open_rows(pipeline)["g12000.xlarge"] == "23" and len(_open_rows(pipeline)) == N


def test_a_bad_row_in_the_last_chunk_leaves_nothing_stored(pipeline: Pipeline, tmp_path: Path) -> None:
    import_file(pipeline, write_csv(tmp_path / "a.csv", N), source="bulk")
    pipeline.advance()  # type: ignore[attr-defined]
    bad = write_csv(tmp_path / "bad.csv", N, dearer_every=7, bad_line=N)  # the file's last line
    with pytest.raises(UserError, match=rf"line {N}: price"):
        import_file(pipeline, bad, source="bulk")
    # The two chunks already written before the bad row were rolled back.
    assert _open_rows(pipeline) == {f"g{i}.xlarge": str(Decimal(10) + Decimal(i) / 1000) for i in range(N)}


def test_a_run_with_too_few_rows_is_quarantined_whole(pipeline: Pipeline, tmp_path: Path) -> None:
    import_file(pipeline, write_csv(tmp_path / "a.csv", N), source="bulk")
    pipeline.advance()  # type: ignore[attr-defined]
    # The first chunks are all new prices and are written before the run is
    # found to hold under half the rows.
    partial = import_file(pipeline, write_csv(tmp_path / "p.csv", N + CHUNK, skip=N - 100), source="bulk")
    assert partial.status == "quarantined" and "less than 50" in (partial.error or "")
    assert len(_open_rows(pipeline)) == N


def test_two_values_for_one_key_across_chunks_reject_the_file(pipeline: Pipeline, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "dup.csv", N)
    with path.open("a", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerow(["bulk", "r0", "g0.xlarge", "L4", "1", "on_demand", "99", "USD", "hour"])
    with pytest.raises(UserError, match=r"two prices for g0\.xlarge"):
        import_file(pipeline, path, source="bulk")
    # A refused file, as the docs say: `rejected`, and no source_broken announced.
    with Session(pipeline.engine) as session:
        (run,) = session.exec(select(CrawlRun)).all()
        assert run.status == "rejected" and not session.exec(select(ChangeRow)).all()
    assert _open_rows(pipeline) == {}


def test_the_row_validator_keeps_step_with_price_quote() -> None:
    assert set(QuoteRow.__annotations__) == set(PriceQuote.model_fields)
    items: list[dict[str, Any]] = [
        {
            "line": 2,
            "observed_at": T0.isoformat(),
            "data": {
                "provider": "aws",
                "region": "us-east-1",
                "instance_type": "p5.48xlarge",
                "gpu_count": "8",
                "price_model": "reserved",
                "term": "3yr",
                "payment_option": "partial_upfront",
                "price": "30.50",
                "upfront_fee": "400000",
                "currency": "usd",
                "unit": "hour",
                "attrs": json.dumps({"sku": "A"}),
            },
        }
    ]
    errors: list[str] = []
    staged = staged_rows(items, errors)
    quote = normalize(items).quotes[0]
    assert errors == [] and (staged[0].key, staged[0].value_hash) == (quote.key, quote.value_hash)
    assert staged[0] == StagedQuote.of(quote) and StagedQuote.of(quote).fields["currency"] == "USD"
    bad = dict(items[0], data=items[0]["data"] | {"currency": "dollars"})
    staged_rows([bad], errors)
    assert errors == ["line 2: currency: Value error, currency must be a 3-letter code, not 'dollars'"]


def test_quote_hashes_are_stable() -> None:
    """Stored keys must never change meaning: these are from the first release."""
    quote = PriceQuote(
        provider="aws",
        region="us-east-1",
        instance_type="p5.48xlarge",
        gpu_model="H100",
        gpu_count=Decimal("8"),
        price_model=PriceModel.reserved,
        term="3yr",
        payment_option="partial_upfront",
        price=Decimal("30.50"),
        upfront_fee=Decimal("400000"),
        currency="usd",
        unit=Unit.hour,
        observed_at=T0,
        attrs={"sku": "ABC", "b": "1"},
    )
    assert (quote.key, quote.value_hash) == ("f6b5fb635c5a9e9028a6d2d32f2e5e51", "c89c58f3014f8538")
    spot = PriceQuote(
        provider="azure",
        region="eastus",
        instance_type="NC",
        price_model=PriceModel.spot,
        price=Decimal("1.0"),
        currency="USD",
        unit=Unit.hour,
        observed_at=T0,
        availability="SELL",
    )
    assert (spot.key, spot.value_hash) == ("ccb6bf3eef2a6a6887e7071e6e510a78", "2885a31bdc356da9")


def test_stored_decimals_are_written_out_in_full(pipeline: Pipeline, tmp_path: Path) -> None:
    path = tmp_path / "tiny.jsonl"
    path.write_text(
        json.dumps(
            {
                "provider": "bulk",
                "region": "r",
                "instance_type": "t",
                "price_model": "spot",
                "price": "1.5E+3",
                "gpu_count": "1E+1",
                "currency": "USD",
                "unit": "hour",
            }
        )
        + "\n"
    )
    import_file(pipeline, path, source="bulk")
    with Session(pipeline.engine) as session:
        (row,) = store.query_prices(session=session)
    assert (row.price, row.gpu_count) == ("1500", "10")


def test_a_change_in_one_source_leaves_another_with_the_same_keys_alone(pipeline: Pipeline, tmp_path: Path) -> None:
    # Both sources hold the very same quotes, so the same keys: closing the
    # changed rows of one must find that source's rows, and only those.
    plain = write_csv(tmp_path / "a.csv", 50)
    import_file(pipeline, plain, source="bulk")
    import_file(pipeline, plain, source="mirror")
    pipeline.advance()  # type: ignore[attr-defined]
    report = import_file(pipeline, write_csv(tmp_path / "b.csv", 50, dearer_every=10), source="bulk")
    assert len(report.changes) == 5 and report.rows_written == 5
    assert _open_rows(pipeline, "bulk")["g10.xlarge"] == "11.01"
    mirror = _open_rows(pipeline, "mirror")
    assert len(mirror) == 50 and mirror["g10.xlarge"] == "10.01"
    with Session(pipeline.engine) as session:
        closed = session.exec(select(PricePoint.source).where(col(PricePoint.valid_to).is_not(None))).all()
    assert closed == ["bulk"] * 5


def test_sqlite_closes_changed_rows_through_the_key_index(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'plan.db'}")
    migrate(engine)
    with Session(engine) as session:
        stmt = take_statement(session, "bulk", ["a" * 32, "b" * 32], T0)
        sql = str(stmt.compile(engine, compile_kwargs={"literal_binds": True}))
        plan = " ".join(row[-1] for row in session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}"))
    assert "ix_price_points_key" in plan, plan
    engine.dispose()
