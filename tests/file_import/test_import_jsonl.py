"""JSON Lines imports: a daily export whose rows carry their observed_at is
recognized row by row the next day (its unchanged rows neither validated
again nor rewritten), and columns no quote has are named, not dropped
silently. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sqlmodel import Session, select

from db.store.engine import make_engine, migrate
from db.tables import PricePoint
from tracker.file_import.importing import import_file
from tracker.file_import.jsonl import line_hash, line_hashes, remembered
from tracker.file_import.row_validator import normal_text
from tracker.run.pipeline import Pipeline

T0 = datetime(2026, 5, 1, tzinfo=UTC)


@pytest.fixture
def pipeline(db_url: str):
    engine = make_engine(db_url)
    migrate(engine)
    yield Pipeline(engine=engine, clock=lambda: T0 + timedelta(days=30))
    engine.dispose()


def export(path: Path, day: int, prices: dict[int, str], **extra: str) -> Path:
    stamp = (T0 + timedelta(days=day)).isoformat()
    rows = [
        {"provider": "mine", "region": "r1", "instance_type": f"m{i}", "price_model": "on_demand", "price": price}
        | {"currency": "USD", "unit": "hour", "gpu_model": "H100", "gpu_count": "8", "observed_at": stamp}
        | extra
        for i, price in prices.items()
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def open_rows(pipeline: Pipeline) -> dict[str, PricePoint]:
    with Session(pipeline.engine) as session:
        found = session.exec(select(PricePoint).where(PricePoint.valid_to.is_(None))).all()  # type: ignore[union-attr]
    return {p.instance_type: p for p in found}


def test_the_next_days_export_is_recognized_despite_its_new_observed_at(pipeline: Pipeline, tmp_path: Path) -> None:
    prices = {i: f"{10 + i}.50" for i in range(200)}
    first = import_file(pipeline, export(tmp_path / "d1.jsonl", 1, prices), source="mine")
    assert first.rows_written == 200
    before = open_rows(pipeline)
    assert all(p.input_hash for p in before.values())

    prices[7] = "99.00"
    second = import_file(pipeline, export(tmp_path / "d2.jsonl", 2, prices), source="mine")
    assert [(c.kind, c.instance_type) for c in second.changes] == [("price_increase", "m7")]
    assert second.rows_written == 1 and second.prices == 200
    after = open_rows(pipeline)
    # Unchanged rows are the same rows, remembering the same file row: nothing rewritten.
    assert {k: (p.id, p.input_hash) for k, p in after.items() if k != "m7"} == {
        k: (p.id, p.input_hash) for k, p in before.items() if k != "m7"
    }


def test_a_row_naming_observed_at_twice_is_remembered_whole() -> None:
    top = b'{"price":"1","observed_at":"2026-05-01T00:00:00+00:00"}'
    nested = b'{"price":"1","attrs":{"observed_at":"x"},"observed_at":"2026-05-01T00:00:00+00:00"}'
    assert remembered(top) == b'{"price":"1",}'
    assert remembered(b'{"observed_at" : "2026-05-01", "price": "1"}') == b'{, "price": "1"}'
    assert remembered(nested) == nested
    assert remembered(b'{"observed_at":null,"price":"1"}') == b'{"observed_at":null,"price":"1"}'
    assert remembered(b'{"price":"1"}') == b'{"price":"1"}'


def test_columns_no_quote_has_are_named(pipeline: Pipeline, tmp_path: Path) -> None:
    notes: list[str] = []
    path = export(tmp_path / "d1.jsonl", 1, {1: "1.00", 2: "2.00"}, discount_code="SPRING")
    import_file(pipeline, path, source="mine", notes=notes.append)
    assert notes == ["ignored columns: discount_code"]


@example("0.0000001")
@example("0.000001")
@example("-0.00000012")
@example("100")
@example("120.0")
@example("0.00")
@example("-0.0")
@example("5.0")
@example("10.50")
@example("1000000000000000000000000.0001")
@given(st.from_regex(r"-?(0|[1-9][0-9]{0,12})(\.[0-9]{1,12})?", fullmatch=True))
def test_a_decimal_is_normalized_by_text_as_decimal_does(text: str) -> None:
    assert (normal_text(text) or str(Decimal(text).normalize())) == str(Decimal(text).normalize())


@given(
    st.lists(
        st.sampled_from(
            [
                b'{"price":"1","observed_at":"2026-05-01T00:00:00+00:00"}',
                b'{"observed_at" : "2026-05-02","price":"2"}',
                b'{"price":"3","observed_at":null}',
                b'{"price":"4","observed_at":"a\\"b"}',
                b'{"price":"5","attrs":{"observed_at":"x"},"observed_at":"y"}',
                b'{"price":"6"}',
            ]
        ),
        max_size=8,
    )
)
def test_a_blocks_row_hashes_are_each_rows_own(lines: list[bytes]) -> None:
    assert line_hashes(b"salt", lines) == [line_hash(b"salt", line) for line in lines]
