"""The bulk import's row validator: PriceQuote's checks field by field, each
distinct text of a field validated, hashed and written out once.

A million imported rows repeat most of their values (one provider, a few
dozen regions, a handful of GPU models). Row by row, pydantic would check
each of them a million times; here each field goes through the same
pydantic type as in `QuoteRow`, and the result is kept per distinct text
while a field has few of them (a field with more, such as the price, is
validated every time). A property test checks that both agree on every row.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import Any, NotRequired, get_args, get_origin, get_type_hints

from pydantic import TypeAdapter, ValidationError

from db.bulk import decimal_text
from db.schema import QUOTE_IDENTITY_FIELDS, QUOTE_VALUE_FIELDS, PriceQuote, StagedQuote
from db.store import ROW_FIELDS

# Past this many distinct texts a field is not worth remembering.
CACHE_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class Cell:
    """One field's value three ways."""

    value: Any  # as PriceQuote holds it
    hashed: str  # as `stable_hash` writes it
    stored: Any  # as the store writes it


class BadField(Exception):
    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")


def _cell(value: Any) -> Cell:
    if value is None:
        return Cell(None, "", None)
    if type(value) is Decimal:
        return Cell(value, str(value.normalize()), decimal_text(value))
    if isinstance(value, Enum):
        return Cell(value, value.value, value.value)
    if isinstance(value, dict):
        return Cell(value, "\x1f".join(map(str, sorted(value.items()))),
                    json.dumps(value, sort_keys=True, ensure_ascii=False) if value else "{}")
    if isinstance(value, datetime):
        return Cell(value, "", None)  # the run's time is stored, not the row's
    return Cell(value, str(value), value)


class FieldReader:
    def __init__(self, name: str, kind: Any) -> None:
        self.name = name
        self.adapter: TypeAdapter[Any] = TypeAdapter(kind)
        self.cache: dict[str, Cell] | None = {}

    def read(self, raw: Any) -> Cell:
        cacheable = type(raw) is str and self.cache is not None
        if cacheable:
            cell = self.cache.get(raw)  # type: ignore[union-attr]
            if cell is not None:
                return cell
        try:
            cell = _cell(self.adapter.validate_python(self._parsed(raw)))
        except ValidationError as exc:
            raise BadField(self.name, exc.errors()[0]["msg"]) from None
        if cacheable:
            if len(self.cache) >= CACHE_LIMIT:  # type: ignore[arg-type]
                self.cache = None
            else:
                self.cache[raw] = cell  # type: ignore[index]
        return cell

    def _parsed(self, raw: Any) -> Any:
        if self.name == "attrs" and isinstance(raw, str):
            try:
                return json.loads(raw)
            except json.JSONDecodeError:
                raise BadField("attrs", "not a JSON object") from None
        return raw


def _field_types(typed_dict: type) -> dict[str, tuple[Any, bool]]:
    """Each field's type and whether it is required. (Read from the hints:
    under postponed annotations a TypedDict's own required keys are wrong.)"""
    hints = get_type_hints(typed_dict, include_extras=True)
    return {name: (get_args(kind)[0], False) if get_origin(kind) is NotRequired else (kind, True)
            for name, kind in hints.items()}


class RowValidator:
    """Validates raw import items `{"line", "observed_at", "data"}` into
    StagedQuotes, with their stored columns already written out."""

    def __init__(self, typed_dict: type) -> None:
        types = _field_types(typed_dict)
        self.readers = [FieldReader(name, kind) for name, (kind, _) in types.items()]
        self.required = frozenset(name for name, (_, required) in types.items() if required)
        fields = PriceQuote.model_fields
        self.defaults = {name: _cell(f.get_default(call_default_factory=True))
                         for name, f in fields.items() if not f.is_required()}

    def cells(self, item: dict[str, Any]) -> dict[str, Cell]:
        data = item["data"]
        cells: dict[str, Cell] = {}
        for reader in self.readers:
            name = reader.name
            raw = data.get(name)
            if raw is None or raw == "":
                if name == "observed_at":
                    raw = item["observed_at"]
                elif name in self.required:
                    raise BadField(name, "Field required")
                else:
                    cells[name] = self.defaults[name]
                    continue
            cells[name] = reader.read(raw)
        return cells

    def stage(self, items: Iterable[dict[str, Any]], errors: list[str]) -> list[StagedQuote]:
        """Each good item as a StagedQuote; each bad one's line and reason
        (its first bad field, as pydantic would name it) appended to `errors`."""
        out = []
        for item in items:
            try:
                cells = self.cells(item)
            except BadField as exc:
                errors.append(f"line {item['line']}: {exc}")
                continue
            out.append(staged(cells))
        return out


def staged(cells: dict[str, Cell]) -> StagedQuote:
    key = "\x1f".join([cells[name].hashed for name in QUOTE_IDENTITY_FIELDS])
    values = [cells[name].hashed for name in QUOTE_VALUE_FIELDS]
    attrs = cells["attrs"]
    if attrs.value:
        values.append(attrs.hashed)
    return StagedQuote(
        {name: cell.value for name, cell in cells.items()},
        hashlib.sha256(key.encode()).hexdigest()[:32],
        hashlib.sha256("\x1f".join(values).encode()).hexdigest()[:16],
        columns=(*[cells[name].stored for name in ROW_FIELDS], attrs.stored),
    )
