"""Rewinding a source's history to a moment, before its captures are replayed
again (`gpu-tracker reprocess`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session

from db.schema import RunStatus
from db.store.reads.connection import session_db
from db.store.writes.summary import refresh as refresh_summary
from db.tables import ChangeRow, CrawlRun, PricePoint


@dataclass(frozen=True)
class Rewound:
    deleted_prices: int
    reopened_prices: int
    deleted_changes: int
    superseded_runs: int


def rewind_source(*, session: Session, source: str, moment: datetime) -> Rewound:
    """Make the source's store look as it did just before `moment`: price
    intervals that began at or after it are deleted, those that ended at or
    after it are open again, its changes from then on are deleted, and its
    complete runs from then on are marked superseded (kept, for the record)."""
    prices, changes, runs = PricePoint.__table__, ChangeRow.__table__, CrawlRun.__table__
    conn = session.connection()
    providers = conn.execute(sa.select(prices.c.provider).where(prices.c.source == source).distinct()).scalars().all()
    deleted = conn.execute(sa.delete(prices).where(prices.c.source == source, prices.c.valid_from >= moment))
    reopened = conn.execute(
        sa.update(prices)
        .where(
            prices.c.source == source,
            prices.c.valid_to.is_not(None),
            prices.c.valid_to >= moment,
        )
        .values(valid_to=None, missed_runs=0)
    )
    gone = conn.execute(sa.delete(changes).where(changes.c.source == source, changes.c.observed_at >= moment))
    superseded = conn.execute(
        sa.update(runs)
        .where(
            runs.c.source == source,
            runs.c.status == RunStatus.ok,
            runs.c.observed_at >= moment,
        )
        .values(status=RunStatus.superseded)
    )
    # The rates per instance type of the source's providers, as the prices now are.
    refresh_summary(session_db(session), providers)
    return Rewound(deleted.rowcount, reopened.rowcount, gone.rowcount, superseded.rowcount)
