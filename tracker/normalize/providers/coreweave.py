"""What an instance on CoreWeave's pricing page means.

- "On-Demand Price" (or the table's last cell) is the on-demand price of the
  whole instance per hour in US dollars ("$49.24", "$49.24/hr"); "Spot
  Price", where the page shows one, is the spot price per hour.
- The GPU count, VRAM of one GPU, vCPUs and system RAM come from the page
  (GPU memory = count x VRAM); each is optional, and a missing one is left
  empty (the spec table's figure stands in for GPU memory). The GPU model
  and interconnect come from gpu_specs/coreweave.csv by the instance's name
  ("NVIDIA HGX H100"); a name the table lacks is stored without a GPU model,
  with a note.
- The page prices one region: the one it names ("Region: North America" is
  stored as `north-america`), else `north-america`, where CoreWeave's list
  prices are published. No stock is published.
- One odd instance (no GPU count, no price we can read) is skipped with a
  note; a price that reads "Contact sales" is left out with a note, and the
  other price of the instance kept; when no instance can be priced the run
  fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from db.schema import PriceModel, Unit
from spiders.coreweave.items import CoreWeaveItem
from tracker.normalize import Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.specs import lookup

PROVIDER = "coreweave"
DEFAULT_REGION = "north-america"
_PRICE = re.compile(r"^\$\s*(\d[\d,]*(?:\.\d+)?)\s*(?:/\s*(?:hr|hour|h)\b.*)?$", re.IGNORECASE)


def _number(text: str) -> Decimal | None:
    try:
        value = Decimal(text.replace(",", "").strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() and value > 0 else None


def _amount(text: str) -> Decimal | None:
    match = _PRICE.match(text.strip())
    return Decimal(match.group(1).replace(",", "")) if match else None


def _slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")


def _fields(row: Any, name: str) -> dict[str, Any]:
    spec = lookup(PROVIDER, name)
    count = _number(row["gpu_count"])
    vram = _number(row["vram_gb"])
    return {
        "gpu_model": spec.gpu_model if spec else None,
        "gpu_interconnect": spec.gpu_interconnect if spec else None,
        "gpu_count": count,
        "gpu_memory_gb": count * vram if count and vram else (spec.gpu_memory_gb if spec else None),
        "vcpu": _number(row["vcpus"]),
        "memory_gb": _number(row["ram_gb"]),
    }


def normalize(items: Iterable[CoreWeaveItem]) -> Normalized:
    out = Normalized()
    seen = 0
    unknown: set[str] = set()
    for item in items:
        if item.get("kind") != "coreweave.instance":
            raise NormalizeError(f"CoreWeave: unknown item kind {item.get('kind')!r}")
        row = item["data"]
        seen += 1
        name = row["name"] or "?"
        count = _number(row["gpu_count"])
        if not row["name"] or count is None or count != count.to_integral_value():
            out.notes.append(f"coreweave: {name} skipped: its GPU count reads {row['gpu_count']!r}")
            continue
        variants = []
        for model, text in ((PriceModel.on_demand, row["price"]), (PriceModel.spot, row["spot_price"])):
            amount = _amount(text) if text else None
            if amount is not None:
                variants.append((model, amount))
            elif text or model is PriceModel.on_demand:
                out.notes.append(f"coreweave: {name}: its {model.value} price reads {text!r}; not stored")
        if not variants:
            continue
        if lookup(PROVIDER, name) is None:
            unknown.add(name)
        common = {
            "region": _slug(row["region"]) if row["region"] else DEFAULT_REGION,
            "instance_type": name,
            "unit": Unit.hour,
            "currency": "USD",
            "source_url": item["source_url"],
            "observed_at": parse_time(item["observed_at"]),
            **_fields(row, name),
        }
        for model, amount in variants:
            out.quotes.append(make_quote(PROVIDER, price_model=model, price=amount, **common))
    out.notes.extend(f"coreweave: no GPU spec for {n}; stored without the GPU model" for n in sorted(unknown))
    if not out.quotes:
        raise NormalizeError(f"CoreWeave: none of the {seen} GPU instances could be priced")
    return out
