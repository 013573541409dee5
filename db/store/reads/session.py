"""The reads of the store on an ORM session, for the callers that hold one
(a crawl, an import, a command that writes): the statements of
`db.store.reads.rows` (the one definition of each query, shared with
`db.store.reads.reader` and the analytics) run on the session's connection;
their rows come back as `Stored` rows, read like the ORM's (exact numbers as
the stored text).

Every function takes a keyword-only `session` and never commits: the caller
owns the transaction, one per crawl or command.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from db.bulk.encoding import DECIMAL_FIELDS
from db.schema import RunStatus
from db.store.reads import rows as answers
from db.store.reads.connection import session_db
from db.store.reads.rows import ChangeFilter, PriceFilter
from db.tables import CrawlRun, PricePoint


class Stored(dict[str, Any]):
    """A stored row as the query read it, its columns also as attributes
    (`row.price`, `row.model_dump()`), as the ORM's rows read."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def model_dump(self) -> dict[str, Any]:
        return dict(self)


def point_to_dict(point: PricePoint | Stored) -> dict[str, Any]:
    """A stored row as a flat dict with Decimals restored."""
    out = point.model_dump()
    for name in DECIMAL_FIELDS:
        out[name] = None if out[name] is None else Decimal(out[name])
    out["attrs"] = json.loads(point.attrs or "{}")
    return out


# --- crawl runs -----------------------------------------------------------


def last_run(*, session: Session, source: str, statuses: Iterable[str] | None = None) -> CrawlRun | None:
    """The newest finished run; runs still going and refused inputs do not count."""
    stmt = select(CrawlRun).where(CrawlRun.source == source)
    if statuses is not None:
        stmt = stmt.where(col(CrawlRun.status).in_(list(statuses)))
    stmt = stmt.where(col(CrawlRun.status).not_in([RunStatus.running, RunStatus.rejected]))
    return session.exec(stmt.order_by(col(CrawlRun.id).desc()).limit(1)).first()


def list_runs(*, session: Session, limit: int = 20, source: str | None = None) -> list[Stored]:
    return [Stored(r) for r in answers.runs(session_db(session), limit=limit, source=source)]


# --- prices and changes -----------------------------------------------------


def count_open_prices(*, session: Session, source: str) -> int:
    t = PricePoint.__table__
    stmt = sa.select(sa.func.count()).where(t.c.source == source, t.c.valid_to.is_(None))
    return int(session.connection().execute(stmt).scalar_one())


def query_prices(
    *,
    session: Session,
    provider: str | None = None,
    region: str | None = None,
    gpu: str | None = None,
    price_model: str | None = None,
    instance_type: str | None = None,
    current: bool = True,
) -> list[Stored]:
    """`db.store.reads.rows.prices`, with the exact numbers and attrs as stored (text)."""
    where = PriceFilter(
        provider=provider, region=region, gpu=gpu, price_model=price_model, instance_type=instance_type, current=current
    )
    return [Stored(row) for row in answers.prices(session_db(session), where, as_stored=True)]


def query_changes(
    *,
    session: Session,
    since: datetime | None = None,
    provider: str | None = None,
    kinds: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[Stored]:
    found = answers.changes(session_db(session), ChangeFilter(since=since, provider=provider, kinds=kinds), limit=limit)
    return [Stored(row) for row in found]


def open_regions(*, session: Session, source: str) -> list[str]:
    """The regions a source's current snapshot covers."""
    t = PricePoint.__table__
    stmt = sa.select(t.c.region).where(t.c.source == source, t.c.valid_to.is_(None)).distinct()
    return sorted(r for (r,) in session.connection().execute(stmt))
