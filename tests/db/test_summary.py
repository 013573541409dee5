"""The open prices' rates per instance type (`open_type_rates`,
db/store/writes/summary.py): the table the runs keep says what the prices say, and
the answers read from it are those the prices give, on each back end.

The store is the demo's (its captures imported source by source, then the
marketplaces' days replayed: runs that insert, change and close prices),
so the rows compared come from real captures."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal

import pytest
import sqlalchemy as sa

from db.kinds import PRICE_KINDS
from db.store.reads import rankings
from db.store.reads.connection import Db, engine_db
from db.store.reads.rows import PriceFilter
from db.store.writes.summary import COLUMNS, KEY, TABLE, refresh

FILTERS = [
    PriceFilter(os="linux", with_gpus=True),
    PriceFilter(os="linux", with_gpus=True, gpu="H100"),
    PriceFilter(os="linux", with_gpus=True, provider="aws"),
    PriceFilter(os="windows", with_gpus=True),
    PriceFilter(os="linux", with_gpus=True, shapes=(("H100", "8", "640"), ("A100", "8", "320"), ("L4", "1", "24"))),
]


@pytest.fixture
def store(demo_db_url: str) -> Iterator[sa.Engine]:
    engine = sa.create_engine(demo_db_url)
    yield engine
    engine.dispose()


def _table(db: Db) -> list[tuple]:
    order = ", ".join(KEY)
    rows = db.tuples(f"SELECT {', '.join(COLUMNS)} FROM {TABLE} ORDER BY {order}")
    return [tuple(round(v, 9) if isinstance(v, float) else v for v in row) for row in rows]


def _rounded(rows: list[dict]) -> list[dict]:
    return [{k: round(v, 9) if isinstance(v, float) else v for k, v in row.items()} for row in rows]


def test_the_kept_table_is_what_the_prices_say(store: sa.Engine) -> None:
    """After the demo's runs, the table the runs kept equals one worked out
    afresh from every open price; and it holds the demo's instance types."""
    with engine_db(store) as db:
        kept = _table(db)
        refresh(db)
        assert _table(db) == kept
        db.conn.rollback()
    assert len(kept) > 500
    assert {row[0] for row in kept} >= {"aws", "azure", "gcp", "alibaba", "tencent", "vastai"}


def test_answers_from_the_table_are_those_of_the_prices(store: sa.Engine) -> None:
    with engine_db(store) as db:
        for where in FILTERS:
            fast = _rounded(list(rankings.type_rates(db, where)))
            slow = _rounded(list(rankings.type_rates(db, where, kept_table=False)))
            assert fast == slow and fast, where
            fast_shapes = rankings.shapes(db, where)
            assert fast_shapes == rankings.shapes(db, where, kept_table=False), where
            lows = rankings.cheapest_per_gpu(db, where, PRICE_KINDS)
            key = lambda r: (str(r["gpu_model"]), r["kind"], r["currency"])
            exact = [r for r in rankings.cheapest_per_gpu(db, where, PRICE_KINDS, kept_table=False) if r["low"]]
            assert sorted(_rounded(lows), key=key) == sorted(_rounded(exact), key=key), where
            bars = [(r["gpu_model"], r["kind"], r["currency"], r["low"] * 1.05) for r in exact if r["gpu_model"]]
            found = rankings.instances_below(db, where, PRICE_KINDS, bars)
            assert found == rankings.instances_below(db, where, PRICE_KINDS, bars, kept_table=False), where
            assert found


def test_a_filter_the_table_cannot_answer_reads_the_prices(store: sa.Engine) -> None:
    """A region, a single instance or no system: the prices answer, the table is not asked."""
    with engine_db(store) as db:
        assert rankings.summarized(db, PriceFilter(os="linux", region="us-east-1")) is None
        assert rankings.summarized(db, PriceFilter(os="linux", gpu_count=Decimal(8))) is None
        assert rankings.summarized(db, PriceFilter(os="linux", current=False)) is None
        assert rankings.summarized(db, PriceFilter(with_gpus=True), one_os=True) is None
        where = PriceFilter(with_gpus=True, region="eastus")
        assert list(rankings.type_rates(db, where)) == list(rankings.type_rates(db, where, kept_table=False))


def test_a_rewind_keeps_the_table(demo_db_url: str) -> None:
    """A source's history rewound (as `reprocess` does) moves its providers'
    rows with the prices; the other providers' rows stay as they were."""
    from sqlmodel import Session

    from db.store.reads.connection import utc_time
    from db.store.writes.rewind import rewind_source

    engine = sa.create_engine(demo_db_url)
    try:
        with engine.connect() as conn:
            # A source that saw more than one day: its later days moved prices.
            source, provider, first = conn.execute(
                sa.text(
                    "SELECT source, min(provider), min(valid_from) FROM price_points GROUP BY source "
                    "HAVING count(DISTINCT valid_from) > 1 AND count(DISTINCT provider) = 1 ORDER BY source LIMIT 1"
                )
            ).one()
        with engine_db(engine) as db:
            before = _table(db)
        with Session(engine) as session:
            rewind_source(session=session, source=source, moment=utc_time(first) + timedelta(seconds=1))
            session.commit()
        with engine_db(engine) as db:
            after = _table(db)
            refresh(db)
            assert _table(db) == after
            db.conn.rollback()
        assert after != before, source
        assert [r for r in after if r[0] != provider] == [r for r in before if r[0] != provider]
    finally:
        engine.dispose()


def test_a_bulk_import_works_the_rates_out_before_it_ends(db_url: str, tmp_path, monkeypatch) -> None:
    """An import that changes more instance types than a run works out at
    once marks its provider stale in its run, and works the rates out
    before it ends (issue 41: the first answer after it paid for them).
    Left stale (a process killed in between), the answers read its prices
    meanwhile (the same rows), and the first `recommend` that can write
    works the rates out, equal to a table worked out afresh."""
    import json
    from datetime import UTC, datetime

    from db.store.engine import make_engine, migrate
    from db.store.writes import summary
    from tracker.analytics.facts.reference import load_references
    from tracker.analytics.recommend import Needs
    from tracker.analytics.recommend.store import recommend_rows
    from tracker.file_import.importing import import_file
    from tracker.run.pipeline import Pipeline

    monkeypatch.setattr(summary, "TYPES_AT_ONCE", 5)
    engine = make_engine(db_url)
    migrate(engine)
    try:
        stamp = datetime(2026, 5, 1, tzinfo=UTC).isoformat()
        rows = [
            {"provider": "mine", "region": region, "instance_type": f"g{n}x8", "price_model": model}
            | {"price": f"{10 + n + k}.25", "currency": "USD", "unit": "hour", "gpu_model": "H100"}
            | {"gpu_count": "8", "os": "linux", "observed_at": stamp}
            for n in range(12)
            for k, region in enumerate(("r1", "r2"))
            for model in ("on_demand", "spot")
        ]
        path = tmp_path / "bulk.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        pipeline = Pipeline(engine=engine, clock=lambda: datetime(2026, 5, 2, tzinfo=UTC))
        assert import_file(pipeline, path, source="mine").rows_written == 48
        where = PriceFilter(os="linux", with_gpus=True)
        with engine_db(engine) as db:
            assert summary.stale(db) == set() and len(imported := _table(db)) == 24
            refresh(db)
            assert _table(db) == imported
            db.conn.rollback()
            # As a killed import leaves it: the run committed, the rates not worked out.
            db.execute(f"DELETE FROM {TABLE}")
            db.execute(f"INSERT INTO {summary.STALE} (provider) VALUES ('mine')")
            db.conn.commit()
            assert summary.stale(db) == {"mine"} and _table(db) == []
            assert rankings.summarized(db, where, one_os=True) is None
            assert list(rankings.type_rates(db, where)) == list(rankings.type_rates(db, where, kept_table=False))
        refs, needs = load_references(), Needs(gpus=Decimal(8))
        answered = recommend_rows(engine, refs, needs, limit=3, settle_rates=False)
        with engine_db(engine) as db:
            assert summary.stale(db) == {"mine"}  # the read-only answer wrote nothing
        assert recommend_rows(engine, refs, needs, limit=3) == answered
        with engine_db(engine) as db:
            assert summary.stale(db) == set() and len(kept := _table(db)) == 24
            assert rankings.summarized(db, where, one_os=True) is not None
            refresh(db)
            assert _table(db) == kept
            db.conn.rollback()
    finally:
        engine.dispose()
