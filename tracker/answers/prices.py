"""The `prices` answer's rows and columns: a stored price as both faces show
it, with the reason it is held as suspect (`gpu-tracker prices`, the
dashboard's prices page and /api/prices; each reads its prices its own way:
the command all that match, the dashboard a page in SQL)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tracker.answers.columns import PRICE_COLUMNS, PRICE_TABLE
from tracker.answers.rows import price_dict

COLUMNS, TABLE = PRICE_COLUMNS, PRICE_TABLE


def rows(stored: Sequence[dict[str, Any]], held: Mapping[tuple[str, str], str]) -> list[dict[str, Any]]:
    """The stored prices as `COLUMNS` rows, `suspect` the reason of each one
    held as suspect (`held`: by source and key, as `db.store.writes.suspects.reasons` gives them)."""
    found = [price_dict(p) for p in stored]
    for row, p in zip(found, stored, strict=True):
        row["suspect"] = held.get((str(p.get("source")), str(p.get("key"))))
    return found


def short(reason: str | None) -> str | None:
    """'11.1x below market' of a suspect price's reason, for the table."""
    if not reason:
        return None
    words = reason.split(" is ", 1)[-1].split(" the ", 1)[0]
    return f"{words} market"


def empty(suspect: bool) -> str:
    return "no price is held as suspect" if suspect else "no prices match"
