"""RunPod's GraphQL API, `POST https://api.runpod.io/graphql`: `{"data":
{...}}`, or `{"errors": [{"message"}]}`.

The queries are the ones RunPod's own Python SDK (runpod/api/queries/gpus.py:
`gpuTypes { id displayName memoryInGb securePrice communityPrice
secureSpotPrice communitySpotPrice lowestPrice(input: {gpuCount}) {...} }`)
and public catalogs (dstack's gpuhunt providers/runpod.py: `countryCodes`,
`dataCenters { id listed }`, `lowestPrice(input: {gpuCount, secureCloud,
dataCenterId | countryCode})` with `stockStatus`) send.
"""

from __future__ import annotations

from typing import Any

from spiders.pages import PageShapeError, load_json, member, objects, typed
from spiders.runpod.items import RunpodGpuType, RunpodStock

# The fields kept and their kinds; one of another kind reads as absent.
TYPE_FIELDS: dict[str, Any] = {"id": str, "displayName": str, "memoryInGb": int}
TYPE_FIELDS |= dict.fromkeys(("securePrice", "secureSpotPrice", "communityPrice", "communitySpotPrice"), "number")


def answer(body: bytes, what: str) -> dict[str, Any]:
    """The `data` of an answer; its first error, if it carries one, as a shape error."""
    page = load_json(body, f"runpod: the {what} answer")
    errors = member(page, "errors")
    if isinstance(errors, list) and errors:
        message = member(errors[0], "message") or "an error without a message"
        raise PageShapeError(f"runpod: the {what} query failed: {message}")
    data = member(page, "data")
    if not isinstance(data, dict):
        raise PageShapeError(f"runpod: the {what} answer has no data object")
    return data


def parse_catalog(body: bytes) -> tuple[list[RunpodGpuType], list[str], list[str]]:
    """The GPU types, the listed data centres and the community's country codes."""
    data = answer(body, "catalog")
    types: list[RunpodGpuType] = [
        typed(t, TYPE_FIELDS)  # type: ignore[misc]  # typed() checked each field's kind
        for t in objects(data, "gpuTypes")
        if isinstance(t.get("id"), str) and isinstance(t.get("displayName"), str)
    ]
    if not types:
        raise PageShapeError("runpod: the catalog lists no GPU type")
    centres = [c["id"] for c in objects(data, "dataCenters") if c.get("listed") and isinstance(c.get("id"), str)]
    codes = data.get("countryCodes")
    countries = [c for c in codes if isinstance(c, str) and c] if isinstance(codes, list) else []
    return types, centres, countries


def parse_stock(body: bytes, place: str, gpu_count: int) -> list[RunpodStock]:
    """Each GPU type's lowest price and stock in one place, for `gpu_count` GPUs;
    a type with no stock there (`stockStatus` null) is left out."""
    data = answer(body, "stock")
    found: list[RunpodStock] = []
    for gpu in objects(data, "gpuTypes"):
        lowest = gpu.get("lowestPrice")
        if not isinstance(lowest, dict) or not isinstance(gpu.get("id"), str):
            continue
        kept = typed(lowest, {"stockStatus": str, "uninterruptablePrice": "number", "minimumBidPrice": "number"})
        if not kept.get("stockStatus"):
            continue
        found.append({"gpu_type": gpu["id"], "place": place, "gpu_count": gpu_count, **kept})  # type: ignore[typeddict-item]  # typed() checked each field's kind
    return found
