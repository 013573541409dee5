"""Typed reads of the official APIs' JSON answers: a value of the wrong JSON
type is a PageShapeError naming it, never a TypeError."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from spiders.pages import PageShapeError, json_type, member


def path_list(value: Any, *path: str) -> list[Any]:
    """The list at `path` under `value`; absent is empty, another type an error."""
    for key in path:
        value = member(value, key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise PageShapeError(f"{'.'.join(path)} is {json_type(value)}, not an array")
    return value


def objects(value: Any, *path: str) -> list[dict[str, Any]]:
    """`path_list`, every element a JSON object."""
    found = path_list(value, *path)
    if not all(isinstance(v, dict) for v in found):
        raise PageShapeError(f"{'.'.join(path)} holds something that is not an object")
    return found


def name(value: Any, what: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise PageShapeError(f"{what} is {json_type(value) if value != '' else 'empty'}, not a name")
    return value


def count(value: Any, what: str) -> Decimal:
    """A JSON number (0 when absent)."""
    if value is None:
        return Decimal(0)
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise PageShapeError(f"{what} is {json_type(value)}, not a number")
    number = Decimal(str(value))
    if not number.is_finite():
        raise PageShapeError(f"{what} is not a finite number")
    return number
