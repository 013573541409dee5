"""Price history drawn: step lines with the change points marked (PNG, via
matplotlib's Agg canvas, no display needed), and sparklines for a terminal.

A series is one price (provider, region, instance, price model, term, OS);
its value is the effective rate per GPU-hour (or per instance-hour),
converted to one currency so providers share an axis.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from tracker.analytics.facts.reference import References
from tracker.analytics.history import Every, records, resample_history
from tracker.analytics.outputs.series import Series, series_label, series_of, series_value
from tracker.errors import UserError

BARS = "▁▂▃▄▅▆▇█"


def build_series(
    intervals: pd.DataFrame, refs: References, *, currency: str = "USD", per_gpu: bool = True, limit: int | None = None
) -> list[Series]:
    """One series per price key, cheapest latest value first (`series_of` the frame's rows)."""
    rows = records(intervals) if not intervals.empty else []
    return series_of(rows, refs, currency=currency, per_gpu=per_gpu, limit=limit)


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


def render_png(
    series: Sequence[Series],
    *,
    title: str,
    unit: str,
    now: datetime | None = None,
    width: float = 10,
    height: float = 5.5,
    dpi: int = 100,
) -> bytes:
    """The chart as PNG bytes: one step line per series, a dot at each change."""
    if not series:
        raise UserError("nothing to plot: no price history matches")
    from matplotlib.figure import Figure  # loaded only when a chart is drawn

    end = _naive(now or datetime.now(UTC))
    figure = Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    axes = figure.add_subplot()
    for s in series:
        xs: list[datetime] = []
        ys: list[float] = []
        for start, stop, value in s.steps:
            if xs and xs[-1] != _naive(start):  # not listed in between: leave a gap
                ys[-1] = math.nan
            xs.append(_naive(start))
            ys.append(value)
            xs.append(_naive(stop) if stop else end)
            ys.append(value)
        # matplotlib plots datetimes through its units registry; its stubs take numbers only.
        (line,) = axes.step(xs, ys, where="post", label=s.label + (f"  [{s.fx}]" if s.fx else ""), linewidth=1.6)  # type: ignore[arg-type]
        # Dots where a price began: the first observation and every change after it.
        axes.plot(
            [_naive(a) for a, _, _ in s.steps],  # type: ignore[arg-type]
            [v for _, _, v in s.steps],
            "o",
            color=line.get_color(),
            markersize=5,
        )
    axes.set_title(title)
    axes.set_ylabel(unit)
    axes.grid(True, alpha=0.3)
    figure.legend(fontsize="small", loc="outside lower center", ncols=2 if len(series) > 4 else 1)
    figure.autofmt_xdate()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def write_png(path: Path, png: bytes) -> None:
    try:
        path.write_bytes(png)
    except OSError as exc:
        raise UserError(f"{path}: cannot write it: {exc.strerror or exc}") from None


def sparkline(values: Sequence[float]) -> str:
    """▁▂▃▄▅▆▇█ scaled between the lowest and highest value; a flat series is flat."""
    if not values:
        return ""
    low, high = min(values), max(values)
    if high == low:
        return BARS[len(BARS) // 2] * len(values)
    return "".join(BARS[round((v - low) / (high - low) * (len(BARS) - 1))] for v in values)


def sparkline_rows(
    intervals: pd.DataFrame,
    refs: References,
    *,
    currency: str = "USD",
    per_gpu: bool = True,
    every: Every = "day",
    since: Any = None,
    until: Any = None,
    limit: int | None = None,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """Per series: the price in force at each step as a sparkline, with its range."""
    wanted = {s.label for s in build_series(intervals, refs, currency=currency, per_gpu=per_gpu, limit=limit)}
    steps = resample_history(intervals, every, since=since, until=until, now=now)
    rows = []
    for key, group in steps.groupby("key", sort=False) if not steps.empty else []:
        items = records(group)
        label = series_label(items[0])
        if label not in wanted:
            continue
        values = []
        for item in items:
            value = series_value(item, per_gpu)
            if value is not None:
                values.append(value * refs.fx.conversion(item["currency"], currency).rate)
        if not values:
            continue
        rows.append(
            {
                "series": label,
                "key": key,
                "first_step": items[0]["step"],
                "last_step": items[-1]["step"],
                "steps": len(values),
                "min": min(values).quantize(Decimal("0.0001")),
                "max": max(values).quantize(Decimal("0.0001")),
                "last": values[-1].quantize(Decimal("0.0001")),
                "currency": currency,
                "sparkline": sparkline([float(v) for v in values]),
            }
        )
    return sorted(rows, key=lambda r: (r["last"], r["series"]))
