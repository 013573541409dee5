"""A stored price as a flat record, apart from the frames so that a simple
query (`gpu-tracker prices`) does not load pandas, nor (through
`price_record`) the ORM; and the other records the report reads the same
way (a price's history, the sources' health): `tracker.analytics.history`
builds its frames from these."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from db.money import effective_hourly
from db.store.reads import rows as answers
from db.store.reads.connection import Db, open_db
from db.store.reads.rows import CHANGE_DECIMALS, ChangeFilter, PriceFilter
from tracker.analytics.columns import SERIES_FIELDS
from tracker.analytics.facts.gpu_models import value_fields

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.tables import PricePoint

_DERIVED_PLACES = Decimal("0.000001")


def _round(value: Decimal | None) -> Decimal | None:
    if value is None:
        return None
    try:
        return value.quantize(_DERIVED_PLACES)
    except InvalidOperation:  # a value past 28 digits, stored before the import's bounds: not worked out
        return None


def price_record(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored price, as `db.store.reads.session.point_to_dict` or `db.store.reads.reader` read it, as
    a flat dict with its effective hourly rate, the rate per GPU-hour, per
    dense TFLOP-hour and per GB of GPU memory per hour (all to 6 places)."""
    row = dict(stored)
    hourly = effective_hourly(row["price"], row["unit"], row["term"], row["upfront_fee"])
    count = row["gpu_count"]
    row["hourly_price"] = _round(hourly)
    row["price_per_gpu_hour"] = _round(hourly / count) if hourly is not None and count else None
    row.update(value_fields(row))
    # Bundled Local SSD stated beside the price (GCP): its GiB and what it adds per hour.
    stated = row.get("attrs")
    attrs = stated if isinstance(stated, dict) else {}
    row["local_ssd_gib"] = Decimal(attrs["local_ssd_gib"]) if attrs.get("local_ssd_gib") else None
    row["local_ssd_hourly"] = Decimal(attrs["local_ssd_hourly"]) if attrs.get("local_ssd_hourly") else None
    row["observed_at"] = row["valid_from"]
    return row


def point_record(point: PricePoint) -> dict[str, Any]:
    """`price_record` of a stored row read through the ORM."""
    from db.store.reads import session as store

    return price_record(store.point_to_dict(point))


def price_records(store: Db | sa.Engine, where: PriceFilter) -> list[dict[str, Any]]:
    """The prices `where` asks for as `price_record`s, in the store's order
    (`db.store.reads.rows.prices`), with `source`, `valid_from` and `valid_to`.
    `store`: an engine, or a connection of `db.store.reads.reader` (no SQLAlchemy)."""
    with open_db(store) as db:
        return [price_record(row) for row in answers.prices(db, where)]


# The fields whose values make two back-to-back intervals one price (another
# attribute changing is not a price move).
SAME_VALUE = ("price", "list_price", "upfront_fee", "availability")
# The order intervals are listed in (a missing term or OS after the others).
DISPLAY_ORDER = ("provider", "region", "instance_type", "price_model", "term", "os", "key", "valid_from")


def _display_key(names: Sequence[str]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """Sorts rows by these fields, a missing value after the others (as pandas sorts)."""
    return lambda r: tuple((r[n] is None, "" if r[n] is None else r[n]) for n in names)


def coalesce_records(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Back-to-back intervals of one price whose value did not move merged
    into one (the first's row, the last's end), by key and start."""
    out: list[dict[str, Any]] = []
    signature: tuple[str, ...] = ()
    for row in sorted(rows, key=lambda r: (r["key"], r["valid_from"])):
        same = tuple("" if row.get(name) is None else str(row[name]) for name in SAME_VALUE)
        last = out[-1] if out else None
        if (
            last is not None
            and last["key"] == row["key"]
            and last["valid_to"] == row["valid_from"]
            and same == signature
        ):
            last["valid_to"] = row["valid_to"]
            continue
        out.append(dict(row))
        signature = same
    return out


def history_records(
    store: Db | sa.Engine, where: PriceFilter, *, since: datetime | None = None, until: datetime | None = None
) -> list[dict[str, Any]]:
    """The intervals each price held that overlap [since, until), as
    `price_record`s, merged where the price did not move (`coalesce_records`),
    in `DISPLAY_ORDER`."""
    rows = coalesce_records(price_records(store, replace(where, current=False)))
    if until is not None:
        rows = [r for r in rows if r["valid_from"] < until]
    if since is not None:
        rows = [r for r in rows if r["valid_to"] is None or r["valid_to"] > since]
    return sorted(rows, key=_display_key(DISPLAY_ORDER))


def health_records(store: Db | sa.Engine) -> list[dict[str, Any]]:
    """Per source, by name: its last run's status, when it last succeeded,
    the failures since, and the error."""
    with open_db(store) as db:
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
    return sorted(latest.values(), key=lambda e: e["source"])


def change_records(
    store: Db | sa.Engine,
    *,
    since: datetime | None = None,
    provider: str | None = None,
    kinds: Sequence[str] | None = None,
    limit: int | None = None,
    newest_first: bool = False,
) -> list[dict[str, Any]]:
    """Changes (`db.store.reads.rows.changes`) with their exact numbers as Decimals and the detail as a dict."""
    with open_db(store) as db:
        rows = answers.changes(
            db, ChangeFilter(since=since, provider=provider, kinds=kinds), limit=limit, newest_first=newest_first
        )
    for row in rows:
        for name in CHANGE_DECIMALS:
            row[name] = None if row[name] is None else Decimal(row[name])
        row["detail"] = json.loads(row["detail"] or "{}")
    return rows


def _percent(old: Decimal, new: Decimal) -> Decimal | None:
    return ((new - old) / old * 100).quantize(Decimal("0.01")) if old else None


def summary_records(intervals: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per price series: lowest and highest price (and since when), the price
    now (None if no longer listed), and the last change; in `DISPLAY_ORDER`."""
    series: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(intervals, key=lambda r: (r["key"], r["valid_from"])):
        series.setdefault(row["key"], []).append(row)
    rows = []
    for items in series.values():
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
    return sorted(rows, key=_display_key(DISPLAY_ORDER[:-1]))
