"""Offers stored as intervals, like prices: one row per value an offer held,
[valid_from, valid_to), open while valid_to is null. A re-crawl that sees the
same offer writes nothing. A run writes them through
`db.store.writes.run_store.RunStore`; `query_offers` reads them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlmodel import Field, Session, SQLModel, col, select

from db.schema import Offer
from db.tables import UTCDateTime

_DECIMAL_FIELDS = ("amount", "percent_off", "min_spend")


def _time(**kw: Any) -> Any:
    return Field(sa_type=UTCDateTime, **kw)


class OfferPoint(SQLModel, table=True):
    __tablename__ = "offers"
    __table__: ClassVar[sa.Table]  # set by SQLModel; declared for the type checker
    __table_args__ = (
        sa.Index("ix_offers_open", "source", "valid_to"),
        sa.Index("ix_offers_offer_id", "offer_id", "valid_from"),
    )

    id: int | None = Field(default=None, primary_key=True)
    offer_id: str
    value_hash: str
    source: str
    provider: str = Field(index=True)
    kind: str
    title: str
    amount: str | None = None
    currency: str | None = None
    percent_off: str | None = None
    min_spend: str | None = None
    duration_days: int | None = None
    eligibility: str = "all"
    products: str = "[]"
    offer_valid_from: datetime | None = _time(default=None)
    offer_valid_until: datetime | None = _time(default=None)
    source_url: str = ""
    text: str = ""
    text_hash: str = ""
    unparsed: bool = False
    terms: str | None = None  # JSON, see Offer.terms
    valid_from: datetime = _time()
    valid_to: datetime | None = _time(default=None)
    first_run_id: int | None = Field(default=None, foreign_key="crawl_runs.id")
    missed_runs: int = 0


# The stored columns that make an offer's value, as the offer diff compares them.
VALUE_COLUMNS = (
    "kind",
    "title",
    "amount",
    "currency",
    "percent_off",
    "min_spend",
    "duration_days",
    "eligibility",
    "products",
    "offer_valid_from",
    "offer_valid_until",
    "unparsed",
    "text_hash",
    "terms",
)


@dataclass(frozen=True, slots=True)
class TrackedOffer:
    """An open offer row as the offer diff sees it: its value columns as text."""

    id: int
    offer_id: str
    value_hash: str
    missed_runs: int
    source_url: str
    values: dict[str, str | None]


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else format(value, "f")


def _undec(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def offer_to_row(offer: Offer, *, source: str, run_id: int | None, valid_from: datetime) -> dict[str, Any]:
    row = offer.model_dump(exclude={"observed_at", "valid_from", "valid_until", "products"})
    for name in _DECIMAL_FIELDS:
        row[name] = _dec(row[name])
    row.update(
        kind=str(offer.kind),
        eligibility=str(offer.eligibility),
        value_hash=offer.value_hash,
        source=source,
        products=json.dumps(sorted(offer.products)),
        terms=offer.terms_text,
        offer_valid_from=offer.valid_from,
        offer_valid_until=offer.valid_until,
        valid_from=valid_from,
        valid_to=None,
        first_run_id=run_id,
        missed_runs=0,
    )
    return row


def offer_point_dict(point: OfferPoint) -> dict[str, Any]:
    """A stored row as a flat dict in the value type's names, Decimals restored."""
    out = point.model_dump()
    for name in _DECIMAL_FIELDS:
        out[name] = _undec(out[name])
    out["products"] = json.loads(point.products or "[]")
    out["terms"] = json.loads(point.terms) if point.terms else None
    out["offer_valid_from"], out["offer_valid_until"] = point.offer_valid_from, point.offer_valid_until
    return out


def stored_text(value: Any) -> str | None:
    """A value column as the offer diff compares it: text, times in UTC."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def offer_values(offer: Offer) -> dict[str, str | None]:
    """An offer's value columns as text, comparable with a TrackedOffer's."""
    row = offer_to_row(offer, source="", run_id=0, valid_from=offer.observed_at)
    return {c: stored_text(row[c]) for c in VALUE_COLUMNS}


def query_offers(
    *,
    session: Session,
    provider: str | None = None,
    kind: str | None = None,
    offer_id: str | None = None,
    current: bool = True,
) -> list[OfferPoint]:
    stmt = select(OfferPoint)
    if current:
        stmt = stmt.where(col(OfferPoint.valid_to).is_(None))
    if provider:
        stmt = stmt.where(OfferPoint.provider == provider)
    if kind:
        stmt = stmt.where(OfferPoint.kind == kind)
    if offer_id:
        stmt = stmt.where(OfferPoint.offer_id == offer_id)
    stmt = stmt.order_by(OfferPoint.provider, OfferPoint.kind, OfferPoint.offer_id, col(OfferPoint.valid_from))
    return list(session.exec(stmt).all())
