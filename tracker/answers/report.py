"""The report's answer: everything `gpu-tracker report` shows, read from the
store once (`ReportData`), and the cheapest price per GPU model and kind of
price that its summary and the dashboard's overview both show (`cheapest`).
`gpu-tracker report` builds a `ReportRequest`, reads it (`data`) and hands
it to the page (`tracker.analytics.outputs.report.render`), which reads
nothing more; the dashboard's overview calls `cheapest`, read-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.store.reads.connection import Db
    from tracker.analytics.facts.reference import References
    from tracker.analytics.outputs.report_html import ReportData
    from tracker.analytics.outputs.series import Series


@dataclass(frozen=True)
class ReportRequest:
    """The currency of every figure and how many days of changes; the defaults are the command's."""

    currency: str = "USD"
    days: int = 30
    # The moment the report is of (the clock unless told: tests fix it).
    now: datetime | None = None


def cheapest(
    store: Db | sa.Engine, refs: References, currency: str, *, settle_rates: bool = True
) -> list[dict[str, Any]]:
    """Per GPU model and kind of price (on demand, spot, committed): the
    cheapest current price per GPU-hour, in `currency` (the report's summary
    and the dashboard's overview). Asked of the store: the lowest rate per
    GPU model, kind and currency in SQL, then the prices of the instances
    within a hair of each model's and kind's lowest, ranked exactly; the
    prices held as suspect left out, as every ranking does. `settle_rates`:
    work out the kept rates a bulk write left first (else, read-only, those
    providers are answered from their prices)."""
    from db.store.reads import rankings
    from db.store.reads.connection import open_db
    from db.store.reads.rows import PriceFilter
    from db.store.writes.summary import settle
    from tracker.analytics.candidates import SLACK
    from tracker.analytics.columns import MODEL_CLASSES
    from tracker.analytics.compare import rank_prices
    from tracker.analytics.points import price_records

    where = PriceFilter(os="linux", with_gpus=True, include_suspect=False)
    with open_db(store) as conn, conn.scanning() as db:
        if settle_rates:
            settle(db)  # the kept rates, if a bulk write left them to be worked out
        lows = rankings.cheapest_per_gpu(db, where, MODEL_CLASSES)
        best: dict[tuple[str, str], float] = {}
        rates: dict[str, float] = {}
        for low in lows:
            if low["low"] is None:
                continue
            rates[low["currency"]] = float(refs.fx.conversion(low["currency"], currency).rate)
            if not low["gpu_model"]:
                continue
            slot = (low["gpu_model"], low["kind"])
            best[slot] = min(best.get(slot, float("inf")), float(low["low"]) * rates[low["currency"]])
        bars = []
        for low in lows:
            slot = (low["gpu_model"], low["kind"])
            if low["low"] is None or slot not in best:
                continue
            bar = best[slot] * (1 + SLACK) + SLACK
            if float(low["low"]) * rates[low["currency"]] <= bar:
                bars.append((*slot, low["currency"], bar / rates[low["currency"]]))
        keys = rankings.instances_below(db, where, MODEL_CLASSES, bars)
    rows = price_records(store, PriceFilter(os="linux", instances=tuple(keys))) if keys else []
    return _per_slot(rank_prices(rows, refs, currency=currency), MODEL_CLASSES)


def _per_slot(ranked: list[dict[str, Any]], classes: dict[str, str]) -> list[dict[str, Any]]:
    """The first (cheapest) row of each GPU model and kind of price, by model and kind."""
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for row in ranked:
        if not row["gpu_model"]:
            continue
        slot = (row["gpu_model"], classes.get(row["price_model"], row["price_model"]))
        best.setdefault(slot, row | {"kind": slot[1]})  # ranked cheapest first
    return [best[k] for k in sorted(best)]


def data(store: Db | sa.Engine, refs: References, request: ReportRequest) -> ReportData:
    """What every section of the report is built from, read on one connection."""
    from db.store.reads.connection import open_db

    with open_db(store) as db:
        return _read(db, refs, request)


def _read(db: Db, refs: References, request: ReportRequest) -> ReportData:
    from db.store.reads import rows as stored
    from db.store.reads.reader import ahead
    from db.store.writes.suspects import held
    from tracker.analytics.outputs.report import CHANGE_ROWS
    from tracker.analytics.outputs.report_html import ReportData
    from tracker.analytics.points import change_records, health_records
    from tracker.analytics.recommend import Needs

    now = request.now or datetime.now(UTC)
    since = now - timedelta(days=request.days)
    held_prices = ahead(db, held)  # on PostgreSQL listed while the rest is read
    found = cheapest(db, refs, request.currency)
    moved = _moved(db, since)
    needs = Needs(currency=request.currency)
    recommended, recommend_empty = _recommended(db, refs, needs)
    return ReportData(
        refs=refs,
        currency=request.currency,
        days=request.days,
        now=now,
        cheapest=found,
        changes=change_records(db, since=since, limit=CHANGE_ROWS, newest_first=True),
        offers=sorted(stored.offers(db), key=lambda o: (o["provider"], o["kind"], o["title"])),
        health=health_records(db),
        change_counts=stored.change_counts(db, since=since),
        moved=moved,
        cheapest_lines=_cheapest_lines(db, refs, found, request.currency),
        moved_lines=_moved_lines(db, refs, moved, request.currency),
        needs=needs,
        recommended=recommended,
        recommend_empty=recommend_empty,
        held=held_prices(),
    )


def _moved(db: Db, since: datetime) -> list[dict[str, Any]]:
    """The latest move of each price that dropped or rose since `since`, latest first (CHART_SERIES of them)."""
    from tracker.analytics.outputs.report import CHART_SERIES
    from tracker.analytics.points import change_records

    latest: dict[str, dict[str, Any]] = {}
    limit = 500
    while True:
        found = change_records(db, since=since, kinds=["price_drop", "price_increase"], limit=limit, newest_first=True)
        for change in found:
            latest.setdefault(change["key"], change)
        if len(latest) >= CHART_SERIES or len(found) < limit:
            return list(latest.values())[:CHART_SERIES]
        latest, limit = {}, limit * 10


def _cheapest_lines(db: Db, refs: References, found: list[dict[str, Any]], currency: str) -> list[Series]:
    """The cheapest on-demand price of the GPU models that the most providers offer, as step lines."""
    from db.store.reads.rows import PriceFilter
    from tracker.analytics.outputs.report import CHART_SERIES
    from tracker.analytics.outputs.series import series_of
    from tracker.analytics.points import history_records

    spread: dict[str, set[str]] = {}
    for row in found:
        spread.setdefault(row["gpu_model"], set()).add(row["provider"])
    on_demand = sorted(
        (r for r in found if r["kind"] == "on demand"),
        key=lambda r: (-len(spread[r["gpu_model"]]), r["gpu_model"]),
    )
    lines: list[Series] = []
    for row in on_demand[:CHART_SERIES]:
        where = PriceFilter(
            instance_type=row["instance_type"], provider=row["provider"], region=row["region"], price_model="on_demand"
        )
        intervals = [r for r in history_records(db, where) if r["os"] == "linux"]
        for s in series_of(intervals, refs, currency=currency, limit=1):
            s.label = f"{row['gpu_model']}: {s.label}"
            lines.append(s)
    return lines


def _moved_lines(db: Db, refs: References, moved: list[dict[str, Any]], currency: str) -> list[Series]:
    """The prices that dropped or rose in the period, latest moves first, as step lines."""
    from db.store.reads.rows import PriceFilter
    from tracker.analytics.outputs.series import series_of
    from tracker.analytics.points import history_records

    lines: list[Series] = []
    for change in moved:
        key = change["key"]
        where = PriceFilter(instance_type=change["instance_type"], provider=change["provider"], region=change["region"])
        intervals = [r for r in history_records(db, where) if r["key"] == key]
        lines += series_of(intervals, refs, currency=currency)
    return lines


def _recommended(db: Db, refs: References, needs: Any) -> tuple[list[dict[str, Any]], str]:
    """The ten best options for the default need, or none and the one sentence that says why."""
    from tracker.analytics.bill.spot_risk import with_bands
    from tracker.analytics.recommend.store import recommend_rows
    from tracker.errors import UserError

    try:
        rows, _ = recommend_rows(db, refs, with_bands(needs, db), limit=10)
    except UserError as exc:
        return [], str(exc)
    return rows, "no option"


def html(store: Db | sa.Engine, refs: References, request: ReportRequest) -> str:
    """The report's page (`gpu-tracker report`)."""
    from tracker.analytics.outputs.report import render

    return render(data(store, refs, request))
