"""Lambda Cloud API answers (`{"data": ...}`, or `{"error": {code, message}}`).

- `GET /api/v1/instance-types`: `data` is an object keyed by instance type
  name; each value is an `InstanceTypesItem`, `{instance_type: {name,
  description, gpu_description, price_cents_per_hour, specs: {vcpus,
  memory_gib, storage_gib, gpus}}, regions_with_capacity_available:
  [{name, description}]}`.
- `GET /api/v1/regions`: `data` is a list of `{name, description}`.

The records are returned as seen; whether one can be priced is the
normalizer's question (one odd type is skipped there, never the page).
"""

from __future__ import annotations

from typing import Any

from spiders.lambda_.items import LambdaRegion, LambdaTypeRecord
from spiders.pages import PageShapeError, json_type, load_json, member


def api_error(body: bytes) -> str | None:
    """'code: message' of an error answer, or None when the body is not one."""
    try:
        page = load_json(body, "Lambda: the answer", exact=False)
    except PageShapeError:
        return None
    error = member(page, "error")
    if not isinstance(error, dict):
        return None
    return f"{error.get('code') or '?'}: {error.get('message') or ''}".strip()


def _data(body: bytes, what: str) -> Any:
    page = load_json(body, f"Lambda: the {what} answer")
    if not isinstance(page, dict) or "data" not in page:
        raise PageShapeError(f"Lambda: the {what} answer has no data member")
    return page["data"]


def parse_instance_types(body: bytes) -> list[LambdaTypeRecord]:
    data = _data(body, "instance-types")
    if not isinstance(data, dict):
        raise PageShapeError(f"Lambda: instance-types data is {json_type(data)}, not an object")
    if not data:
        raise PageShapeError("Lambda: instance-types data is empty")
    records: list[LambdaTypeRecord] = []
    for key, value in data.items():
        record: Any = {**value, "key": key} if isinstance(value, dict) else {"key": key, "value": value}
        records.append(record)
    return records


def parse_regions(body: bytes) -> list[LambdaRegion]:
    data = _data(body, "regions")
    if not isinstance(data, list):
        raise PageShapeError(f"Lambda: regions data is {json_type(data)}, not an array")
    names = [member(r, "name") for r in data]
    if not all(isinstance(n, str) and n for n in names):
        raise PageShapeError("Lambda: a region has no name")
    return data
