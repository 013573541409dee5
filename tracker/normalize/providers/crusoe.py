"""What Crusoe Cloud's pricing page and API answers mean.

- The pricing page prices each GPU per GPU-hour, on demand: its card's first
  price block ("$3.90/GPU-hr"). A card that says "Contact sales" prices
  nothing (noted). Cards that name no NVIDIA or AMD GPU (CPU, storage) are
  not GPU offers and are left out.
- Only the VM GPU cards are read: those under the page's GPU instances
  section (a card the page object found no section for, in the older layout,
  counts as one). The page's other tables reuse the card: its "Self-Serve
  Deployments" cards carry GPU headings ("NVIDIA H100", "80GB", "HGX") but
  price a managed inference endpoint ("$5.50" an hour, not per GPU-hour):
  they are left out with a note, whatever their price says.
- The API's VM types (`product_name` "h100-80gb-sxm-ib.8x", `num_gpu`,
  `gpu_type` "H100-SXM-80GB", `cpu_cores`, `memory_gb`) are priced by their
  GPU: num_gpu times the per-GPU-hour price of the card with the same GPU
  and memory ("NVIDIA H100" with tag "80GB"); where two cards share them
  (A100 80GB SXM and PCIe) the PCIe tag decides. A type whose GPU no card
  prices is skipped with a note; CPU types are left out.
- Stock: `/capacities` states, per type and location, how many can be
  launched now (`quantity`; of several entries for one type and location the
  largest counts). Each GPU type is stored in every location its capacities
  name: `available` when the quantity is above zero, `sold_out` at zero, so
  "8 x H100 available again in us-east1-a" is a change a person is told of.
  The crawl's regions, when given, narrow the locations.
- GPU figures come from the type; gpu_specs/crusoe.csv adds the interconnect
  of the multi-GPU types.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from decimal import Decimal
from typing import cast

from db.schema import PriceModel, PriceQuote
from spiders.crusoe.items import CrusoeCapacityItem, CrusoeItem, CrusoePriceItem, CrusoeTypeItem, VmType
from tracker.normalize import Normalized, NormalizeError, spec_quote
from tracker.normalize.money import whole_number
from tracker.normalize.specs import GpuSpec, lookup

PROVIDER = "crusoe"
# (GPU, memory in GB) -> our GPU model name
GPU_MODELS = {
    ("A100", 40): "A100 40GB",
    ("A100", 80): "A100 80GB",
    ("A40", 48): "A40",
    ("B200", 180): "B200",
    ("GB200", 186): "GB200",
    ("H100", 80): "H100",
    ("H200", 141): "H200",
    ("L40S", 48): "L40S",
    ("MI300X", 192): "MI300X",
}
_VENDOR = re.compile(r"^(?:NVIDIA|AMD)\s+(?P<model>[A-Za-z0-9]+)", re.I)
_GB = re.compile(r"\b(\d+)\s*GB\b", re.I)
_PRICE = re.compile(r"^\$\s*(\d+(?:\.\d+)?)\s*/\s*GPU[- ]?(?:hr|hour)\b", re.I)
_TYPE_GPU = re.compile(r"^(?P<model>[A-Za-z0-9]+)(?:[-_][A-Za-z]+)*[-_](?P<gb>\d+)GB$", re.I)
_PRODUCT = re.compile(r"^(?P<model>[a-z0-9]+)-(?P<gb>\d+)gb\b", re.I)
_GPU_SECTION = re.compile(r"\bGPU\s+instances?\b", re.I)


class Card:
    """A priced GPU card of the pricing page."""

    def __init__(self, item: CrusoePriceItem, model: str, gb: int, pcie: bool, price: Decimal) -> None:
        self.item, self.model, self.gb, self.pcie, self.price = item, model, gb, pcie, price


def vm_section(section: object) -> bool:
    """Whether a card's section heading is the GPU instances table's (no heading: the older layout)."""
    return not section or bool(_GPU_SECTION.search(str(section)))


def read_card(item: CrusoePriceItem, notes: list[str]) -> Card | None:
    data = item["data"]
    name = str(data.get("name") or "")
    found = _VENDOR.match(name)
    if not found:
        return None  # a CPU, storage or service card
    if not vm_section(data.get("section")):
        notes.append(
            f"crusoe: card {name!r} under {str(data.get('section')).strip()!r} is not a GPU instance"
            f" (a managed product priced {', '.join(map(str, data.get('prices') or [])) or 'nothing'}); left out"
        )
        return None
    tags = (
        [str(t) for t in data.get("tags") or [] if isinstance(t, (str, int))]
        if isinstance(data.get("tags"), list)
        else []
    )
    words = " ".join([name, *tags])
    memory = _GB.search(words)
    shown = " ".join([name, *tags])
    if memory is None:
        notes.append(f"crusoe: card {shown!r} skipped: it states no GPU memory")
        return None
    prices = [str(p) for p in data["prices"]] if isinstance(data.get("prices"), list) else []
    price = _PRICE.match(prices[0].strip()) if prices else None
    if price is None:
        said = prices[0] if prices else "no price"
        notes.append(f"crusoe: card {shown!r} gives no price per GPU-hour ({said!r})")
        return None
    pcie = "PCIE" in words.upper()
    return Card(item, found["model"].upper(), int(memory.group(1)), pcie, Decimal(price.group(1)))


def type_gpu(kind: VmType) -> tuple[str, int, bool] | None:
    """(GPU, memory GB, PCIe) of a VM type, from gpu_type ("H100-SXM-80GB")
    or, when that names no memory, the product name ("a100-80gb-sxm-ib.8x")."""
    gpu_type = str(kind.get("gpu_type") or "")
    found = _TYPE_GPU.match(gpu_type) or _PRODUCT.match(str(kind.get("product_name") or ""))
    if found is None:
        return None
    return found["model"].upper(), int(found["gb"]), "PCIE" in gpu_type.upper()


def price_of(gpu: tuple[str, int, bool], cards: list[Card]) -> Card | None:
    model, gb, pcie = gpu
    same = [c for c in cards if (c.model, c.gb) == (model, gb)]
    if len(same) > 1:
        same = [c for c in same if c.pcie == pcie]
    return same[0] if len(same) == 1 else None


def derived_spec(kind: VmType, gpu: tuple[str, int, bool], count: int) -> GpuSpec:
    name = str(kind["product_name"])
    cores, memory = whole_number(kind.get("cpu_cores")), whole_number(kind.get("memory_gb"))
    spec = GpuSpec(
        instance_type=name,
        gpu_model=GPU_MODELS.get(gpu[:2]),
        gpu_count=Decimal(count),
        gpu_memory_gb=Decimal(gpu[1] * count),
        vcpu=Decimal(cores) if cores else None,
        memory_gb=Decimal(memory) if memory else None,
        gpu_interconnect="PCIe" if count == 1 else None,
        network_gbps=None,
    )
    table = lookup(PROVIDER, name)
    if table is None:
        return spec
    return replace(spec, gpu_interconnect=table.gpu_interconnect, network_gbps=table.network_gbps)


def stock(items: list[CrusoeCapacityItem], notes: list[str]) -> dict[str, dict[str, int]]:
    """type -> location -> the largest quantity stated."""
    found: dict[str, dict[str, int]] = defaultdict(dict)
    for item in items:
        data = item["data"]
        kind, location, quantity = data.get("type"), data.get("location"), whole_number(data.get("quantity"))
        if not isinstance(kind, str) or not isinstance(location, str) or quantity is None or quantity < 0:
            notes.append(f"crusoe: a capacity entry skipped: {dict(data)!r}")
            continue
        found[kind][location] = max(found[kind].get(location, 0), quantity)
    return found


def type_quotes(
    item: CrusoeTypeItem, cards: list[Card], capacity: dict[str, int], wanted: set[str]
) -> list[PriceQuote]:
    kind = item["data"]
    count = whole_number(kind.get("num_gpu"))
    gpu = type_gpu(kind)
    if count is None or count <= 0:
        raise NormalizeError(f"its num_gpu is {kind.get('num_gpu')!r}")
    if gpu is None or gpu[:2] not in GPU_MODELS:
        raise NormalizeError(f"its GPU {kind.get('gpu_type')!r} is not one we know")
    card = price_of(gpu, cards)
    if card is None:
        raise NormalizeError(f"no card of the pricing page prices its {kind.get('gpu_type')}")
    spec = derived_spec(kind, gpu, count)
    locations = sorted(loc for loc in capacity if not wanted or loc in wanted)
    return [
        spec_quote(
            PROVIDER,
            card.item,
            spec,
            region=location,
            price_model=PriceModel.on_demand,
            price=card.price * count,
            currency="USD",
            availability="available" if capacity[location] > 0 else "sold_out",
        )
        for location in locations
    ]


def normalize(items: Iterable[CrusoeItem]) -> Normalized:
    out = Normalized()
    by_kind: dict[str, list[CrusoeItem]] = defaultdict(list)
    for item in items:
        if not isinstance(item.get("data"), dict):
            out.notes.append(f"crusoe: a {item.get('kind')} record that is not an object skipped")
            continue
        by_kind[str(item.get("kind"))].append(item)
    unknown = set(by_kind) - {"crusoe.price", "crusoe.type", "crusoe.capacity"}
    if unknown:
        raise NormalizeError(f"Crusoe: unknown item kind {sorted(unknown)[0]!r}")
    if not by_kind["crusoe.price"]:
        raise NormalizeError("Crusoe: the pricing page listed no GPU card")
    if not by_kind["crusoe.type"]:
        raise NormalizeError("Crusoe: the API listed no VM type")
    # Each kind's records are of its own shape (spiders/crusoe/items.py).
    prices = cast(list[CrusoePriceItem], by_kind["crusoe.price"])
    types = cast(list[CrusoeTypeItem], by_kind["crusoe.type"])
    cards = [c for c in (read_card(i, out.notes) for i in prices) if c is not None]
    capacities = stock(cast(list[CrusoeCapacityItem], by_kind["crusoe.capacity"]), out.notes)
    wanted = set(types[0].get("regions") or [])
    for vm in types:
        kind = vm["data"]
        name = kind.get("product_name")
        if kind.get("num_gpu") in (0, None):
            continue  # a CPU type
        if not isinstance(name, str) or not name:
            out.notes.append("crusoe: a VM type with no product_name skipped")
            continue
        try:
            out.quotes.extend(type_quotes(vm, cards, capacities.get(name, {}), wanted))
        except NormalizeError as exc:
            out.notes.append(f"crusoe: type {name} skipped: {exc}")
    if not out.quotes:
        raise NormalizeError("Crusoe: no GPU type could be priced in a location; " + "; ".join(out.notes[:3]))
    return out
