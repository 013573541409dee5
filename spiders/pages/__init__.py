"""Page objects: pure functions from a saved response to raw items."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any


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


def json_page(body: bytes, provider: str, list_key: str) -> dict[str, Any]:
    """A JSON object page holding a list under `list_key`; numbers with a
    fraction are read as exact Decimals."""
    try:
        page = json.loads(body, parse_float=Decimal)
    except ValueError as exc:
        raise PageShapeError(f"{provider}: the page is not valid JSON ({exc})") from None
    if not isinstance(page, dict) or not isinstance(page.get(list_key), list):
        raise PageShapeError(f"{provider}: the page has no {list_key} list")
    return page
