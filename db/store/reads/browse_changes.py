"""The dashboard's changes feed (tracker/web), paged in SQL: one page of the
recorded changes, filtered, newest first by default, and how many match.
Rows come back as `ChangeRow.model_dump` gives them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from db.tables import ChangeRow

_C = ChangeRow.__table__


@dataclass(frozen=True)
class ChangeFilter:
    since: datetime | None = None
    until: datetime | None = None
    provider: str | None = None
    kinds: Sequence[str] = ()
    region: str | None = None
    gpu: str | None = None
    price_model: str | None = None
    instance_type: str | None = None
    key: str | None = None


def _change_where(f: ChangeFilter) -> list[sa.ColumnElement[bool]]:
    where: list[sa.ColumnElement[bool]] = []
    if f.since:
        where.append(_C.c.observed_at >= f.since)
    if f.until:
        where.append(_C.c.observed_at < f.until)
    for name in ("provider", "region", "price_model", "instance_type", "key"):
        value = getattr(f, name)
        if value:
            where.append(_C.c[name] == value)
    if f.kinds:
        where.append(_C.c.kind.in_(list(f.kinds)))
    if f.gpu:
        where.append(sa.func.lower(_C.c.gpu_model).contains(f.gpu.lower(), autoescape=True))
    return where


def page_changes(
    conn: sa.Connection, f: ChangeFilter, *, limit: int, offset: int = 0, newest_first: bool = True
) -> tuple[list[dict[str, Any]], int]:
    """One page of the changes matching `f` (newest first by default), and how many match."""
    where = _change_where(f)
    total = int(conn.execute(sa.select(sa.func.count()).select_from(_C).where(*where)).scalar_one())
    order = [_C.c.observed_at.desc(), _C.c.id.desc()] if newest_first else [_C.c.observed_at, _C.c.id]
    stmt = sa.select(_C).where(*where).order_by(*order).limit(limit).offset(offset)
    return [dict(r._mapping) for r in conn.execute(stmt)], total
