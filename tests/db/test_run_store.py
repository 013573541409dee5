"""One run's writes through `RunStore`, on SQLite and PostgreSQL: what two
runs leave in the store, and that nothing is kept until the caller commits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import sqlalchemy as sa
from sqlmodel import Session, select

from db.bulk.encoding import StagedQuote
from db.schema import Change, ChangeKind, PriceModel, PriceQuote, RunStatus, Unit
from db.store.reads import session as queries
from db.store.writes.run_store import RunStore
from db.tables import ChangeRow, CrawlRun

T0 = datetime(2026, 5, 1, tzinfo=UTC)
T1 = T0 + timedelta(days=1)


def quote(name: str, price: str, when: datetime = T0) -> PriceQuote:
    return PriceQuote(
        provider="p",
        region="r1",
        instance_type=name,
        price_model=PriceModel.on_demand,
        price=Decimal(price),
        currency="USD",
        unit=Unit.hour,
        observed_at=when,
    )


def begin(session: Session, now: datetime) -> RunStore:
    return RunStore.begin(session, source="s", provider="p", spider="", mode="test", regions=["r1"], now=now)


def test_two_runs_move_the_snapshot(engine: sa.Engine) -> None:
    first = [quote("a", "1"), quote("b", "2"), quote("c", "3")]
    with Session(engine) as session:
        store = begin(session, T0)
        with store.writing_prices(T0):
            assert len(store.open_prices().prices) == 0
            store.apply_prices([StagedQuote.of(q) for q in first], {})
        assert store.close_prices([], {}) == []
        store.finish(now=T0, changes=[], observed_at=T0, pages=1, items=3, regions=["r1"], capture_path=None)
        session.commit()

    dearer, gone = quote("a", "1.5", T1), first[2]
    with Session(engine) as session:
        store = begin(session, T1)
        last = store.last_run([RunStatus.ok])
        assert last is not None and (last.rows_written, last.items) == (3, 3)
        with store.writing_prices(T1):
            assert len(store.open_prices(["r1"]).prices) == 3
            taken = store.take([dearer.key])  # closes a's open row
            assert taken[dearer.key].price == Decimal(1)
            store.apply_prices([StagedQuote.of(dearer)], {})
            ids = {key: row.id for key, row in store.tracked([q.key for q in first]).items()}
        (removed,) = store.close_prices([ids[gone.key]], {ids[first[1].key]: 1})
        assert removed.instance_type == "c" and removed.valid_to is None  # as it was
        change = Change(kind=ChangeKind.sku_removed, provider="p", source="s", key=gone.key, observed_at=T1)
        store.finish(now=T1, changes=[change], observed_at=T1, pages=1, items=2, regions=["r1"], capture_path=None)
        session.commit()

    with Session(engine) as session:
        current = {p.instance_type: (p.price, p.missed_runs) for p in queries.query_prices(session=session)}
        assert current == {"a": ("1.5", 0), "b": ("2", 1)}
        history = [(p.instance_type, p.price, p.valid_to) for p in queries.query_prices(session=session, current=False)]
        assert sorted(history) == [("a", "1", T1), ("a", "1.5", None), ("b", "2", None), ("c", "3", T1)]
        run = session.get(CrawlRun, store.run_id)
        assert run is not None and (run.status, run.rows_written, run.changes) == ("ok", 1, 1)
        assert [c.kind for c in session.exec(select(ChangeRow)).all()] == ["sku_removed"]


def test_nothing_is_kept_until_the_caller_commits(engine: sa.Engine) -> None:
    with Session(engine) as session:
        store = begin(session, T0)
        with store.writing_prices(T0):
            store.apply_prices([StagedQuote.of(quote("a", "1"))], {})
        store.fail(RunStatus.failed, "no", now=T0, changes=[])
        session.rollback()
    with Session(engine) as session:
        assert session.exec(select(CrawlRun)).all() == []
        assert queries.query_prices(session=session) == []
