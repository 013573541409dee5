"""A stored price as a flat record, apart from the frames so that a simple
query (`gpu-tracker prices`) does not load pandas, nor (through
`price_record`) the ORM."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from db.money import effective_hourly
from db.store.reads import rows as answers
from db.store.reads.connection import Db, open_db
from db.store.reads.rows import PriceFilter
from tracker.analytics.gpu_models import value_fields

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.tables import PricePoint

_DERIVED_PLACES = Decimal("0.000001")


def _round(value: Decimal | None) -> Decimal | None:
    return None if value is None else value.quantize(_DERIVED_PLACES)


def price_record(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored price, as `db.store.queries.point_to_dict` or `db.store.reader` read it, as
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
    from db.store import queries as store

    return price_record(store.point_to_dict(point))


def price_records(store: Db | sa.Engine, where: PriceFilter) -> list[dict[str, Any]]:
    """The prices `where` asks for as `price_record`s, in the store's order
    (`db.store.reads.rows.prices`), with `source`, `valid_from` and `valid_to`.
    `store`: an engine, or a connection of `db.store.reader` (no SQLAlchemy)."""
    with open_db(store) as db:
        return [price_record(row) for row in answers.prices(db, where)]
