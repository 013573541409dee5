"""`recommend` asked of the store: the same ranked options, with only the
instance types that can rank among the first `limit` read and priced.

1. the GPU shapes in the store (`db.store.reads.rankings.shapes`, a few hundred
   rows however large the store) decide what can hold the job, with the
   notes `fit.fit` gives;
2. the aggregates of the fitting prices (each instance's cheapest rate per
   kind of price) give every option (instance type, price model, region) an
   approximate total (tracker/analytics/candidates.py); an instance type and
   mix can rank among the first `limit` only if its cheapest region, less
   the most an offer could take off, is within a hair of the limit-th;
3. the prices of those instance types, every region, go through
   `recommend` itself, exactly: totals, offers, regions, why.

An option is one a person can buy now (fit.in_stock): the prices that may
not supply the need (sold out, or a marketplace group with fewer host offers
than instances: `rankings.short_of_stock`, a few rows) give the instances
they belong to no upper bound in step 2, so that they never set the bar.
Folded (one row per provider, GPU model and kind of price, the default),
the bar is over those groups; of a group that can rank, the options that
can be its best or may not be buyable are priced, the others only named
(`_folded_keys`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from itertools import groupby
from typing import TYPE_CHECKING, Any

from db.store.reads import rankings
from db.store.reads import rows as answers
from db.store.reads.connection import Db, open_db
from db.store.reads.rows import PriceFilter
from db.store.writes.summary import settle
from tracker.analytics import candidates
from tracker.analytics.bill.side_costs import provider_bounds
from tracker.analytics.facts.network import rdma_of
from tracker.analytics.facts.reference import References
from tracker.analytics.offer_value import usable_offers
from tracker.analytics.points import price_records
from tracker.analytics.recommend.fit import check_gpus, fit, short_of_stock, stock_notes
from tracker.analytics.recommend.rank import (
    SINGLE_MIXES,
    WORKLOADS,
    Needs,
    _throughput,
    mix_label,
    rank_options,
)
from tracker.analytics.tco import TcoInputs
from tracker.errors import UserError

if TYPE_CHECKING:
    import sqlalchemy as sa


def _shapes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The shapes as `fit` reads prices: Decimal counts and memory, the stored text beside."""
    out = []
    for row in rows:
        count, memory = row["gpu_count"], row["gpu_memory_gb"]
        out.append(
            {
                "os": row["os"],
                "instance_type": row["instance_type"],
                "gpu_model": row["gpu_model"],
                "gpu_count": Decimal(count) if count not in (None, "") else None,
                "gpu_memory_gb": Decimal(memory) if memory not in (None, "") else None,
                "shape": (row["gpu_model"], count, memory),
            }
        )
    return out


Mix = tuple[str, list[tuple[str, float]]]  # its label, and (price model, share) as floats
# The single price models (model, its Mix) and the needs' own mixes (as given, its Mix).
MixTable = tuple[list[tuple[str, Mix]], list[tuple[dict[str, Decimal], Mix]]]


def _mix_table(needs: Needs) -> MixTable:
    """The single price models an option can be priced under, and the needs' own mixes, worked out once."""
    singles = [
        (model, (model, [(model, 1.0)]))
        for model in SINGLE_MIXES
        if not (model == "spot" and needs.workload == "inference")
        and (not needs.price_models or model in needs.price_models)
    ]
    extra = [(m, (mix_label(m), [(k, float(v)) for k, v in m.items()])) for m in needs.mixes]
    return singles, extra


def _mixes(rates: dict[str, float], table: MixTable) -> list[Mix]:
    """`recommend._mixes` of an instance with these rates: each single price
    model it has, then each of the needs' mixes it has every model of (one
    that is a single price model already listed, once)."""
    singles, extra = table
    chosen = [mix for model, mix in singles if model in rates]
    listed = {label for label, _ in chosen}
    for m, mix in extra:
        same_as_single = len(m) == 1 and next(iter(m.values())) == 1 and next(iter(m)) in listed
        if all(model in rates for model in m) and not same_as_single:
            chosen.append(mix)
    return chosen


def recommend_rows(
    store: Db | sa.Engine,
    refs: References,
    needs: Needs,
    *,
    gpu: str | None = None,
    provider: str | None = None,
    limit: int | None = None,
    settle_rates: bool = True,
    include_suspect: bool = False,
) -> tuple[list[dict[str, Any]], list[str]]:
    """`recommend` of the current prices of `gpu` (and `provider`): its first
    `limit` options (all with None) and its notes. `store`: an engine, or a
    connection of `db.store.reads.reader` (neither pandas nor SQLAlchemy loaded).
    With `settle_rates` the kept rates a bulk write left to be worked out are
    worked out first (a write; the dashboard, read-only, passes False)."""
    if needs.workload not in WORKLOADS:
        raise UserError(f"--workload must be one of {', '.join(WORKLOADS)}")
    check_gpus(needs.gpus)
    base = PriceFilter(gpu=gpu, provider=provider, include_suspect=include_suspect)
    with open_db(store) as conn:
        if limit is not None and settle_rates:
            settle(conn)  # the kept rates, if a bulk write left them to be worked out
        offers = answers.offers(conn)
        if limit is None:
            return rank_options(price_records(conn, base), offers, refs, needs)
        with conn.scanning() as db:
            fitting, notes = fit(
                _shapes(rankings.shapes(db, base)), needs.gpus, needs.min_gpu_memory_gb, needs.usable_memory_share
            )
            where = replace(base, os="linux", with_gpus=True, shapes=tuple(r["shape"] for r in fitting))
            with_offers = {o.get("provider") for o in usable_offers(offers, needs.qualifies)}
            short, stock = _short(db, refs, needs, where)
            notes.extend(stock)
            # --max-interruption leaves out spot pools region by region: so does `_by_instance`.
            if needs.mixes or needs.region_group or needs.spot_risk.max_interruption is not None:
                scored, no_throughput, models = _by_instance(db, refs, needs, where, with_offers, short, notes)
            else:
                scored, no_throughput, models = _by_type(db, refs, needs, where, with_offers, short)
        if no_throughput:
            notes.append(f"left out, no throughput given for: {', '.join(sorted(no_throughput))}")
        if not scored:
            raise UserError("no instance in the store meets these needs; widen the region group, provider or GPU")
        sizes: dict[tuple[str, Any, str], list[tuple[str, Decimal]]] | None = None
        if needs.all_options:
            keys = candidates.best_keys(scored, limit)
        else:
            keys, sizes = _folded_keys(scored, models, limit)
        types = tuple(sorted({(p, t) for p, t, _ in keys}))
        # Only the rows the aggregates ranked: Linux, of the fitting shapes (`recommend` keeps no other).
        where = replace(where, types=types)
        counts = None
        if not needs.region_group:
            with conn.scanning() as db:
                instances, counts = _regions(db, refs, needs, where, with_offers, short)
            where = replace(where, instances=instances)
        rows = price_records(conn, where)
    ranked, _ = rank_options(rows, offers, refs, needs, region_counts=counts, also_sizes=sizes)
    return ranked[:limit], notes


def _short(db: Db, refs: References, needs: Needs, where: PriceFilter) -> tuple[set[tuple[str, str, str]], list[str]]:
    """The instances (provider, region, type) with a marketplace price whose
    host offers are too few for the need (the aggregates see a sold-out price
    already), and the notes `fit.in_stock` gives of those and the sold-out ones."""
    sold_out: list[dict[str, Any]] = []
    few_offers: list[dict[str, Any]] = []
    short: set[tuple[str, str, str]] = set()
    for row in rankings.short_of_stock(db, where, float(needs.gpus)):
        if needs.region_group and refs.region_group(row["provider"], row["region"]) != needs.region_group:
            continue
        row["gpu_count"] = Decimal(row["gpu_count"])
        reason = short_of_stock(row, needs.gpus)
        if reason is None:
            continue
        if reason == "sold out":
            sold_out.append(row)
        else:
            few_offers.append(row)
            short.add((row["provider"], row["region"], row["instance_type"]))
    return short, stock_notes(sold_out, few_offers, needs.gpus)


Models = dict[tuple[str, str], tuple[Any, Decimal]]  # (provider, type) -> (GPU model, GPU count)


def _folded_keys(
    scored: Scored, models: Models, limit: int
) -> tuple[set[tuple[str, str, str]], dict[tuple[str, Any, str], list[tuple[str, Decimal]]]]:
    """The options to price exactly when one row stands for each group
    (provider, GPU model, mix), and the sizes of the other options of the
    groups that can rank, which the rows name without pricing them.

    A group can rank in the first `limit` if its least lower bound is within
    a hair of the limit-th groups' least upper bound (`candidates.best_keys`
    over groups). Of such a group, an option is priced if it can be the
    group's best (its lower bound within a hair of the group's least upper
    bound), if nothing bounds it (it may not be buyable: priced, it is seen),
    or if the aggregates cannot judge it (`keep`); every other option of the
    group surely can be bought (a finite upper bound: a region where no
    price of it is short) and is only named."""
    groups: dict[tuple[str, Any, str], list[tuple[tuple[str, str, str], float, float, bool]]] = {}
    for entry in scored:
        (provider, instance_type, mix) = entry[0]
        groups.setdefault((provider, models[(provider, instance_type)][0], mix), []).append(entry)
    best = candidates.best_keys(
        (
            (group, min(e[1] for e in entries), min(e[2] for e in entries), any(e[3] for e in entries))
            for group, entries in groups.items()
        ),
        limit,
    )
    keys: set[tuple[str, str, str]] = set()
    sizes: dict[tuple[str, Any, str], list[tuple[str, Decimal]]] = {}
    for group in best:
        bar = min(e[1] for e in groups[group])
        bar += abs(bar) * candidates.SLACK + candidates.SLACK
        for key, upper, low, keep in groups[group]:
            if keep or low <= bar or math.isinf(upper):
                keys.add(key)
            else:
                sizes.setdefault(group, []).append((key[1], models[(key[0], key[1])][1]))
    return keys, sizes


def _regions(
    db: Db,
    refs: References,
    needs: Needs,
    where: PriceFilter,
    with_offers: set[Any],
    short: set[tuple[str, str, str]],
) -> tuple[tuple[tuple[str, str, str], ...], dict[tuple[str, str, str], int]]:
    """Of the candidate types' regions, those `recommend` can pick for some
    option (type and mix: the cheapest that can supply the need), and how
    many regions each option has (those that cannot included). A region stays
    unless some region of the option surely can supply it (no price of it
    sold out or short of host offers) and costs less than the region's
    approximate total; the regions of a provider with an offer, and
    those whose prices state a bundled disk or tiered rates, always stay."""
    usage, floor, table = _usage(needs), _floor(needs), _mix_table(needs)
    options: dict[tuple[str, str, str], list[tuple[float, float, candidates.Approx]]] = {}
    for inst in candidates.approximate(db, refs, needs.currency, where):
        if needs.nodes > 1 and not rdma_of(inst.provider, inst.instance_type):
            continue
        if needs.throughput is not None and _throughput(_shape(inst), needs) is None:
            continue
        (least, most), instances = _side(refs, inst.provider, needs), candidates.fleet(needs.gpus, inst.gpu_count)
        for mix in _risked(_mixes(inst.rates, table), inst, needs):
            total = _total(usage, inst.rates, mix, instances, most, None)
            lowest = _total(floor, inst.rates, mix, instances, least, None)
            options.setdefault((inst.provider, inst.instance_type, mix[0]), []).append((total, lowest, inst))
    kept: set[tuple[str, str, str]] = set()
    for (provider, _, _), regions in options.items():
        # A region with a price that cannot supply the need may cost more than its approximate total.
        in_stock = [total for total, _, inst in regions if not inst.sold_out and inst.key not in short]
        if not in_stock or provider in with_offers:
            kept.update(inst.key for _, _, inst in regions)
            continue
        bar = min(in_stock)
        bar += abs(bar) * candidates.SLACK + candidates.SLACK
        kept.update(inst.key for _, lowest, inst in regions if lowest <= bar or inst.special)
    return tuple(sorted(kept)), {key: len(regions) for key, regions in options.items()}


Scored = list[tuple[tuple[str, str, str], float, float, bool]]


def _total(
    usage: candidates.Usage, rates: dict[str, float], mix: Mix, instances: int, side: float, work: float | None
) -> float:
    """An option's approximate total (per million samples when `work`, the
    millions of samples per unit of speed over the horizon, is given)."""
    total = side + usage.cost(rates, mix[1], instances)
    return total / work if work else total


def _work(speed: Decimal | None, needs: Needs) -> float | None:
    """Millions of samples a GPU-hour speed of 1 does over the horizon, for `_total`."""
    return float(speed * needs.gpus * needs.hours_per_month * 3600 * needs.months) / 1_000_000 if speed else None


def _usage(needs: Needs) -> candidates.Usage:
    """At most what an option's compute costs (spot's interruptions are priced per pool: spot_risk.py)."""
    return needs.spot_risk.usage_bounds(needs.hours_per_month, needs.months)[1]


def _floor(needs: Needs) -> candidates.Usage:
    """At least what an option's compute costs: spot without its interruptions."""
    return needs.spot_risk.usage_bounds(needs.hours_per_month, needs.months)[0]


def _sides(refs: References, needs: Needs) -> Callable[[str], tuple[float, float]]:
    """`_side` of each provider, worked out once."""
    found: dict[str, tuple[float, float]] = {}

    def side(provider: str) -> tuple[float, float]:
        if provider not in found:
            found[provider] = _side(refs, provider, needs)
        return found[provider]

    return side


def _side(refs: References, provider: str, needs: Needs) -> tuple[float, float]:
    """The least and the most the provider's side costs come to in any of its
    regions (tracked tiers or the reference table: bill/side_costs.py)."""
    asked = TcoInputs(
        currency=needs.currency,
        storage_gb=needs.storage_gb,
        egress_gb_per_month=needs.egress_gb_per_month,
        inter_region_gb_per_month=needs.inter_region_gb_per_month,
        side=needs.side,
    )
    return provider_bounds(refs, asked, provider, needs.months)


def _by_type(
    db: Db,
    refs: References,
    needs: Needs,
    where: PriceFilter,
    with_offers: set[Any],
    short: set[tuple[str, str, str]],
) -> tuple[Scored, set[str], Models]:
    """Each instance type and single price model, over its regions: its
    approximate total in its cheapest region (the lowest it can be) and in
    the region `recommend` would pick at most (the cheapest with stock; no
    bound for a type with a price that may not supply the need). The
    regions are folded in SQL (`rankings.type_rates`); and each type's GPU model."""
    scored: Scored = []
    models: Models = {}
    short_types = {(provider, instance_type) for provider, _, instance_type in short}
    no_throughput: set[str] = set()
    fx: dict[str, float] = {}
    usage, floor, table, sides = _usage(needs), _floor(needs), _mix_table(needs), _sides(refs, needs)
    for (provider, instance_type), group in groupby(
        rankings.type_rates(db, where), key=lambda r: (r["provider"], r["instance_type"])
    ):
        low: dict[str, float] = {}
        high: dict[str, float] = {}
        stocked: dict[str, float] = {}
        special, first = False, None
        for row in group:
            first = first or row
            if row["currency"] not in fx:
                fx[row["currency"]] = float(refs.fx.conversion(row["currency"], needs.currency).rate)
            special |= bool(row["special"])
            rate = fx[row["currency"]]
            for cls in rankings.RATE_CLASSES:
                if row[f"{cls}_low"] is None:
                    continue
                low[cls] = min(low.get(cls, math.inf), float(row[f"{cls}_low"]) * rate)
                high[cls] = max(high.get(cls, -math.inf), float(row[f"{cls}_high"]) * rate)
                if row[f"{cls}_in_stock"] is not None:
                    stocked[cls] = min(stocked.get(cls, math.inf), float(row[f"{cls}_in_stock"]) * rate)
        assert first is not None
        if needs.nodes > 1 and not rdma_of(provider, instance_type):
            continue
        models[(provider, instance_type)] = (first["gpu_model"], Decimal(first["gpu_count"]))
        speed = _throughput({"gpu_model": first["gpu_model"], "gpu_count": Decimal(first["gpu_count"])}, needs)
        if needs.throughput is not None and speed is None:
            no_throughput.add(str(first["gpu_model"]))
            continue
        mixes = _mixes(low, table)
        if not mixes:
            continue
        (least, most), work = sides(provider), _work(speed, needs)
        instances = candidates.fleet(needs.gpus, Decimal(first["gpu_count"]))
        picked = {c: stocked.get(c, math.inf) for c in low}
        keep = special or provider in with_offers
        unbounded = (provider, instance_type) in short_types
        for mix in mixes:
            lowest = _total(floor, low, mix, instances, least, work)
            upper = math.inf if unbounded else max(lowest, _total(usage, picked, mix, instances, most, work))
            scored.append(((provider, instance_type, mix[0]), upper, lowest, keep))
    return scored, no_throughput, models


def _by_instance(
    db: Db,
    refs: References,
    needs: Needs,
    where: PriceFilter,
    with_offers: set[Any],
    short: set[tuple[str, str, str]],
    notes: list[str] | None = None,
) -> tuple[Scored, set[str], Models]:
    """As `_by_type`, region by region in Python: for mixes of several price
    models, a region group and --max-interruption (its note added to `notes`),
    which the folded rates cannot answer."""
    found = candidates.approximate(db, refs, needs.currency, where)
    if notes is not None and needs.workload != "inference":
        notes.extend(needs.spot_risk.left_out(_pool(inst) for inst in found if "spot" in inst.rates))
    groups: dict[tuple[str, str, str], list[tuple[float, float, bool, bool]]] = {}
    models: Models = {}
    no_throughput: set[str] = set()
    usage, floor, table = _usage(needs), _floor(needs), _mix_table(needs)
    for inst in found:
        if needs.region_group and refs.region_group(inst.provider, inst.region) != needs.region_group:
            continue
        if needs.nodes > 1 and not rdma_of(inst.provider, inst.instance_type):
            continue
        speed = _throughput(_shape(inst), needs)
        if needs.throughput is not None and speed is None:
            no_throughput.add(str(inst.gpu_model))
            continue
        mixes = _risked(_mixes(inst.rates, table), inst, needs)
        if not mixes:
            continue
        models[(inst.provider, inst.instance_type)] = (inst.gpu_model, inst.gpu_count)
        (least, most), work = _side(refs, inst.provider, needs), _work(speed, needs)
        instances = candidates.fleet(needs.gpus, inst.gpu_count)
        keep = inst.special or inst.provider in with_offers
        # A region with a price that may not supply the need: no upper bound.
        unsure = inst.sold_out or inst.key in short
        for mix in mixes:
            total = _total(usage, inst.rates, mix, instances, most, work)
            lowest = _total(floor, inst.rates, mix, instances, least, work)
            groups.setdefault((inst.provider, inst.instance_type, mix[0]), []).append(
                (math.inf if unsure else total, lowest, keep, unsure)
            )
    scored = [
        (key, _upper(regions), min(low for _, low, _, _ in regions), any(keep for _, _, keep, _ in regions))
        for key, regions in groups.items()
    ]
    return scored, no_throughput, models


def _shape(inst: candidates.Approx) -> dict[str, Any]:
    """An instance's GPU model and count, as `_throughput` reads a price (a benchmark's speed depends on both)."""
    return {"gpu_model": inst.gpu_model, "gpu_count": inst.gpu_count}


def _pool(inst: candidates.Approx) -> dict[str, Any]:
    return {"provider": inst.provider, "instance_type": inst.instance_type, "region": inst.region}


def _risked(mixes: list[Mix], inst: candidates.Approx, needs: Needs) -> list[Mix]:
    """The mixes --max-interruption leaves: those with spot only where the pool's band is within it."""
    if needs.spot_risk.max_interruption is None or needs.spot_risk.allowed(_pool(inst)):
        return mixes
    return [mix for mix in mixes if all(model != "spot" for model, _ in mix[1])]


def _upper(regions: Sequence[tuple[float, float, bool, bool]]) -> float:
    """At most what the region `recommend` picks costs: the cheapest region
    that surely can supply the need (none: no bound)."""
    return min((total for total, _, _, unsure in regions if not unsure), default=math.inf)
