"""Which current prices can hold a job at all: Linux rows, whole GPUs for a
need of whole GPUs (a slice of a shared GPU for a need below one GPU), and
enough usable memory per GPU.

Usable memory is the GPU's memory times a share (`USABLE_MEMORY_SHARE`,
0.9 by default: the part vLLM takes by default, `gpu_memory_utilization`;
the rest goes to the CUDA context, the driver and fragmentation). A need of
80 GB therefore does not fit an 80 GB card.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from tracker.analytics.compare import is_fractional
from tracker.analytics.facts.gpu_models import lookup
from tracker.errors import UserError

USABLE_MEMORY_SHARE = Decimal("0.9")
_SHOWN = 4  # instance types named in a note; the rest are counted


def check_gpus(gpus: Decimal) -> None:
    """A job needs whole GPUs, or one share of a single GPU below one."""
    if gpus <= 0 or (gpus > 1 and is_fractional(gpus)):
        raise UserError(f"--gpus must be a whole number, or a share of one GPU below 1 such as 0.5 (got {gpus:f})")


def _count(value: Any) -> Decimal | None:
    # Frames hold Decimals, None or NaN (a float) where a count is unknown.
    return value if isinstance(value, Decimal) and value > 0 else None


def gpu_memory(row: dict[str, Any]) -> Decimal | None:
    """Datasheet GB of memory per GPU; for a slice, the slice's own memory."""
    count, memory = _count(row.get("gpu_count")), row.get("gpu_memory_gb")
    if count is None:
        return None
    if isinstance(memory, Decimal) and memory > 0:
        return memory if is_fractional(count) else memory / count
    model = lookup(row.get("gpu_model"))
    if model is None or model.memory_gb is None:
        return None
    return model.memory_gb * count if is_fractional(count) else model.memory_gb


def slice_label(count: Decimal) -> str:
    """'1/6 of one GPU' for 0.1666..., '0.4 of one GPU' where no 1/n fits."""
    whole = (1 / count).to_integral_value()
    if abs(1 / count - whole) < Decimal("0.001"):
        return f"1/{whole:f} of one GPU"
    return f"{count.normalize():f} of one GPU"


def _names(rows: list[dict[str, Any]]) -> str:
    types = sorted({str(r["instance_type"]) for r in rows})
    more = f" and {len(types) - _SHOWN} more" if len(types) > _SHOWN else ""
    return ", ".join(types[:_SHOWN]) + more


def fit(
    prices: list[dict[str, Any]], gpus: Decimal, min_memory: Decimal | None, share: Decimal
) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows that can hold the job, each with `memory_per_gpu` and
    `usable_memory`, in their order; and notes of what was left out and why.
    One sentence when nothing fits."""
    if not prices:
        raise UserError("no current prices match; crawl a source first (or try `gpu-tracker demo`)")
    counted = [(r, c) for r in prices if r.get("os", "linux") == "linux" and (c := _count(r.get("gpu_count")))]
    notes: list[str] = []
    if gpus >= 1:
        slices = [r for r, c in counted if is_fractional(c)]
        if slices:
            notes.append(f"left out, slices of a shared GPU cannot make {gpus:f} whole GPU(s): {_names(slices)}")
        counted = [(r, c) for r, c in counted if not is_fractional(c)]
    else:
        small = [r for r, c in counted if c < gpus]
        if small:
            notes.append(f"left out, slices smaller than {gpus:f} of one GPU: {_names(small)}")
        counted = [(r, c) for r, c in counted if not c < gpus]
    if not counted:
        raise UserError("no current price is for whole GPUs; ask for a share of one GPU, e.g. --gpus 0.5")
    rows = []
    for row, _ in counted:
        memory = gpu_memory(row)
        usable = (memory * share).quantize(Decimal("0.1")) if memory is not None else None
        rows.append({**row, "memory_per_gpu": memory, "usable_memory": usable})
    if min_memory is None:
        return rows, notes
    enough = [r for r in rows if r["usable_memory"] is not None and r["usable_memory"] >= min_memory]
    if not enough:
        known = [
            (r["usable_memory"], r["memory_per_gpu"], r["gpu_model"]) for r in rows if r["usable_memory"] is not None
        ]
        most = ""
        if known:
            top = max(known, key=lambda k: k[0])
            most = f" (the most: {top[0]:f} GB usable of {top[1].normalize():f} GB, {top[2]})"
        raise UserError(
            f"no GPU in the store has {min_memory:f} GB of usable memory per GPU{most}; "
            "lower --min-gpu-memory, raise --usable-memory-share or split the model across more GPUs"
        )
    if len(enough) < len(rows):
        short = {r["instance_type"] for r in rows if r["usable_memory"] is None or r["usable_memory"] < min_memory}
        notes.append(f"left out, less than {min_memory:f} GB usable per GPU: {len(short)} types")
    return enough, notes


def instances_for(gpus: Decimal, gpu_count: Decimal) -> int:
    """How many instances of `gpu_count` GPUs a need of `gpus` takes (one for a slice)."""
    return max(1, math.ceil(gpus / gpu_count))


def _offers(row: dict[str, Any]) -> int | None:
    # A marketplace group's offer count; None for a list price (pandas: NaN).
    value = row.get("offer_count")
    if value is None or value != value:
        return None
    return int(value)


def short_of_stock(row: dict[str, Any], gpus: Decimal) -> str | None:
    """Why this price cannot supply the instances a need of `gpus` takes now,
    or None when it can: the provider states it sold out, or it is a
    marketplace group with fewer host offers than instances (one offer rents
    one instance of the group's GPU count)."""
    if row.get("availability") == "sold_out":
        return "sold out"
    offers = _offers(row)
    if offers is not None:
        needed = instances_for(gpus, row["gpu_count"])
        if offers < needed:
            return f"{offers} host offer{'s' if offers != 1 else ''} for {needed} instances"
    return None


def in_stock(rows: list[dict[str, Any]], gpus: Decimal) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows that can supply the instances the need takes now, and a note
    naming the instance types left out where they cannot (sold out, or a
    marketplace group with fewer host offers than instances)."""
    kept: list[dict[str, Any]] = []
    short: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        reason = short_of_stock(row, gpus)
        if reason is None:
            kept.append(row)
        else:
            short.setdefault("sold out" if reason == "sold out" else "offers", []).append(row)
    return kept, stock_notes(short.get("sold out", []), short.get("offers", []), gpus)


def stock_notes(sold_out: list[dict[str, Any]], few_offers: list[dict[str, Any]], gpus: Decimal) -> list[str]:
    """The notes of `in_stock`, from the rows left out for each reason."""
    notes = []
    if few_offers:
        named = sorted(
            {
                f"{r['instance_type']} ({_offers(r)} offer{'s' if _offers(r) != 1 else ''}, "
                f"{instances_for(gpus, r['gpu_count'])} needed)"
                for r in few_offers
            }
        )
        more = f" and {len(named) - _SHOWN} more" if len(named) > _SHOWN else ""
        notes.append(
            "not ranked where a marketplace group has fewer host offers than the instances needed: "
            + ", ".join(named[:_SHOWN])
            + more
        )
    if sold_out:
        notes.append(f"not ranked where sold out: {_names(sold_out)}")
    return notes
