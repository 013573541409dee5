"""The Python API over the store: pandas frames of prices, their history,
changes, offers and source health. The CLI's history, compare, tco, export,
plot and report commands are built on these; so can a notebook be:

    from tracker.analytics.history import open_store, history_frame, history_summary
    engine = open_store()                       # the configured store
    intervals = history_frame(engine, gpu="H100", since="2026-08-01")
    history_summary(intervals)

Money columns hold exact `Decimal`s (object dtype), times are UTC-aware
Timestamps, and an open interval has `valid_to` NaT.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from db.store.reads import rows as answers
from db.store.reads.connection import Db, open_db
from db.store.reads.rows import PriceFilter
from tracker.analytics.columns import SUMMARY_COLUMNS
from tracker.analytics.points import change_records as _change_records
from tracker.analytics.points import history_records, price_records, summary_records

if TYPE_CHECKING:
    import sqlalchemy as sa

Every = Literal["day", "week", "month"]
_PERIODS = {"day": "D", "week": "W-SUN", "month": "M"}


def open_store(url: str | None = None) -> sa.Engine:
    """An engine on `url`, or on the configured store, migrated."""
    from db.store.engine import make_engine, migrate
    from tracker.config.settings import load_config

    engine = make_engine(url or load_config().database_url())
    migrate(engine)
    return engine


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as plain dicts: NaN and NaT become None, Timestamps datetimes."""
    out = []
    for row in frame.to_dict("records"):
        clean: dict[str, Any] = {}
        for name, value in row.items():
            if isinstance(value, pd.Timestamp):
                value = None if pd.isna(value) else value.to_pydatetime()
            elif value is pd.NaT or (isinstance(value, float) and value != value):
                value = None
            clean[str(name)] = value
        out.append(clean)
    return out


def _frame(rows: list[dict[str, Any]], columns: Sequence[str] = ()) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(columns) or None)
    for name in ("valid_from", "valid_to", "observed_at", "at", "started_at", "finished_at"):
        if name in frame.columns:
            frame[name] = pd.to_datetime(frame[name], utc=True).astype("datetime64[ns, UTC]")
    return frame


def _as_time(value: datetime | str | None) -> pd.Timestamp | None:
    if value is None or value == "":
        return None
    stamp = pd.Timestamp(value)
    return stamp.tz_localize(UTC) if stamp.tzinfo is None else stamp.tz_convert(UTC)


def prices_frame(
    engine: Db | sa.Engine,
    *,
    provider: str | None = None,
    region: str | None = None,
    gpu: str | None = None,
    price_model: str | None = None,
    instance_type: str | None = None,
    current: bool = True,
) -> pd.DataFrame:
    """Current prices (or every interval, with `current=False`)."""
    where = PriceFilter(
        provider=provider, region=region, gpu=gpu, price_model=price_model, instance_type=instance_type, current=current
    )
    return _frame(price_records(engine, where))


def history_frame(
    engine: Db | sa.Engine,
    *,
    instance_type: str | None = None,
    gpu: str | None = None,
    provider: str | None = None,
    region: str | None = None,
    price_model: str | None = None,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
) -> pd.DataFrame:
    """The intervals each price held that overlap [since, until): one row per
    interval, adjacent intervals with the same price and availability merged
    (a change of some other attribute is not a price move): the frame of
    `tracker.analytics.points.history_records`."""
    where = PriceFilter(provider=provider, region=region, gpu=gpu, price_model=price_model, instance_type=instance_type)
    start, end = _as_time(since), _as_time(until)
    rows = history_records(
        engine,
        where,
        since=None if start is None else start.to_pydatetime(),
        until=None if end is None else end.to_pydatetime(),
    )
    return interval_frame(rows)


def interval_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """`history_records` as a frame (what `resample_history` and `history_summary` take)."""
    return _frame(rows).reset_index(drop=True)


def resample_history(
    intervals: pd.DataFrame,
    every: Every = "day",
    *,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    now: datetime | None = None,
) -> pd.DataFrame:
    """The price in force at the end of each day, week (Monday to Sunday) or
    month (or at `until` or now, if sooner), per price series, for the steps
    from `since` (default: the first price) to before `until`; steps where a
    price was not listed are left out."""
    if every not in _PERIODS:
        raise ValueError(f"every must be day, week or month, not {every!r}")
    if intervals.empty:
        return intervals.assign(step=pd.Series(dtype="datetime64[ns, UTC]"))
    clock = _as_time(now or datetime.now(UTC))
    assert clock is not None
    start = _as_time(since) or intervals["valid_from"].min()
    end = min(_as_time(until) or clock, clock)  # exclusive: a step starting at `until` is not shown
    if end <= start:
        return intervals.iloc[0:0].assign(step=pd.Series(dtype="datetime64[ns, UTC]"))
    periods = pd.period_range(
        start.tz_convert(None), (end - pd.Timedelta(1, "ns")).tz_convert(None), freq=_PERIODS[every]
    )
    steps = pd.DataFrame(
        {
            "step": periods.start_time.tz_localize(UTC),
            "at": (periods + 1).start_time.tz_localize(UTC),
        }
    )
    steps["at"] = steps["at"].clip(upper=end)  # type: ignore[call-overload]  # pandas-stubs: no Timestamp bound
    steps = steps.astype({"step": "datetime64[ns, UTC]", "at": "datetime64[ns, UTC]"})
    keys = intervals[["key"]].drop_duplicates()
    grid = keys.merge(steps, how="cross").sort_values("at", kind="stable")
    right = intervals.sort_values("valid_from", kind="stable")
    joined = pd.merge_asof(
        grid, right, left_on="at", right_on="valid_from", by="key", allow_exact_matches=False, direction="backward"
    )
    in_force = joined["valid_from"].notna() & (joined["valid_to"].isna() | (joined["valid_to"] >= joined["at"]))
    out = joined[in_force].sort_values(["key", "step"], kind="stable").drop(columns=["at"])
    return out.reset_index(drop=True)


def history_summary(intervals: pd.DataFrame) -> pd.DataFrame:
    """Per price series: lowest and highest price (and since when), the price
    now (None if no longer listed), and the last change (`summary_records` of the frame's rows)."""
    rows = summary_records(records(intervals)) if not intervals.empty else []
    return _frame(rows, SUMMARY_COLUMNS)


def change_records(
    engine: Db | sa.Engine,
    *,
    since: datetime | str | None = None,
    provider: str | None = None,
    kinds: Sequence[str] | None = None,
    limit: int | None = None,
    newest_first: bool = False,
) -> list[dict[str, Any]]:
    """Changes as `changes_frame` gives them (Decimals, detail as a dict), as dicts."""
    start = _as_time(since)
    return _change_records(
        engine,
        since=None if start is None else start.to_pydatetime(),
        provider=provider,
        kinds=kinds,
        limit=limit,
        newest_first=newest_first,
    )


def change_counts(engine: Db | sa.Engine, *, since: datetime | str | None = None) -> dict[str, int]:
    """How many changes of each kind since `since`."""
    start = _as_time(since)
    with open_db(engine) as db:
        return answers.change_counts(db, since=None if start is None else start.to_pydatetime())


def changes_frame(
    engine: Db | sa.Engine,
    *,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    provider: str | None = None,
    kinds: Sequence[str] | None = None,
) -> pd.DataFrame:
    frame = _frame(change_records(engine, since=since, provider=provider, kinds=kinds))
    end = _as_time(until)
    if end is not None and not frame.empty:
        frame = frame[frame["observed_at"] < end].reset_index(drop=True)
    return frame


def offers_frame(engine: sa.Engine, *, current: bool = True) -> pd.DataFrame:
    """Promotions from the `offers` table; empty when the store has none."""
    import sqlalchemy as sa

    inspector = sa.inspect(engine)
    if not inspector.has_table("offers"):
        return pd.DataFrame()
    table = sa.Table("offers", sa.MetaData(), autoload_with=engine)
    stmt = sa.select(table)
    if current and "valid_to" in table.c:
        stmt = stmt.where(table.c.valid_to.is_(None))
    with engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(stmt)]
    return _frame(rows)
