"""How one value is written in JSON and CSV: Decimals as exact strings, times
as ISO 8601 in UTC, enums by value. The CLI's listings and `export` files
both follow it, so it lives below both rather than in either."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import Any


def plain(value: Any) -> Any:
    """A JSON-ready scalar."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, Enum):
        return value.value
    return value
