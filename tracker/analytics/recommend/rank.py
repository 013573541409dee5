"""From needs to a ranked list of concrete options: which provider, region,
instance and price model to buy for a job over its whole horizon.

The method of the buying guides, step by step:

1. the need: GPUs (whole GPUs, or a share of one below 1), usable memory
   per GPU, training or inference, hours a month, months; what cannot hold
   it is left out (fit.py);
2. every instance that can hold the job, under each price model it offers
   (on demand; spot with the expected cost of its interruptions, for
   training only (bill/spot_risk.py: from the pool's stated band, or x1.1 hours
   where none is stated);
   monthly; 1- and 3-year terms) and any mix the buyer adds;
3. its total cost over the horizon with the TCO simulator (tco.py): compute,
   egress and storage at the provider's dated rates, less the one offer from
   the offers table that saves most and that the buyer qualifies for (money
   credits and vouchers, free GPU hours, trial days of the instance, percent
   discounts on the purchases they cover);
4. ranked by total cost, or, given a throughput per GPU model (samples per
   second, from MLPerf or the buyer's own run), by cost per million samples.

Each instance type keeps its cheapest region (the others are counted), and
each row says why it ranks where it does. An option is one a person can buy
now: a price the provider states sold out, or a marketplace group with fewer
host offers than the instances the need takes, is left out (fit.in_stock).
By default one row per provider, GPU model and kind of price: the others of
the same are folded into it ("also as 4x, 2x, 1x"); `Needs.all_options`
lists every one.
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from db.kinds import Workload
from db.money import HOURS_PER_MONTH
from tracker.analytics.bill.spot_risk import SpotRisk
from tracker.analytics.compare import is_fractional
from tracker.analytics.facts.gpu_models import lookup
from tracker.analytics.facts.network import network_text, rdma_of
from tracker.analytics.facts.reference import References
from tracker.analytics.offer_value import Worth, best_offer, usable_offers
from tracker.analytics.recommend.fit import USABLE_MEMORY_SHARE, check_gpus, fit, in_stock, slice_label
from tracker.analytics.tco import MONEY, PricedInstance, TcoInputs, as_rows, instance_rates
from tracker.errors import UserError

if TYPE_CHECKING:
    import pandas as pd

WORKLOADS = tuple(w.value for w in Workload)
SINGLE_MIXES = ("on_demand", "spot", "monthly", "reserved_1yr", "reserved_3yr")
RATE = Decimal("0.000001")
_MEMORY_SUFFIX = re.compile(r"\s\d+\s?gb$")

RECOMMEND_COLUMNS = [
    "rank",
    "provider",
    "region",
    "instance_type",
    "gpu_model",
    "gpu_count",
    "gpu_memory_gb_per_gpu",
    "usable_memory_gb_per_gpu",
    "instances",
    "mix",
    "compute",
    "egress",
    "inter_region",
    "storage",
    "credits",
    "credit_offer",
    "credit_conditions",
    "total",
    "currency",
    "per_gpu_hour",
    "gpu_bf16_tflops",
    "per_tflop_hour",
    "samples_per_second",
    "cost_per_million_samples",
    "other_regions",
    # The node network: Gbps and RDMA kind (EFA, InfiniBand, RoCE) as stated, the GPU interconnect.
    "network",
    # Where each side cost came from, tracked or the reference table (docs/side-costs.md).
    "egress_source",
    "inter_region_source",
    "storage_source",
    "fx",
    "why",
]
RECOMMEND_TABLE = [
    "rank",
    "provider",
    "region",
    "instance_type",
    "gpu_model",
    "instances",
    "mix",
    "credits",
    "total",
    "currency",
    "per_gpu_hour",
    "cost_per_million_samples",
    "why",
]


@dataclass(frozen=True)
class Needs:
    gpus: Decimal = Decimal(1)
    min_gpu_memory_gb: Decimal | None = None
    workload: str = "training"
    hours_per_month: Decimal = HOURS_PER_MONTH
    months: int = 36
    currency: str = "USD"
    spot_overhead: Decimal = Decimal("1.1")
    storage_gb: Decimal = Decimal(0)
    egress_gb_per_month: Decimal = Decimal(0)
    inter_region_gb_per_month: Decimal = Decimal(0)
    # The tracked side costs (bill/side_costs.SideRates); None: the reference table's rates only.
    side: Any = None
    qualifies: frozenset[str] = frozenset()
    throughput: dict[str, Decimal] | None = None
    mixes: tuple[dict[str, Decimal], ...] = ()
    # An MLPerf benchmark's speeds (`work.Work`): each option's GPU speed, said in its why (`work.by_benchmark`).
    benchmark: Any = None
    # Machines the job spans: above 1, only options whose provider states an RDMA-class network.
    nodes: int = 1
    region_group: str | None = None
    usable_memory_share: Decimal = USABLE_MEMORY_SHARE
    # Every option; else one per provider, GPU model and kind of price, the others folded into it.
    all_options: bool = False
    # Spot interruption bands, checkpoints and --max-interruption (bill/spot_risk.py); None: no band known.
    risk: SpotRisk | None = None
    # --price-model: only these single price models (every one when empty; --mix mixes still count).
    price_models: tuple[str, ...] = ()

    @property
    def spot_risk(self) -> SpotRisk:
        return self.risk or SpotRisk(fixed_overhead=self.spot_overhead)


def load_throughput(path: Path) -> dict[str, Decimal]:
    """A CSV of `gpu_model,samples_per_second` (per GPU), by lower-cased model."""
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            if not reader.fieldnames or not {"gpu_model", "samples_per_second"} <= set(reader.fieldnames):
                raise UserError(f"{path}: a throughput table needs the columns gpu_model,samples_per_second")
            table = {}
            for line, row in enumerate(reader, start=2):
                try:
                    value = Decimal(row["samples_per_second"].strip())
                except (InvalidOperation, AttributeError):
                    raise UserError(f"{path}, line {line}: samples_per_second is not a number") from None
                if not value.is_finite() or value <= 0:
                    raise UserError(f"{path}, line {line}: samples_per_second must be above 0")
                table[row["gpu_model"].strip().lower()] = value
    except OSError as exc:
        raise UserError(f"cannot read the throughput table {path}: {exc.strerror}") from None
    if not table:
        raise UserError(f"{path}: the throughput table has no rows")
    return table


def _mixes(inst: PricedInstance, needs: Needs) -> list[dict[str, Decimal]]:
    spot = needs.workload != "inference" and needs.spot_risk.allowed(inst.row)  # --max-interruption
    singles = [
        {model: Decimal(1)}
        for model in SINGLE_MIXES
        if model in inst.rates and (model != "spot" or spot) and (not needs.price_models or model in needs.price_models)
    ]
    extra = [
        m
        for m in needs.mixes
        if all(model in inst.rates for model in m) and m not in singles and ("spot" not in m or spot)
    ]
    return singles + extra


def mix_label(mix: dict[str, Decimal]) -> str:
    if len(mix) == 1:
        return next(iter(mix))
    return ",".join(f"{model}={share.normalize():f}" for model, share in mix.items())


def recommend(
    prices: list[dict[str, Any]] | pd.DataFrame,
    offers: list[dict[str, Any]] | pd.DataFrame,
    refs: References,
    needs: Needs,
) -> pd.DataFrame:
    """The ranked options for `needs` as a frame; `frame.attrs["notes"]` says what was left out and why."""
    return options_frame(*rank_options(prices, offers, refs, needs))


def options_frame(rows: list[dict[str, Any]], notes: list[str]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(rows, columns=RECOMMEND_COLUMNS)
    frame.attrs["notes"] = notes
    return frame


def rank_options(
    prices: list[dict[str, Any]] | pd.DataFrame,
    offers: list[dict[str, Any]] | pd.DataFrame,
    refs: References,
    needs: Needs,
    *,
    region_counts: dict[tuple[str, str, str], int] | None = None,
    also_sizes: dict[tuple[str, Any, str], list[tuple[str, Decimal]]] | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The ranked options for `needs` (rows in RECOMMEND_COLUMNS), and notes
    of what was left out and why. `region_counts`: how many regions each
    option (provider, instance type, mix) has, when `prices` holds only the
    regions that can be picked (`store.py`); else they are counted."""
    if needs.workload not in WORKLOADS:
        raise UserError(f"--workload must be one of {', '.join(WORKLOADS)}")
    check_gpus(needs.gpus)
    fitting, notes = fit(as_rows(prices), needs.gpus, needs.min_gpu_memory_gb, needs.usable_memory_share)
    if needs.region_group:
        fitting = [r for r in fitting if refs.region_group(r["provider"], r["region"]) == needs.region_group]
    buyable, stock = in_stock(fitting, needs.gpus)
    notes.extend(stock)
    usable = usable_offers(offers, needs.qualifies)
    options: dict[tuple, dict[str, Any]] = {}
    priced = instance_rates(buyable, refs, needs.currency)
    if needs.workload != "inference":
        notes.extend(needs.spot_risk.left_out(i.row for i in priced.values() if "spot" in i.rates))
    for inst in priced.values():
        row = inst.row
        if needs.nodes > 1 and not rdma_of(row["provider"], row["instance_type"]):
            continue
        speed = _throughput(row, needs)
        if needs.throughput is not None and speed is None:
            continue
        applicable = [o for o in usable if o.get("provider") == row["provider"]]
        for mix in _mixes(inst, needs):
            inputs = TcoInputs(
                count=needs.gpus,
                hours_per_month=needs.hours_per_month,
                months=needs.months,
                mix=mix,
                spot_overhead=needs.spot_overhead,
                storage_gb=needs.storage_gb,
                egress_gb_per_month=needs.egress_gb_per_month,
                inter_region_gb_per_month=needs.inter_region_gb_per_month,
                side=needs.side,
                currency=needs.currency,
                risk=needs.risk,
            )
            costs, offer = best_offer(inst, refs, inputs, applicable)
            option = _option(row, inst, costs, offer, mix, needs, speed)
            key = (row["provider"], row["instance_type"], option["mix"])
            # One region per instance and mix: the cheapest.
            if key not in options or _rank_key(option) < _rank_key(options[key]):
                options[key] = option
    counts, no_throughput = _listed(fitting, refs, needs)
    if no_throughput:
        notes.append(f"left out, no throughput given for: {', '.join(sorted(no_throughput))}")
    ranked = sorted(options.values(), key=_rank_key)
    if not ranked and fitting and not buyable:
        raise UserError(
            "no instance that meets these needs can be rented now: each is sold out or has fewer host offers "
            "than the instances it takes; ask for fewer GPUs at once, or see `gpu-tracker prices`"
        )
    if not ranked:
        raise UserError("no instance in the store meets these needs; widen the region group, provider or GPU")
    region_counts = region_counts or counts
    if not needs.all_options:
        ranked = fold(ranked, also_sizes or {})
    for rank, option in enumerate(ranked, start=1):
        option["rank"] = rank
        key = (option["provider"], option["instance_type"], option["mix"])
        option["other_regions"] = region_counts[key] - 1
        option["why"] = _why(option, ranked[0], needs)
        for name in ("compute", "egress", "inter_region", "storage", "credits", "total"):
            option[name] = option[name].quantize(MONEY)
    return [{name: option.get(name) for name in RECOMMEND_COLUMNS} for option in ranked], notes


def _listed(fitting: list[dict[str, Any]], refs: References, needs: Needs) -> tuple[dict[tuple, int], set[str]]:
    """Of every fitting price, those that cannot supply the need now included
    (as `store.py` counts them): how many regions list each option (provider,
    instance type, mix), and the GPU models the throughput table does not name."""
    counts: dict[tuple, int] = {}
    no_throughput: set[str] = set()
    for inst in instance_rates(fitting, refs, needs.currency).values():
        row = inst.row
        if needs.throughput is not None and _throughput(row, needs) is None:
            no_throughput.add(str(row.get("gpu_model")))
            continue
        for mix in _mixes(inst, needs):
            key = (row["provider"], row["instance_type"], mix_label(mix))
            counts[key] = counts.get(key, 0) + 1
    return counts, no_throughput


def fold(
    ranked: list[dict[str, Any]], also_sizes: dict[tuple[str, Any, str], list[tuple[str, Decimal]]]
) -> list[dict[str, Any]]:
    """One option per provider, GPU model and kind of price (mix), the best;
    the (instance type, GPU count) of the others of the same in its `_also`,
    with those `also_sizes` names for its group (`store._folded_keys`: buyable
    options the store did not price)."""
    kept: dict[tuple, dict[str, Any]] = {}
    for option in ranked:
        group = (option["provider"], option["gpu_model"], option["mix"])
        if group in kept:
            kept[group]["_also"].append((option["instance_type"], option["gpu_count"]))
        else:
            kept[group] = {**option, "_also": list(also_sizes.get(group, []))}
    return list(kept.values())


def _also(option: dict[str, Any]) -> str | None:
    """'also as 4x, 2x, 1x': the sizes folded into this option, most GPUs
    first; by instance type where a GPU count would not tell them apart."""
    others = sorted(
        {t: c for t, c in option.get("_also") or [] if t != option["instance_type"]}.items(),
        key=lambda item: (-item[1], item[0]),
    )
    if not others:
        return None
    counts = [f"{c.normalize():f}x" for c in [option["gpu_count"], *(c for _, c in others)]]
    times = Counter(counts)  # counted once: a provider of 25,000 types of one GPU took 22 s with list.count
    labels = [count if times[count] == 1 else name for (name, _), count in zip(others, counts[1:], strict=True)]
    return "also as " + ", ".join(labels)


def _throughput(row: dict[str, Any], needs: Needs) -> Decimal | None:
    if needs.benchmark is not None:
        return needs.benchmark.speed(row)
    if needs.throughput is None:
        return None
    model = str(row.get("gpu_model") or "").lower()
    # "A100" in the table covers "A100 80GB" and "A100 40GB"; never "H100 NVL" for "H100".
    return needs.throughput.get(model) or needs.throughput.get(_MEMORY_SUFFIX.sub("", model))


def _option(
    row: dict[str, Any],
    inst: PricedInstance,
    costs: dict[str, Any],
    offer: Worth | None,
    mix: dict[str, Decimal],
    needs: Needs,
    speed: Decimal | None,
) -> dict[str, Any]:
    model = lookup(row.get("gpu_model"))
    tflops = model.compute_tflops if model else None
    gpu_hours = needs.gpus * needs.hours_per_month * needs.months
    total = costs["total"]
    samples = speed * needs.gpus * needs.hours_per_month * 3600 * needs.months if speed else None
    return {
        **costs,
        "gpu_memory_gb_per_gpu": row["memory_per_gpu"].normalize() if row.get("memory_per_gpu") else None,
        "usable_memory_gb_per_gpu": row.get("usable_memory"),
        "mix": mix_label(mix),
        "credit_offer": offer.offer_id if offer else None,
        "credit_conditions": offer.conditions if offer else None,
        "gpu_bf16_tflops": tflops,
        "per_tflop_hour": (total / gpu_hours / tflops).quantize(RATE) if tflops and gpu_hours else None,
        "samples_per_second": speed,
        "network": network_text(row),
        "_work": needs.benchmark.basis(row) if needs.benchmark else None,
        "cost_per_million_samples": (total / samples * 1_000_000).quantize(RATE) if samples else None,
        "_mix": mix,
        "_rates": inst.rates,
        "_offers": row.get("offer_count"),  # a marketplace group's (pandas: NaN for a list price)
    }


def _rank_key(option: dict[str, Any]) -> tuple:
    per_work = option["cost_per_million_samples"]
    return (
        per_work if per_work is not None else option["total"],
        option["total"],
        option["instances"],  # on a tie, fewer machines to run
        option["provider"],
        option["region"],
        option["instance_type"],
        option["mix"],
    )


def _why(option: dict[str, Any], first: dict[str, Any], needs: Needs) -> str:
    parts = []
    by_work = option["cost_per_million_samples"] is not None
    if option["rank"] == 1:
        unit = needs.benchmark.singular if needs.benchmark else "sample"
        parts.append(f"lowest cost per {unit}" if by_work else "lowest total")
    else:
        mine, best = (
            (option["cost_per_million_samples"], first["cost_per_million_samples"])
            if by_work
            else (option["total"], first["total"])
        )
        if mine == best:
            parts.append("same as #1")
        elif best:
            parts.append(f"{(mine - best) / best * 100:+.1f}% vs #1")
    if option.get("_work"):
        parts.append(option["_work"])
    if needs.nodes > 1:
        parts.append(f"{needs.nodes} nodes over {option['network']}")
    parts.extend(_fit_reasons(option, needs))
    parts.extend(_mix_reasons(option, needs))
    if option["credit_offer"]:
        saves = f"offer {option['credit_offer']} saves {option['credits'].quantize(MONEY)} {option['currency']}"
        parts.append(f"{saves} ({option['credit_conditions']})" if option["credit_conditions"] else saves)
    gpus_per_instance = Decimal(option["gpu_count"])
    if needs.workload == "training" and option["instances"] > 1 and gpus_per_instance < needs.gpus:
        parts.append(f"{option['instances']} instances: their GPUs meet over the network, not NVLink")
    if option["other_regions"]:
        parts.append(f"cheapest of {option['other_regions'] + 1} regions")
    also = _also(option)
    if also:
        parts.append(also)
    offers = option.get("_offers")
    if isinstance(offers, (int, float)) and offers == offers:  # a marketplace group (NaN: a list price)
        parts.append(f"marketplace: the lowest of {int(offers)} host offer{'s' if offers != 1 else ''}")
    return "; ".join(parts)


def _fit_reasons(option: dict[str, Any], needs: Needs) -> Iterable[str]:
    count = option["gpu_count"]
    if isinstance(count, Decimal) and is_fractional(count):
        yield f"a slice: {slice_label(count)}, priced per whole-GPU equivalent"
    usable = option["usable_memory_gb_per_gpu"]
    if needs.min_gpu_memory_gb is not None and usable is not None:
        share = needs.usable_memory_share.normalize()
        yield f"{usable:f} GB usable ({share:f} of {option['gpu_memory_gb_per_gpu']:f} GB) >= {needs.min_gpu_memory_gb:f} GB"


def _mix_reasons(option: dict[str, Any], needs: Needs) -> Iterable[str]:
    rates: dict[str, Decimal] = option["_rates"]
    on_demand = rates.get("on_demand")
    for model in option["_mix"]:
        if model == "spot":
            saving = f", {(1 - rates['spot'] / on_demand) * 100:.0f}% below on demand" if on_demand else ""
            yield f"spot{saving}; " + needs.spot_risk.why(option, option.get("interruption_cost"), option["currency"])
        elif model == "monthly":
            yield "monthly subscription, paid whatever the hours"
        elif model in ("reserved_1yr", "reserved_3yr"):
            be = option["break_even_1yr_hours" if model == "reserved_1yr" else "break_even_3yr_hours"]
            years = 1 if model == "reserved_1yr" else 3
            terms = math.ceil(needs.months / (12 * years))
            use = f"beats on demand above {be} h/month (you use {needs.hours_per_month.normalize():f})" if be else ""
            yield f"{terms} x {years}-year term" + (f", {use}" if use else "")
        elif model == "on_demand" and len(option["_mix"]) == 1:
            yield "on demand, no commitment"
