"""The fast paths of `gpu-tracker import`: a file row met again word for
word is recognized by its hash, a big file is validated by a worker
process, and the column-wise validator agrees with PriceQuote on any row.
On SQLite and PostgreSQL, against what the store holds."""

from __future__ import annotations

import csv
import json
import logging
import multiprocessing
import os
import signal
import string
import threading
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from sqlmodel import Session, select

from db.bulk.encoding import StagedQuote
from db.schema import PriceModel, PriceQuote, Unit
from db.store.engine import make_engine, migrate
from db.tables import PricePoint
from tests.conftest import examples
from tracker.errors import UserError
from tracker.file_import import worker as import_worker
from tracker.file_import.importing import import_file
from tracker.file_import.rows import QUOTE_FIELDS, staged_columns, staged_rows, validation_reason
from tracker.normalize import bounds
from tracker.run.pipeline import CHUNK, Pipeline

T0 = datetime(2026, 5, 1, tzinfo=UTC)
HEADER = [
    "provider",
    "region",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "price_model",
    "price",
    "currency",
    "unit",
    "attrs",
]


def row(i: int, price: str | None = None) -> list[str]:
    attrs = json.dumps({"sku": f"S{i}", "note": 'has "quotes", commas'}) if i % 3 == 0 else ""
    return [
        "memo",
        f"r{i % 5}",
        f"m{i}.xlarge",
        "H100",
        "8",
        "on_demand",
        price or f"{20 + i / 100:.2f}",
        "USD",
        "hour",
        attrs,
    ]


def write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(HEADER)
        writer.writerows(rows)
    return path


@pytest.fixture
def pipeline(db_url: str):
    engine = make_engine(db_url)
    migrate(engine)
    now = {"t": T0}
    pipe = Pipeline(engine=engine, clock=lambda: now["t"])
    pipe.advance = lambda: now.update(t=now["t"] + timedelta(days=1))  # type: ignore[attr-defined]
    yield pipe
    engine.dispose()


def open_points(pipeline: Pipeline) -> dict[str, PricePoint]:
    with Session(pipeline.engine) as session:
        points = session.exec(select(PricePoint).where(PricePoint.valid_to.is_(None))).all()  # type: ignore[union-attr]
    return {p.instance_type: p for p in points}


def test_rows_met_again_are_recognized_and_reformatted_ones_relearned(pipeline: Pipeline, tmp_path: Path) -> None:
    rows = [row(i) for i in range(300)]
    first = import_file(pipeline, write(tmp_path / "a.csv", rows), source="memo")
    assert first.rows_written == 300
    stored = open_points(pipeline)
    assert stored["m3.xlarge"].attrs == json.dumps({"note": 'has "quotes", commas', "sku": "S3"}, sort_keys=True)
    assert all(p.input_hash for p in stored.values())

    # The same prices, some written differently ("20.10" as "20.1"), one changed.
    again = [row(i) for i in range(300)]
    again[10][6] = "20.1"
    again[20][6] = "99.00"
    pipeline.advance()  # type: ignore[attr-defined]
    report = import_file(pipeline, write(tmp_path / "b.csv", again), source="memo")
    assert [(c.kind, c.instance_type, c.new_price) for c in report.changes] == [
        ("price_increase", "m20.xlarge", Decimal("99.00"))
    ]
    assert report.rows_written == 1 and report.prices == 300
    now = open_points(pipeline)
    # Same value, other text: the price row stays, and learns its new file row.
    assert now["m10.xlarge"].id == stored["m10.xlarge"].id and now["m10.xlarge"].price == "20.10"
    assert now["m10.xlarge"].input_hash != stored["m10.xlarge"].input_hash
    assert now["m11.xlarge"].input_hash == stored["m11.xlarge"].input_hash


def test_a_recognized_row_still_clashes_with_another_price_for_its_key(pipeline: Pipeline, tmp_path: Path) -> None:
    rows = [row(i) for i in range(50)]
    import_file(pipeline, write(tmp_path / "a.csv", rows), source="memo")
    pipeline.advance()  # type: ignore[attr-defined]
    with pytest.raises(UserError, match=r"two prices for m7\.xlarge"):  # a refused file: `rejected`
        import_file(pipeline, write(tmp_path / "b.csv", rows + [row(7, price="1.00")]), source="memo")
    assert open_points(pipeline)["m7.xlarge"].price == "20.07"


def test_a_recognized_row_clears_its_misses(pipeline: Pipeline, tmp_path: Path) -> None:
    full = write(tmp_path / "full.csv", [row(i) for i in range(40)])
    less = write(tmp_path / "less.csv", [row(i) for i in range(40) if i != 5])
    for path in (full, less, full, less):  # m5 missed, seen again (recognized), missed once more
        import_file(pipeline, path, source="memo")
        pipeline.advance()  # type: ignore[attr-defined]
    point = open_points(pipeline)["m5.xlarge"]
    assert point.missed_runs == 1  # one miss since it was last seen: not removed


def test_quoted_line_breaks_and_a_stray_quote(pipeline: Pipeline, tmp_path: Path) -> None:
    rows = [row(i) for i in range(6)]
    rows[2][3] = "H100\nSXM"  # a GPU model written over two lines, quoted
    path = write(tmp_path / "a.csv", rows + [row(6, price="cheap")])
    with pytest.raises(UserError, match=r"line 9: price: Input should be a valid decimal"):
        import_file(pipeline, path, source="memo")  # the row after the two-line one is on line 9
    import_file(pipeline, write(tmp_path / "b.csv", rows), source="memo")
    assert open_points(pipeline)["m2.xlarge"].gpu_model == "H100\nSXM"

    stray = tmp_path / "stray.csv"
    stray.write_text(",".join(HEADER) + "\n" + 'memo,r0,"m0.xlarge,H100,8,on_demand,1,USD,hour,\n')
    with pytest.raises(UserError, match=r"line 2: .*(quote|CSV)"):
        import_file(pipeline, stray, source="memo")


@pytest.mark.slow
def test_a_big_file_is_validated_by_a_worker_the_same_way(
    pipeline: Pipeline, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(import_worker, "WORKER_MIN_ROWS", 3 * CHUNK)  # a smaller file than for real, for speed
    n = 5 * CHUNK + 17
    rows = [row(i) for i in range(n)]
    with caplog.at_level(logging.INFO, logger="tracker.file_import.worker"):
        first = import_file(pipeline, write(tmp_path / "a.csv", rows), source="memo")
    assert "in a worker process" in caplog.text
    assert (first.ok, first.rows_written) == (True, n)
    stored = open_points(pipeline)
    assert len(stored) == n and stored[f"m{n - 1}.xlarge"].price == f"{20 + (n - 1) / 100:.2f}"
    assert stored["m30000.xlarge"].attrs == json.dumps(
        {"note": 'has "quotes", commas', "sku": "S30000"}, sort_keys=True
    )

    rows[n - 2][6] = "not a price"  # in the last batch the worker validates
    pipeline.advance()  # type: ignore[attr-defined]
    with pytest.raises(UserError, match=rf"1 bad row, nothing stored: line {n}: price"):
        import_file(
            pipeline,
            write(tmp_path / "bad.csv", [r[:6] + ["1.5"] + r[7:] for r in rows[:1000]] + rows[1000:]),
            source="memo",
        )
    assert open_points(pipeline)["m0.xlarge"].price == "20.00"


@pytest.mark.slow
def test_an_import_outlives_its_worker(
    pipeline: Pipeline, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(import_worker, "WORKER_MIN_ROWS", 3 * CHUNK)
    n = 4 * CHUNK
    path = write(tmp_path / "a.csv", [row(i) for i in range(n)])
    reports = []
    with caplog.at_level(logging.INFO, logger="tracker.file_import.worker"):
        importer = threading.Thread(target=lambda: reports.append(import_file(pipeline, path, source="memo")))
        importer.start()
        deadline = time.monotonic() + 60
        while not multiprocessing.active_children() and importer.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)
        for worker in multiprocessing.active_children():
            os.kill(worker.pid or 0, signal.SIGKILL)
        importer.join()
    assert "worker process validating rows stopped" in caplog.text
    assert reports[0].rows_written == n and len(open_points(pipeline)) == n


# --- the column-wise validator agrees with PriceQuote ----------------------

TEXT = st.text(alphabet=string.ascii_letters + string.digits + " -._", max_size=8)
DECIMAL_TEXT = st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False, places=4).map(str),
    st.sampled_from(["", "1e3", "8", "8.0", "NaN", "x", " 2 ", "-0", "0", "0.000", "1e400", "1E-7", "9" * 40]),
)
FIELDS = {
    "provider": st.one_of(TEXT, st.just("")),
    "region": TEXT,
    "zone": TEXT,
    "instance_type": TEXT,
    "gpu_model": TEXT,
    "gpu_count": DECIMAL_TEXT,
    "vcpu": DECIMAL_TEXT,
    "os": TEXT,
    "price_model": st.sampled_from([*PriceModel, "spot ", "monthly", ""]),
    "term": TEXT,
    "price": DECIMAL_TEXT,
    "currency": st.sampled_from(["USD", "cny", "dollars", "", "EU"]),
    "unit": st.sampled_from([*Unit, "day"]),
    "upfront_fee": DECIMAL_TEXT,
    "availability": TEXT,
    "observed_at": st.sampled_from(["", "2026-01-02T03:04:05+08:00", "2026-01-02", "x", "9999-12-31T00:00:00Z"]),
    "attrs": st.sampled_from(
        [
            "",
            "{}",
            '{"a": "1"}',
            '{"a": 1}',
            "[1]",
            "{",
            '{"b": "x", "a": "y"}',
            '{"a": "\\u0000"}',
            '{"a": "%s"}' % ("x" * 9000),
        ]
    ),
}


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.fixed_dictionaries({}, optional=FIELDS), min_size=1, max_size=6))
def test_column_validator_agrees_with_price_quote(datas: list[dict[str, str]]) -> None:
    stamp = T0.isoformat()
    items: list[dict[str, Any]] = [{"line": i + 2, "observed_at": stamp, "data": data} for i, data in enumerate(datas)]
    errors: list[str] = []
    staged_list = staged_rows(items, errors)
    # The same rows as a CSV file's columns (texts, a blank for a missing cell) take the texts' fast path.
    names = sorted({name for data in datas for name in data})
    csv_errors: list[str] = []
    as_csv = staged_columns(
        [item["line"] for item in items],
        {n: tuple(d.get(n, "") for d in datas) for n in names},
        stamp,
        csv_errors,
        texts=True,
    )
    assert (as_csv, csv_errors) == (staged_list, errors)
    staged = iter(staged_list)
    reasons = {int(e.split(":")[0].removeprefix("line ")): e.split(": ", 1)[1] for e in errors}
    for item in items:
        fields = {k: v for k, v in item["data"].items() if k in QUOTE_FIELDS and v != ""}
        fields.setdefault("observed_at", stamp)
        try:
            if isinstance(fields.get("attrs"), str):
                try:
                    fields["attrs"] = json.loads(fields["attrs"])
                except json.JSONDecodeError:
                    # The first bad field is named, in field order: attrs comes last.
                    before = PriceQuote.model_validate({k: v for k, v in fields.items() if k != "attrs"})
                    expected = bounds.field_reason(before, T0)
                    if expected is None or expected.startswith(("median_price", "offer_count")):
                        expected = "attrs: not a JSON object"
                    assert reasons[item["line"]] == expected
                    continue
            quote = PriceQuote.model_validate(fields)
        except ValidationError as exc:
            reason = reasons[item["line"]]
            if reason != validation_reason(exc):  # a field before it out of bounds, named first
                order = list(PriceQuote.model_fields)
                named = reason.split(":")[0]
                assert named in {*bounds.NUMBERS, *bounds.TEXTS, "attrs", "observed_at"}, reason
                assert order.index(named) < order.index(str(exc.errors()[0]["loc"][0])), reason
            continue
        out_of_bounds = bounds.quote_reason(quote, T0)  # the import's time bounds observed_at
        if out_of_bounds:
            assert reasons[item["line"]] == out_of_bounds
            continue
        assert item["line"] not in reasons
        ours = next(staged)
        assert ours == StagedQuote.of(quote)  # the same key, value hash and stored columns
        assert ours.fields["price"] == quote.price and ours.fields["attrs"] == quote.attrs
    assert next(staged, None) is None
