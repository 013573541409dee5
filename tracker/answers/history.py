"""The `history` answer: the intervals each price of an instance type (or a
GPU model) held, its request and columns. `gpu-tracker history` and
/api/history/TYPE build a `HistoryRequest` and call `rows`; the command's
--summary and --resample read the same rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from db.kinds import PriceModel
from tracker.answers.columns import HISTORY_COLUMNS, HISTORY_TABLE, detail_text

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.store.reads.connection import Db

COLUMNS, TABLE = HISTORY_COLUMNS, HISTORY_TABLE


@dataclass(frozen=True)
class HistoryRequest:
    """Whose prices (an instance type, or every instance of a GPU model), where, and when."""

    instance_type: str | None = None
    gpu: str | None = None
    provider: str | None = None
    region: str | None = None
    price_model: PriceModel | None = None
    # Intervals still in force at or after `since`, begun before `until`.
    since: datetime | None = None
    until: datetime | None = None

    def what(self) -> str:
        return self.instance_type or self.gpu or ""

    def empty(self) -> str:
        return f"no prices recorded for {self.what()}"


def records(store: Db | sa.Engine, request: HistoryRequest) -> list[dict[str, Any]]:
    """The intervals as `tracker.analytics.points.history_records` gives them (what --summary and --resample read)."""
    from db.store.reads.rows import PriceFilter
    from tracker.analytics.points import history_records

    where = PriceFilter(
        instance_type=request.instance_type,
        gpu=request.gpu,
        provider=request.provider,
        region=request.region,
        price_model=PriceModel(request.price_model).value if request.price_model else None,
    )
    return history_records(store, where, since=request.since, until=request.until)


def rows(store: Db | sa.Engine, request: HistoryRequest) -> list[dict[str, Any]]:
    """The intervals (`COLUMNS`), a price's extras as one readable cell."""
    found = records(store, request)
    for row in found:
        row["attrs"] = detail_text(row.get("attrs") or {}) or None
    return found
