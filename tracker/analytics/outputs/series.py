"""Price history as series to draw: one per price (provider, region,
instance, price model, term, OS), its value the effective rate per GPU-hour
(or per instance-hour) converted to one currency, so that providers share an
axis. Plain records in, no pandas: the report and the PNG plot both use it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from db.money import effective_hourly
from tracker.analytics.facts.reference import References


@dataclass
class Series:
    label: str
    currency: str
    # (valid_from, valid_to or None, value) per interval, oldest first.
    steps: list[tuple[datetime, datetime | None, float]] = field(default_factory=list)
    fx: str = ""

    @property
    def last(self) -> float:
        return self.steps[-1][2]


def series_label(row: dict[str, Any]) -> str:
    term = f" {row['term']}" if row.get("term") else ""
    os_name = f" {row['os']}" if row.get("os") and row["os"] != "linux" else ""
    zone = f"/{row['zone']}" if row.get("zone") else ""
    return f"{row['provider']} {row['region']}{zone} {row['instance_type']} {row['price_model']}{term}{os_name}"


def series_value(row: dict[str, Any], per_gpu: bool) -> Decimal | None:
    """An interval's effective hourly rate, per GPU when `per_gpu` (None without a GPU count)."""
    hourly = effective_hourly(row["price"], row["unit"], row["term"], row["upfront_fee"])
    if hourly is None:
        return None
    if per_gpu:
        return hourly / row["gpu_count"] if row.get("gpu_count") else None
    return hourly


def series_of(
    intervals: Iterable[dict[str, Any]],
    refs: References,
    *,
    currency: str = "USD",
    per_gpu: bool = True,
    limit: int | None = None,
) -> list[Series]:
    """One series per price key, cheapest latest value first."""
    found: dict[str, Series] = {}
    for row in sorted(intervals, key=lambda r: (r["key"], r["valid_from"])):
        value = series_value(row, per_gpu)
        if value is None:
            continue
        conversion = refs.fx.conversion(row["currency"], currency)
        series = found.setdefault(row["key"], Series(series_label(row), currency))
        if row["currency"] != currency:
            series.fx = f"{conversion.label(row['currency'], currency)} ({conversion.date})"
        series.steps.append((row["valid_from"], row["valid_to"], float(value * conversion.rate)))
    ordered = sorted(found.values(), key=lambda s: (s.last, s.label))
    return ordered[:limit] if limit else ordered
