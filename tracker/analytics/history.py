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

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from db.store.reads import rows as answers
from db.store.reads.connection import Db, open_db
from db.store.reads.rows import PriceFilter
from tracker.analytics.columns import SERIES_FIELDS, SUMMARY_COLUMNS
from tracker.analytics.points import price_records

if TYPE_CHECKING:
    import sqlalchemy as sa

Every = Literal["day", "week", "month"]
_SAME_VALUE = ["price", "list_price", "upfront_fee", "availability"]
_PERIODS = {"day": "D", "week": "W-SUN", "month": "M"}
_DISPLAY_ORDER = ["provider", "region", "instance_type", "price_model", "term", "os", "key", "valid_from"]


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
    (a change of some other attribute is not a price move)."""
    frame = prices_frame(
        engine,
        provider=provider,
        region=region,
        gpu=gpu,
        price_model=price_model,
        instance_type=instance_type,
        current=False,
    )
    if frame.empty:
        return frame
    frame = coalesce(frame)
    start, end = _as_time(since), _as_time(until)
    if end is not None:
        frame = frame[frame["valid_from"] < end]
    if start is not None:
        frame = frame[frame["valid_to"].isna() | (frame["valid_to"] > start)]
    return frame.sort_values(_DISPLAY_ORDER, kind="stable").reset_index(drop=True)


def coalesce(intervals: pd.DataFrame) -> pd.DataFrame:
    """Merge back-to-back intervals of one price whose value did not move."""
    frame = intervals.sort_values(["key", "valid_from"], kind="stable").reset_index(drop=True)
    signature = frame[_SAME_VALUE].apply(lambda col: col.map(lambda v: "" if v is None else str(v)))
    same = (frame["key"] == frame["key"].shift()) & (frame["valid_from"] == frame["valid_to"].shift())
    for name in _SAME_VALUE:
        same &= signature[name] == signature[name].shift()
    block = (~same).cumsum()
    first = frame.groupby(block, sort=False).head(1).copy()
    # tail(1), not last(): last() skips NaT, and an open interval's end is NaT.
    # .array keeps the time zone, which to_numpy() drops when every value is NaT.
    first["valid_to"] = pd.Series(frame.groupby(block, sort=False).tail(1)["valid_to"].array, index=first.index)
    return first.reset_index(drop=True)


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


def _percent(old: Decimal, new: Decimal) -> Decimal | None:
    return ((new - old) / old * 100).quantize(Decimal("0.01")) if old else None


def history_summary(intervals: pd.DataFrame) -> pd.DataFrame:
    """Per price series: lowest and highest price (and since when), the price
    now (None if no longer listed), and the last change."""
    rows = []
    for _, group in intervals.sort_values(["key", "valid_from"], kind="stable").groupby("key", sort=False):
        items = records(group)
        first, last = items[0], items[-1]
        low = min(items, key=lambda r: r["price"])
        high = max(items, key=lambda r: r["price"])
        row = {name: last.get(name) for name in ["key", *SERIES_FIELDS, "gpu_model", "gpu_count"]}
        row.update(
            intervals=len(items),
            first_seen=first["valid_from"],
            min_price=low["price"],
            min_from=low["valid_from"],
            max_price=high["price"],
            max_from=high["valid_from"],
            current_price=last["price"] if last["valid_to"] is None else None,
            last_change_at=None,
            last_change_from=None,
            last_change_to=None,
            last_change_percent=None,
        )
        if len(items) > 1:
            before = items[-2]
            row.update(
                last_change_at=last["valid_from"],
                last_change_from=before["price"],
                last_change_to=last["price"],
                last_change_percent=_percent(before["price"], last["price"]),
            )
        if last["valid_to"] is not None:  # the last thing that happened was its removal
            row.update(
                last_change_at=last["valid_to"],
                last_change_from=last["price"],
                last_change_to=None,
                last_change_percent=None,
            )
        rows.append(row)
    frame = _frame(rows, SUMMARY_COLUMNS)
    return frame.sort_values(_DISPLAY_ORDER[:-1], kind="stable").reset_index(drop=True)


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
    with open_db(engine) as db:
        rows = answers.changes(
            db,
            since=None if start is None else start.to_pydatetime(),
            provider=provider,
            kinds=kinds,
            limit=limit,
            newest_first=newest_first,
        )
    for row in rows:
        for name in ("old_price", "new_price", "percent", "gpu_count"):
            row[name] = None if row[name] is None else Decimal(row[name])
        row["detail"] = json.loads(row["detail"] or "{}")
    return rows


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


def source_health(engine: Db | sa.Engine) -> pd.DataFrame:
    """Per source: its last run's status, when it last succeeded, and the error."""
    with open_db(engine) as db:
        runs = answers.runs(db, limit=10_000)
    latest: dict[str, dict[str, Any]] = {}
    for run in runs:  # newest first
        entry = latest.setdefault(
            run["source"],
            {
                "source": run["source"],
                "provider": run["provider"],
                "status": run["status"],
                "last_run_at": run["finished_at"] or run["started_at"],
                "error": run["error"],
                "last_ok_at": None,
                "failures_since_ok": 0,
                "runs": 0,
            },
        )
        entry["runs"] += 1
        if run["status"] == "ok" and entry["last_ok_at"] is None:
            entry["last_ok_at"] = run["observed_at"]
        elif entry["last_ok_at"] is None and run["status"] != "running":
            entry["failures_since_ok"] += 1
    rows = sorted(latest.values(), key=lambda e: e["source"])
    return pd.DataFrame(rows)
