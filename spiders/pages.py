"""Page objects: pure functions from a saved response to raw items."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, TypeGuard


class PageShapeError(ValueError):
    """The response is not in the shape the page object knows."""


def only_one(found: set[str], *, none: str, several: str) -> str:
    """The single value a page names; none, or several, is a shape error
    (`several` may use {found}), never a guess."""
    if not found:
        raise PageShapeError(none)
    if len(found) > 1:
        raise PageShapeError(several.format(found=", ".join(sorted(found))))
    return next(iter(found))


def member(value: object, key: str) -> Any:
    """value[key] when value is a JSON object, else None: a member under a
    parent of the wrong shape reads as absent, and the caller's own check
    names what was expected."""
    return value.get(key) if isinstance(value, dict) else None


def json_type(value: object) -> str:
    """The JSON name of a parsed value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    names = {dict: "an object", list: "an array", str: "a string"}
    return next((n for t, n in names.items() if isinstance(value, t)), "a number")


def load_json(body: bytes | str, what: str, *, exact: bool = True) -> Any:
    """`body` parsed, numbers with a fraction as exact Decimals unless not
    `exact`. Anything else is a PageShapeError "<what> is not valid JSON",
    nesting deeper than the decoder's recursion limit included: that one is
    a RecursionError, not a ValueError, and a hostile server can send it."""
    try:
        return json.loads(body, parse_float=Decimal if exact else None)
    except (ValueError, RecursionError) as exc:
        raise PageShapeError(f"{what} is not valid JSON ({exc})") from None


def json_page(body: bytes, provider: str, list_key: str) -> dict[str, Any]:
    """A JSON object page holding a list under `list_key`; numbers with a
    fraction are read as exact Decimals."""
    page = load_json(body, f"{provider}: the page")
    if not isinstance(page, dict) or not isinstance(page.get(list_key), list):
        raise PageShapeError(f"{provider}: the page has no {list_key} list")
    return page


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


def is_number(value: object) -> TypeGuard[int | float | Decimal]:
    """A finite JSON number (a boolean is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return False
    return isinstance(value, int) or Decimal(str(value)).is_finite()


def typed(record: dict[str, Any], kinds: dict[str, Any]) -> dict[str, Any]:
    """The fields of `record` named in `kinds` whose value is of their kind
    (`number` for a finite number, else a type or a tuple of types); a field
    of another kind is left out, as if absent: optional fields stay optional,
    and the caller checks the ones it needs."""
    out = {}
    for name, kind in kinds.items():
        value = record.get(name)
        if value is None or (isinstance(value, bool) and kind is not bool):
            continue
        if (kind == "number" and is_number(value)) or (kind != "number" and isinstance(value, kind)):
            out[name] = value
    return out
