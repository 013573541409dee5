"""A stored price as a flat record, apart from the frames so that a simple
query (`gpu-tracker prices`) does not load pandas."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from db import store
from db.schema import effective_hourly
from db.tables import PricePoint
from tracker.analytics.gpu_models import value_fields

_DERIVED_PLACES = Decimal("0.000001")


def _round(value: Decimal | None) -> Decimal | None:
    return None if value is None else value.quantize(_DERIVED_PLACES)


def point_record(point: PricePoint) -> dict[str, Any]:
    """A stored price as a flat dict: Decimals restored, with its effective
    hourly rate, the rate per GPU-hour, per dense TFLOP-hour and per GB of
    GPU memory per hour (all to 6 places)."""
    row = store.point_to_dict(point)
    hourly = effective_hourly(row["price"], point.unit, point.term, row["upfront_fee"])
    count = row["gpu_count"]
    row["hourly_price"] = _round(hourly)
    row["price_per_gpu_hour"] = _round(hourly / count) if hourly is not None and count else None
    row.update(value_fields(row))
    row["observed_at"] = point.valid_from
    return row
