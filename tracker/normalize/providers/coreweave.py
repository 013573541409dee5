"""What an instance row on CoreWeave's pricing page means (spiders/coreweave/pages.py).

- Prices are of the whole instance per hour in US dollars ("$68.80" for an
  HGX B200 of 8 GPUs, so 8.60 per GPU-hour). "On-Demand Price" is stored
  as `on_demand` and "Spot Price" as `spot`, each from its own column or
  label. "N/A" or an empty cell means the instance is not sold that way
  (nothing stored, no note); "Contact sales" is left out with a note, and
  the instance's other price kept.
- "Inference Single GPU Price" (North America only) is per GPU and only for
  CoreWeave's inference platform customers (the page's footnote 2): no
  price model of ours is that, and it is not stored (docs/providers/coreweave.md).
- The GPU count, VRAM of one GPU, vCPUs and system RAM come from the row
  (GPU memory = count x VRAM), each optional. The GPU model and
  interconnect come from gpu_specs/coreweave.csv by the instance's name; a
  priced name the table lacks is stored without a GPU model, with a note.
- Each region table is its own region: "REGION: NORTH AMERICA" is stored
  as `north-america`, "REGION: EUROPE" as `europe`; a row under no heading
  as `north-america`, where CoreWeave's list prices are published. When
  the crawl names regions, the others are left out. No stock is published.
- One odd row is skipped with a note and its last prices kept: a GPU count
  that is not a whole number, a price we cannot read, the same instance
  twice in one region with other prices. When no instance can be priced
  the run fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

from db.schema import PriceModel, Unit
from spiders.coreweave.items import CoreWeaveItem, CoreWeaveRow
from tracker.normalize import Held, Normalized, NormalizeError, make_quote, parse_time
from tracker.normalize.specs import lookup

PROVIDER = "coreweave"
DEFAULT_REGION = "north-america"
_PRICE = re.compile(r"^\$\s*(\d[\d,]*(?:\.\d+)?)\s*(?:/\s*(?:hr|hour|h)\b.*)?$", re.IGNORECASE)
_MARK = re.compile(r"(?:\s*\^\s*\d+|[\u00b9\u00b2\u00b3\u2070-\u2079]+)$")  # a footnote mark: "4^1", "4¹"
NOT_SOLD = {"", "n/a", "na", "-", "\u2013", "\u2014"}
PRICES = (("price", PriceModel.on_demand), ("spot_price", PriceModel.spot))


def _number(text: str) -> Decimal | None:
    try:
        value = Decimal(_MARK.sub("", text).replace(",", "").strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() and value > 0 else None


def _amount(text: str) -> Decimal | None:
    match = _PRICE.match(text.strip())
    return Decimal(match.group(1).replace(",", "")) if match else None


def _slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")


def _fields(row: CoreWeaveRow, name: str, count: Decimal) -> dict[str, Any]:
    spec = lookup(PROVIDER, name)
    vram = _number(row["vram_gb"])
    return {
        "gpu_model": spec.gpu_model if spec else None,
        "gpu_interconnect": spec.gpu_interconnect if spec else None,
        "gpu_count": count,
        "gpu_memory_gb": count * vram if vram else (spec.gpu_memory_gb if spec else None),
        "vcpu": _number(row["vcpus"]),
        "memory_gb": _number(row["ram_gb"]),
    }


def _prices(row: CoreWeaveRow, name: str, region: str, out: Normalized) -> list[tuple[PriceModel, Decimal]]:
    """The row's (price model, amount) pairs; a note for each price we leave out."""
    found = []
    for key, model in PRICES:
        text = " ".join(row[key].split())  # type: ignore[literal-required]  # PRICES names CoreWeaveRow keys
        amount = _amount(text)
        if amount is not None and amount > 0:
            found.append((model, amount))
        elif "contact" in text.lower():
            out.notes.append(f"coreweave: {name} in {region}: its {model.value} price reads {text!r}; not stored")
        elif text.lower() not in NOT_SOLD:
            out.notes.append(f"coreweave: {name} in {region}: its {model.value} price reads {text!r}; kept as it was")
            out.held.append(Held(region, name, model.value))
    return found


def normalize(items: Iterable[CoreWeaveItem]) -> Normalized:
    out = Normalized()
    seen: dict[tuple[str, str], list[tuple[PriceModel, Decimal]]] = {}
    unknown: set[str] = set()
    rows = 0
    for item in items:
        if item.get("kind") != "coreweave.instance":
            raise NormalizeError(f"CoreWeave: unknown item kind {item.get('kind')!r}")
        row = item["data"]
        rows += 1
        region = _slug(row["region"]) or DEFAULT_REGION
        asked = item.get("regions") or []
        if asked and region not in asked:
            continue
        name = " ".join(row["name"].split())
        count = _number(row["gpu_count"])
        if not name or count is None or count != count.to_integral_value():
            out.notes.append(f"coreweave: {name or '?'} in {region} skipped: its GPU count reads {row['gpu_count']!r}")
            if name:
                out.held.append(Held(region, name))
            continue
        read = Normalized()  # its notes count once, not again for a repeated row
        prices = _prices(row, name, region, read)
        if (name, region) in seen:
            if prices != seen[(name, region)]:
                out.notes.append(f"coreweave: {name} is listed twice in {region} with other prices; the second skipped")
            continue
        seen[(name, region)] = prices
        out.notes.extend(read.notes)
        out.held.extend(read.held)
        if not prices:
            continue
        if lookup(PROVIDER, name) is None:
            unknown.add(name)
        common = {
            "region": region,
            "instance_type": name,
            "unit": Unit.hour,
            "currency": "USD",
            "source_url": item["source_url"],
            "observed_at": parse_time(item["observed_at"]),
            **_fields(row, name, count),
        }
        for model, amount in prices:
            out.quotes.append(make_quote(PROVIDER, price_model=model, price=amount, **common))
    out.notes.extend(f"coreweave: no GPU spec for {n}; stored without the GPU model" for n in sorted(unknown))
    if not out.quotes:
        raise NormalizeError(f"CoreWeave: none of the {rows} GPU instance rows could be priced")
    return out
