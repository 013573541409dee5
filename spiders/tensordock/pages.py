"""TensorDock's hostnodes, `GET https://dashboard.tensordock.com/api/v2/hostnodes`
(Bearer token): `{"data": {"hostnodes": [{id, uptime_percentage,
available_resources: {gpus: [{v0Name, availableCount, price_per_hr}],
vcpu_count, ram_gb, storage_gb}, pricing: {per_vcpu_hr, per_gb_ram_hr,
per_gb_storage_hr}, location: {city, stateprovince, country, tier}}]}}`.

TensorDock's API documentation (dashboard.tensordock.com/api/docs, "Fetch
Hostnodes and Locations") shows the locations answer, with `v0Name`,
`price_per_hr`, the `pricing` rates and the location `tier`; the hostnode
fields are as public clients read them (see the captures' README).

The page flattens each hostnode to what the tracker reads. A hostnode
without an id, or a GPU entry without a name, a count or a price, is odd:
dropped here and counted.
"""

from __future__ import annotations

from typing import Any

from spiders.pages import PageShapeError, is_number, load_json, member, objects, typed
from spiders.tensordock.items import TensorDockGpu, TensorDockHostnode


def _gpus(node: dict[str, Any]) -> tuple[list[TensorDockGpu], int]:
    gpus: list[TensorDockGpu] = []
    odd = 0
    for gpu in objects(node, "available_resources", "gpus"):
        name, count, price = gpu.get("v0Name"), gpu.get("availableCount"), gpu.get("price_per_hr")
        if not isinstance(name, str) or not name or not isinstance(count, int) or not is_number(price):
            odd += 1
            continue
        gpus.append({"v0Name": name, "availableCount": count, "price_per_hr": price})
    return gpus, odd


def parse_hostnodes(body: bytes) -> tuple[list[TensorDockHostnode], int]:
    """The hostnodes of one answer, and how many odd entries were dropped."""
    page = load_json(body, "tensordock: the hostnodes answer")
    data = member(page, "data")
    if not isinstance(member(data, "hostnodes"), list):
        raise PageShapeError("tensordock: the answer has no data.hostnodes list")
    nodes: list[TensorDockHostnode] = []
    odd = 0
    for node in objects(data, "hostnodes"):
        if not isinstance(node.get("id"), str) or not node["id"]:
            odd += 1
            continue
        gpus, bad = _gpus(node)
        odd += bad
        where = node.get("location")
        location = typed(where, {"city": str, "country": str, "tier": int}) if isinstance(where, dict) else {}
        nodes.append(
            {
                "id": node["id"],
                "gpus": gpus,
                **location,  # type: ignore[typeddict-item]  # typed() checked each field's kind
                **typed(node, {"uptime_percentage": "number"}),
            }
        )
    return nodes, odd
