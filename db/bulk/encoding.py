"""How the bulk path writes a quote: one tuple of stored columns per quote
(`StagedQuote`), Decimals and enums as text, attrs as JSON, in the column
order of `PRICE_COLUMNS`; no model instance per row, which would cost more
than the row's insert. The value types (`db/schema.py`) say what a quote
is; this module says how its row is spelled.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any, NamedTuple

from db.schema import PriceQuote
from db.store.reads.reader import PRICE_DECIMALS

# A quote's fields as the store writes them: Decimals and enums as text.
STORED_FIELDS = tuple(name for name in PriceQuote.model_fields if name not in ("observed_at", "attrs"))
# Which of them are exact numbers: named once, where the ORM-free reader needs them.
DECIMAL_FIELDS = PRICE_DECIMALS
_POSITION = {name: i for i, name in enumerate(STORED_FIELDS)}
_DECIMAL_SET = frozenset(DECIMAL_FIELDS)


def decimal_text(value: Decimal | None) -> str | None:
    """A Decimal written out in full, never as an exponent (format "f", but
    faster: str() writes the same digits unless it chose an exponent)."""
    if value is None:
        return None
    text = str(value)
    return format(value, "f") if "E" in text else text


# Enums are written as their plain value, whatever a driver makes of a str subclass.
_TO_TEXT = tuple(
    decimal_text if name in _DECIMAL_SET else str if name in ("price_model", "unit") else None for name in STORED_FIELDS
)


def stored_columns(fields: Mapping[str, Any]) -> tuple[Any, ...]:
    """A quote's STORED_FIELDS as the store writes them, then attrs as JSON."""
    attrs = fields["attrs"]
    return (
        *[fields[name] if to_text is None else to_text(fields[name]) for name, to_text in zip(STORED_FIELDS, _TO_TEXT)],
        json.dumps(attrs, sort_keys=True, ensure_ascii=False) if attrs else "{}",
    )


class StoredFields(Mapping[str, Any]):
    """A staged quote's fields read by name from its stored columns:
    Decimals back as Decimals, enums as their values, attrs as a dict.
    (No observed_at: the run has one.)"""

    __slots__ = ("columns",)

    def __init__(self, columns: tuple[Any, ...]) -> None:
        self.columns = columns

    def __getitem__(self, name: str) -> Any:
        if name == "attrs":
            return json.loads(self.columns[-1])
        value = self.columns[_POSITION[name]]
        return Decimal(value) if value is not None and name in _DECIMAL_SET else value

    def __iter__(self) -> Iterator[str]:
        return iter((*STORED_FIELDS, "attrs"))

    def __len__(self) -> int:
        return len(STORED_FIELDS) + 1


_REGION = _POSITION["region"]


class StagedQuote(NamedTuple):
    """A quote on the bulk path: its hashes and its stored columns, and
    nothing else; no model instance per row, which costs more than the row's
    insert. A plain tuple, so that a worker process can send a million of
    them cheaply. Its fields are read from the columns when needed."""

    key: str
    value_hash: str
    columns: tuple[Any, ...]  # STORED_FIELDS as text, then attrs as JSON
    input_hash: str | None = None  # of the file row it came from, on the import path

    @classmethod
    def of(cls, quote: PriceQuote) -> StagedQuote:
        return cls(quote.key, quote.value_hash, stored_columns(quote.__dict__))

    @property
    def fields(self) -> StoredFields:
        return StoredFields(self.columns)

    @property
    def region(self) -> str:
        return self.columns[_REGION]


# A staged quote's stored columns (its fields, then attrs), then the row's own.
PRICE_COLUMNS = (
    *STORED_FIELDS,
    "attrs",
    "key",
    "value_hash",
    "source",
    "valid_from",
    "first_run_id",
    "missed_runs",
    "input_hash",
)


def price_row(quote: StagedQuote, *, source: str, run_id: int | None, valid_from: object) -> tuple[Any, ...]:
    """A quote as a price_points row in PRICE_COLUMNS order; `valid_from` as
    the driver takes it (see `db.bulk.writer.bulk_time`)."""
    return (*quote.columns, quote.key, quote.value_hash, source, valid_from, run_id, 0, quote.input_hash)
