"""TensorDock hostnodes -> marketplace aggregates (tracker/normalize/market.py).

A hostnode states, per GPU model (`v0Name`), how many GPUs it has free
(`availableCount`) at what price each per hour (`price_per_hr`). A renter
takes 1 to `availableCount` of them, so one hostnode is one offer in each
standard group it can fill: 1, 2, 4 and 8 GPUs (a hostnode with 3 free is
an offer of 1 and of 2). The price stored is the GPUs' own: TensorDock bills
vCPUs, RAM and storage per unit on top, at rates each host sets.

Groups: the macro region of the location's country, GPU, count and the
location's tier (`tier-3`). `gpu_specs/tensordock.csv` maps `v0Name` to the
datasheet's GPU model.
"""

from __future__ import annotations

from collections.abc import Iterable

from spiders.tensordock.items import TensorDockHostnode, TensorDockItem
from tracker.normalize import Normalized, NormalizeError
from tracker.normalize.market import MarketOffer, country_code, macro_region, normalized, scope
from tracker.normalize.money import MoneyError, to_decimal
from tracker.normalize.specs import spec_table

PROVIDER = "tensordock"
MARKET_URL = "https://dashboard.tensordock.com/deploy"
COUNTS = (1, 2, 4, 8)


def _offers(node: TensorDockHostnode, notes: list[str]) -> list[MarketOffer]:
    country = country_code(node.get("country"))
    region = macro_region(country) if country else "other"
    tier = f"tier-{node['tier']}" if isinstance(node.get("tier"), int) else ""
    found = []
    for gpu in node["gpus"]:
        try:
            price = to_decimal(gpu["price_per_hr"], what="price_per_hr")
        except MoneyError as exc:
            notes.append(f"tensordock: hostnode {node['id']}: {gpu['v0Name']} skipped: {exc}")
            continue
        if price <= 0:
            notes.append(f"tensordock: hostnode {node['id']}: {gpu['v0Name']} skipped: price {price}")
            continue
        spec = spec_table(PROVIDER).get(gpu["v0Name"].lower())
        for count in COUNTS:
            if count > gpu["availableCount"]:
                break
            found.append(
                MarketOffer(
                    region=region,
                    gpu_label=gpu["v0Name"],
                    gpu_count=count,
                    hourly=price * count,
                    gpu_model=spec.gpu_model if spec else None,
                    gpu_memory_gb=spec.gpu_memory_gb if spec else None,
                    tier=tier,
                    country=country,
                )
            )
    return found


def normalize(items: Iterable[TensorDockItem]) -> Normalized:
    items = list(items)
    if not items:
        raise NormalizeError("tensordock: the crawl returned no hostnodes")
    notes: list[str] = []
    wanted = {r for i in items for r in i.get("regions") or []}
    offers = [o for i in items for o in _offers(i["data"], notes) if not wanted or o.region in wanted]
    return normalized(
        PROVIDER, offers, items, currency="USD", source_url=MARKET_URL, notes=notes, regions=scope(wanted)
    )
