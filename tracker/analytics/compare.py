"""Rank current prices of one GPU model by price per GPU-hour, across
providers, price models and currencies.

Every rate is an effective hourly rate (a month is 720 hours, a year 8,760,
a reserved term's upfront fee spread over its hours), divided by the GPU
count, so a 1/8 slice ranks by what a whole GPU-hour costs at its price.
Converted figures carry the rate and date used; the original stays beside.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from db.money import HOURS_PER_MONTH, HOURS_PER_YEAR, effective_hourly
from db.store.reads import rankings
from db.store.reads.connection import Db, open_db
from db.store.reads.rows import PriceFilter
from tracker.analytics.columns import COMPARE_COLUMNS
from tracker.analytics.facts.reference import References
from tracker.analytics.points import price_records
from tracker.errors import UserError

# pandas loads only where a frame is made: the command line ranks without it.
if TYPE_CHECKING:
    import pandas as pd
    import sqlalchemy as sa

THREE_YEARS_HOURS = 3 * HOURS_PER_YEAR
# What `rank_by` may name, and the converted figure each ranks on.
RANK_KEYS = {
    "price_per_gpu_hour": "per_gpu_hour_exact",
    "price_per_tflop_hour": "per_tflop_hour_converted",
    "price_per_gb_vram_hour": "per_gb_vram_hour_converted",
}
SPOT_MODELS = ("spot", "low_priority")
RATE = Decimal("0.000001")
MONEY = Decimal("0.01")
PERCENT = Decimal("0.01")

# The table shows short names for the long columns (TABLE_ALIASES); JSON and CSV keep the full ones.
TABLE_ALIASES = {
    "per_gpu_hour_converted": "per_gpu_h",
    "per_tflop_hour_converted": "per_tflop_h",
    "per_gb_vram_hour_converted": "per_gb_vram_h",
    "spot_saving_percent": "spot_save_%",
    "monthly_discount_percent": "month_disc_%",
    "three_year_total": "3yr_total",
    "gpu_memory_gb": "gpu_mem_gb",
    "gpu_interconnect": "interconnect",
    "network_gbps": "net_gbps",
    "gpu_count": "gpus",
}


def _q(value: Decimal | None, places: Decimal) -> Decimal | None:
    if value is None:
        return None
    try:
        return value.quantize(places)
    except InvalidOperation:  # past 28 digits, stored before the import's bounds: not worked out
        return None


def _converted(value: Decimal | None, rate: Decimal) -> Decimal | None:
    return None if value is None else _q(value * rate, RATE)


def is_fractional(count: Decimal | None) -> bool:
    return count is not None and count != count.to_integral_value()


def instance_key(row: dict[str, Any]) -> tuple[str, str, str, str]:
    """One machine in one place: what spot and monthly prices compare against."""
    return (row["provider"], row["region"], row["instance_type"], row["os"])


def _rates_by_instance(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str, str, str], dict[str, Decimal]]:
    """Per instance: on-demand hourly, cheapest spot hourly, cheapest monthly price."""
    found: dict[tuple[str, str, str, str], dict[str, Decimal]] = defaultdict(dict)
    for row in rows:
        rates = found[instance_key(row)]
        model, hourly = row["price_model"], row["exact_hourly"]
        if hourly is None:
            continue
        if model == "on_demand" and row["unit"] == "hour":
            rates["on_demand"] = min(hourly, rates.get("on_demand", hourly))
        elif model in SPOT_MODELS:
            rates["spot"] = min(hourly, rates.get("spot", hourly))
        elif model == "monthly" and row["unit"] == "month":
            rates["monthly"] = min(row["price"], rates.get("monthly", row["price"]))
    return found


def spot_saving(on_demand: Decimal | None, spot: Decimal | None) -> Decimal | None:
    """How much less spot costs than on demand, in percent."""
    if not on_demand or spot is None:
        return None
    return _q((on_demand - spot) / on_demand * 100, PERCENT)


def monthly_discount(on_demand: Decimal | None, monthly: Decimal | None) -> Decimal | None:
    """How much less a month's subscription costs than 720 on-demand hours, in percent."""
    if not on_demand or monthly is None:
        return None
    full = HOURS_PER_MONTH * on_demand
    return _q((full - monthly) / full * 100, PERCENT)


def compare_frame(
    prices: pd.DataFrame,
    refs: References,
    *,
    count: Decimal | None = None,
    price_models: Sequence[str] = (),
    region_group: str | None = None,
    currency: str = "USD",
    os: str | None = "linux",
    rank_by: str = "price_per_gpu_hour",
) -> pd.DataFrame:
    """Rank `prices` (a `prices_frame`, usually filtered to one GPU model)
    by price per GPU-hour in `currency`, cheapest first; or by price per
    dense TFLOP-hour or per GB of GPU memory per hour (`rank_by`), rows
    without that figure last."""
    from tracker.analytics.history import records

    rows = records(prices) if not prices.empty else []
    ranked = rank_prices(
        rows,
        refs,
        count=count,
        price_models=price_models,
        region_group=region_group,
        currency=currency,
        os=os,
        rank_by=rank_by,
    )
    return compare_table(ranked)


def compare_store(
    store: Db | sa.Engine,
    refs: References,
    *,
    gpu: str | None = None,
    provider: str | None = None,
    count: Decimal | None = None,
    price_models: Sequence[str] = (),
    region_group: str | None = None,
    currency: str = "USD",
    os: str | None = "linux",
    rank_by: str = "price_per_gpu_hour",
    limit: int | None = None,
) -> pd.DataFrame:
    """`compare_frame` of the current prices of `gpu` (and `provider`), asked
    of the store (`compare_rows`), as a frame."""
    return compare_table(
        compare_rows(
            store,
            refs,
            gpu=gpu,
            provider=provider,
            count=count,
            price_models=price_models,
            region_group=region_group,
            currency=currency,
            os=os,
            rank_by=rank_by,
            limit=limit,
        )
    )


def compare_rows(
    store: Db | sa.Engine,
    refs: References,
    *,
    gpu: str | None = None,
    provider: str | None = None,
    count: Decimal | None = None,
    price_models: Sequence[str] = (),
    region_group: str | None = None,
    currency: str = "USD",
    os: str | None = "linux",
    rank_by: str = "price_per_gpu_hour",
    limit: int | None = None,
    include_suspect: bool = False,
) -> list[dict[str, Any]]:
    """The rows of `compare_frame` of the current prices of `gpu` (and
    `provider`), asked of the store: only the prices that can rank are read
    (the GPU count and the operating system are filters of the query), and
    only the first `limit` rows are worked out in full. `store`: an engine,
    or a connection of `db.store.reads.reader` (neither pandas nor SQLAlchemy loaded)."""
    where = PriceFilter(
        gpu=gpu, provider=provider, os=os or None, gpu_count=count, with_gpus=True, include_suspect=include_suspect
    )
    with open_db(store) as conn, conn.scanning() as db:
        if limit and rank_by == "price_per_gpu_hour" and not region_group:
            where = _candidates(db, where, refs, currency, price_models, limit)
        rows = price_records(db, where)
    return rank_prices(
        rows,
        refs,
        count=count,
        price_models=price_models,
        region_group=region_group,
        currency=currency,
        os=os,
        rank_by=rank_by,
        limit=limit,
    )


def _candidates(
    db: Db, where: PriceFilter, refs: References, currency: str, price_models: Sequence[str], limit: int
) -> PriceFilter:
    """`where` narrowed to the instances that hold one of the first `limit`
    prices per GPU-hour, ranked in SQL as floats (each instance's every price
    is read: the spot saving and monthly discount compare them); `where`
    itself when every price ranks or a currency has no rate (the exact pass
    then says so)."""

    def fx_of(currencies: list[str]) -> dict[str, float]:
        return {c: float(refs.fx.conversion(c, currency).rate) for c in currencies}

    try:
        keys = rankings.cheapest_rows(db, where, fx_of, price_models, limit)
    except UserError:
        return where
    return where if keys is None else replace(where, instances=tuple(keys))


def rank_prices(
    rows: list[dict[str, Any]],
    refs: References,
    *,
    count: Decimal | None = None,
    price_models: Sequence[str] = (),
    region_group: str | None = None,
    currency: str = "USD",
    os: str | None = "linux",
    rank_by: str = "price_per_gpu_hour",
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The ranked rows of `compare_frame`, as dicts (the first `limit` only)."""
    if rank_by not in RANK_KEYS:
        raise ValueError(f"rank_by must be one of {', '.join(RANK_KEYS)}, not {rank_by!r}")
    rows = [_exact(r) for r in rows if r.get("gpu_count")]
    if os:
        rows = [r for r in rows if r["os"] == os]
    by_instance = _rates_by_instance(rows)
    chosen = []
    for row in rows:
        if row["exact_hourly"] is None:
            continue
        if count is not None and row["gpu_count"] != count:
            continue
        if price_models and row["price_model"] not in price_models:
            continue
        group = refs.region_group(row["provider"], row["region"])
        if region_group and group != region_group:
            continue
        chosen.append(_sort_row(row, group, refs, currency))
    chosen.sort(key=_sort_key(RANK_KEYS[rank_by]))
    out = []
    for rank, (_, row, group) in enumerate(chosen[:limit] if limit else chosen, start=1):
        full = _ranked_row(row, group, by_instance[instance_key(row)], refs, currency)
        full["rank"] = rank
        del full["per_gpu_hour_exact"], full["exact_hourly"]
        full.update({alias: full[name] for name, alias in TABLE_ALIASES.items()})
        out.append(full)
    return out


def compare_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(rows, columns=[*COMPARE_COLUMNS, "fx", "slice", *TABLE_ALIASES.values()])
    # Counts with gaps stay whole numbers (pandas would make the column float).
    frame["offer_count"] = pd.Series([r.get("offer_count") for r in rows], index=frame.index, dtype=object)
    return frame


def _sort_row(row: dict[str, Any], group: str, refs: References, currency: str) -> tuple[dict, dict, str]:
    """What a row ranks on (the figures `_ranked_row` gives them), the row, its region group."""
    rate = refs.fx.conversion(row["currency"], currency).rate
    keys = {
        "per_gpu_hour_exact": row["exact_hourly"] / row["gpu_count"] * rate,
        "per_tflop_hour_converted": _converted(row.get("price_per_tflop_hour"), rate),
        "per_gb_vram_hour_converted": _converted(row.get("price_per_gb_vram_hour"), rate),
    }
    return keys, row, group


def _sort_key(key: str):
    def sort_key(item: tuple[dict, dict, str]) -> tuple:
        keys, row, _ = item
        return (
            keys[key] is None,
            keys[key] if keys[key] is not None else 0,
            keys["per_gpu_hour_exact"],
            row["provider"],
            row["region"],
            row["instance_type"],
            row["price_model"],
            row["term"],
        )

    return sort_key


def _exact(row: dict[str, Any]) -> dict[str, Any]:
    """The unrounded hourly rate, so ranks and percentages never inherit rounding."""
    row["exact_hourly"] = effective_hourly(row["price"], row["unit"], row["term"], row["upfront_fee"])
    return row


def _ranked_row(
    row: dict[str, Any], group: str, rates: dict[str, Decimal], refs: References, currency: str
) -> dict[str, Any]:
    conversion = refs.fx.conversion(row["currency"], currency)
    hourly = row["exact_hourly"]
    per_gpu = hourly / row["gpu_count"]
    own_spot = hourly if row["price_model"] in SPOT_MODELS else rates.get("spot")
    own_monthly = row["price"] if row["price_model"] == "monthly" and row["unit"] == "month" else rates.get("monthly")
    return {
        **{k: row.get(k) for k in COMPARE_COLUMNS if k in row},
        "region_group": group,
        "fractional": is_fractional(row["gpu_count"]),
        "slice": "fractional" if is_fractional(row["gpu_count"]) else "",
        "exact_hourly": hourly,
        "per_gpu_hour_exact": per_gpu * conversion.rate,
        "target_currency": currency,
        "hourly_converted": _q(hourly * conversion.rate, RATE),
        "per_gpu_hour_converted": _q(per_gpu * conversion.rate, RATE),
        "per_tflop_hour_converted": _converted(row.get("price_per_tflop_hour"), conversion.rate),
        "per_gb_vram_hour_converted": _converted(row.get("price_per_gb_vram_hour"), conversion.rate),
        "fx_rate": conversion.rate.normalize() if conversion.rate != 1 else Decimal(1),
        "fx_date": conversion.date,
        "fx_source": conversion.source,
        "fx": ""
        if row["currency"] == currency
        else f"{conversion.label(row['currency'], currency)} ({conversion.date})",
        "spot_saving_percent": spot_saving(rates.get("on_demand"), own_spot),
        "monthly_discount_percent": monthly_discount(rates.get("on_demand"), own_monthly),
        "three_year_total": _q(hourly * THREE_YEARS_HOURS * conversion.rate, MONEY),
        # A marketplace group's offers (pandas holds a column with gaps as floats).
        "offer_count": None if row.get("offer_count") is None else int(row["offer_count"]),
    }
