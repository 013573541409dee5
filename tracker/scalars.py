"""How one value is written in JSON and CSV: Decimals as exact strings, times
as ISO 8601 in UTC, enums by value. The CLI's listings and `export` files
both follow it, so it lives below both rather than in either."""

from __future__ import annotations

import re
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


# A CSV cell a spreadsheet would take for a formula begins with one of these
# (OWASP, "CSV Injection"): it is written with a leading apostrophe, which
# the spreadsheet shows as text. A plain number (-5, -0.25) is left as it is.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[-+]?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def inert(cell: Any) -> Any:
    """A CSV cell that no spreadsheet runs as a formula."""
    if isinstance(cell, str) and cell.startswith(FORMULA_START) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell
