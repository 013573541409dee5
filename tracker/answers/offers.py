"""The `offers` answer: the current promotions (free credits, vouchers,
trials, discounts), one offer's history, their request and columns.
`gpu-tracker offers` and /api/offers build an `OffersRequest` and call `rows`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from db.kinds import OfferKind
from tracker.answers.columns import OFFER_COLUMNS, OFFER_HISTORY_COLUMNS, OFFER_HISTORY_TABLE, OFFER_TABLE

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.store.writes.offers import OfferPoint

COLUMNS, TABLE = OFFER_COLUMNS, OFFER_TABLE
HISTORY_COLUMNS, HISTORY_TABLE = OFFER_HISTORY_COLUMNS, OFFER_HISTORY_TABLE
EMPTY = "no offers match"


@dataclass(frozen=True)
class OffersRequest:
    provider: str | None = None
    kind: OfferKind | None = None
    # Only the offers valid now, by their stated dates.
    active: bool = False


def active(point: OfferPoint, now: datetime) -> bool:
    """Whether an offer is valid at `now` by its stated dates (none stated: it is)."""
    starts, ends = point.offer_valid_from, point.offer_valid_until
    return (starts is None or starts <= now) and (ends is None or ends >= now)


def rows(engine: sa.Engine, request: OffersRequest, now: datetime | None = None) -> list[dict[str, Any]]:
    """The current offers the request keeps (`COLUMNS`); none in a store without the offers table."""
    import sqlalchemy as sa
    from sqlmodel import Session

    from db.store.writes.offers import query_offers
    from tracker.answers.rows import offer_dict

    if not sa.inspect(engine).has_table("offers"):
        return []
    now = now or datetime.now(UTC)
    kind = OfferKind(request.kind).value if request.kind else None
    with Session(engine) as session:
        points = query_offers(session=session, provider=request.provider, kind=kind)
        return [offer_dict(p) for p in points if not request.active or active(p, now)]


def history_rows(engine: sa.Engine, offer_id: str) -> list[dict[str, Any]]:
    """One row per interval the offer's terms held (`HISTORY_COLUMNS`)."""
    from sqlmodel import Session

    from db.store.writes.offers import query_offers
    from tracker.answers.rows import offer_dict

    with Session(engine) as session:
        return [offer_dict(p) for p in query_offers(session=session, offer_id=offer_id, current=False)]


def history_empty(offer_id: str) -> str:
    return f"no offer recorded as {offer_id}; `gpu-tracker offers` lists the ids"
