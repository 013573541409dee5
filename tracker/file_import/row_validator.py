"""The bulk import's row validator: PriceQuote's checks a column at a time,
each distinct text of a field validated, hashed and written out once.

A million imported rows repeat most of their values (one provider, a few
dozen regions, a handful of GPU models). Row by row, pydantic would check
each of them a million times; here each field goes through the same
pydantic type as in `QuoteRow`, and the result is kept per distinct text
while a field has few of them (a field with more, such as the price, is
validated every time). The per-row work left (two hashes, one tuple) is
done over whole columns. A property test checks that this and PriceQuote
agree on every row.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from enum import Enum
from hashlib import sha256
from itertools import repeat
from operator import itemgetter
from typing import Any, NamedTuple, NotRequired, get_args, get_origin, get_type_hints

from pydantic import TypeAdapter, ValidationError

from db.bulk.encoding import STORED_FIELDS, StagedQuote, decimal_text
from db.schema import MARKET_VALUE_FIELDS, QUOTE_IDENTITY_FIELDS, QUOTE_VALUE_FIELDS, PriceQuote
from tracker.normalize import bounds

# Past this many distinct texts a field is not worth remembering.
CACHE_LIMIT = 4096
# A number written the one way Decimal writes it back: what pydantic would
# make of it is Decimal(text), with no need to ask it.
# Digits Decimal's default context keeps: past them pydantic's value is rounded.
_EXACT_DIGITS = 28
_CANONICAL_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
# A price written plainly and within its bounds; 0 goes the slow way (it needs an upfront fee).
_PRICE_FAST = bounds.PRICE.pattern()


def normal_text(canonical: str) -> str | None:
    """`str(Decimal(canonical).normalize())` by text alone, for a number
    written as `_CANONICAL_DECIMAL` writes it (a third of the time); None
    where Decimal would write an exponent (1E+2, 1E-7) or round, left to Decimal."""
    if len(canonical) > _EXACT_DIGITS:
        return None
    text = canonical
    if "." in text:
        text = text.rstrip("0")
        if not text.endswith("."):
            whole, fraction = text.split(".")
            if whole in ("0", "-0") and len(fraction) - len(fraction.lstrip("0")) >= 6:
                return None
            return text
        text = text[:-1]
    if text.endswith("0") and text not in ("0", "-0"):
        return None
    return text


class Cell(NamedTuple):
    """One field's value, as `stable_hash` writes it and as the store does."""

    hashed: str
    stored: Any


class Bad:
    """A cell that failed; `reason` as pydantic would word it for the row."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _cell(value: Any) -> Cell:
    if value is None:
        return Cell("", None)
    if type(value) is Decimal:
        return Cell(str(value.normalize()), decimal_text(value))
    if isinstance(value, Enum):
        return Cell(value.value, value.value)
    if isinstance(value, dict):
        return Cell(
            "\x1f".join(map(str, sorted(value.items()))),
            json.dumps(value, sort_keys=True, ensure_ascii=False) if value else "{}",
        )
    if isinstance(value, datetime):
        return Cell("", None)  # checked, but the run's time is stored, not the row's
    return Cell(str(value), value)


class Plain(tuple[str, ...]):
    """A column of texts that are their own value, hash text and stored text
    (a text field, or an enum field naming its members exactly)."""


def _plain_texts(kind: Any) -> frozenset[str] | bool:
    """What texts of a field of this type are their own value: any (True),
    these, or none (False)."""
    if kind in (str, str | None):
        return True
    if isinstance(kind, type) and issubclass(kind, Enum):
        return frozenset(member.value for member in kind)
    return False


class FieldReader:
    def __init__(self, name: str, kind: Any, default: Cell | Bad) -> None:
        self.name = name
        self.validate = TypeAdapter(kind).validator.validate_python
        self.default = default
        self.cache: dict[Any, Cell | Bad] | None = {}
        self.plain = _plain_texts(kind)
        self.decimal = kind in (Decimal, Decimal | None)
        self.texts: dict[str, str] | None = {}  # one object for each distinct text of a plain column
        # The field's bounds (`tracker.normalize.bounds`); a plainly written
        # number that `fast` matches is surely within them.
        self.range = bounds.NUMBERS.get(name)
        self.fast = (self.range or bounds.MONEY).pattern() if name != "price" else _PRICE_FAST
        self.longest = bounds.TEXTS.get(name, 0)
        self.now: datetime | None = None  # observed_at: the import's time, which bounds it

    def plain_column(self, texts: Sequence[Any], *, all_text: bool) -> Plain | None:
        """The column as it is, when every value is a text that is its own
        value (`all_text`: every one is a text). Equal texts become one
        object, while a field has few of them: a batch sent from a worker
        process then carries each once."""
        if self.plain is False or not all(texts):
            return None
        if not all_text and set(map(type, texts)) != {str}:
            return None
        if self.plain is not True and not set(texts) <= self.plain:
            return None
        if self.longest and texts and (max(map(len, texts)) > self.longest or "\x00" in "".join(texts)):
            return None  # read one by one, to name the line
        if self.texts is not None:
            texts = list(map(self.texts.setdefault, texts, texts))
            if len(self.texts) > CACHE_LIMIT:
                self.texts = None
        return Plain(texts)

    def read(self, raw: Any) -> Cell | Bad:
        if raw is None or raw == "":
            return self.default
        if self.decimal and type(raw) is str and len(raw) <= _EXACT_DIGITS and self.fast.fullmatch(raw):
            return Cell(normal_text(raw) or str(Decimal(raw).normalize()), raw)
        try:
            if self.name == "attrs" and isinstance(raw, str):
                raw = json.loads(raw)
            value = self.validate(raw)
            cell = _cell(value)
            why = self.out_of_bounds(value, cell)
            return cell if why is None else Bad(f"{self.name}: {why}")
        except json.JSONDecodeError:
            return Bad(f"{self.name}: not a JSON object")
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, (self.name, *first["loc"])))
            return Bad(f"{where}: {first['msg']}")

    def out_of_bounds(self, value: Any, cell: Cell) -> str | None:
        """Why a valid value is outside the bounds of a stored price, or None."""
        if value is None:
            return None
        if self.range is not None:
            if self.name == "price" and value == 0 and not value.is_signed():
                return None  # an all-upfront term's: `RowValidator.stage` checks the row has its fee
            return self.range.reason(value)
        if self.longest:
            return bounds.text_reason(value, self.longest)
        if self.name == "attrs":
            return bounds.attrs_reason(value, cell.stored)
        if self.now is not None and isinstance(value, datetime):
            return bounds.time_reason(value, self.now)
        return None

    def column(self, raws: Sequence[Any]) -> tuple[list[Cell | Bad], bool]:
        """The cells of a column, and whether any is bad: texts seen before
        from the cache, the rest read and, while the field has few distinct
        texts, remembered."""
        cache = self.cache
        if cache is not None:
            try:
                cells: list[Any] = list(map(cache.get, raws))
            except TypeError:  # an unhashable value (a JSON object in a text field): read each
                cache = None
        if cache is None:
            cells = [self.read(raw) for raw in raws]
            return cells, any(type(cell) is Bad for cell in cells)
        failed = False
        if None in cells:
            for i, cell in enumerate(cells):
                if cell is None:
                    raw = raws[i]
                    # Read earlier in this very column, maybe (a batch repeats its texts too).
                    cell = cache.get(raw)
                    if cell is None:
                        cell = self.read(raw)
                        if type(cell) is Bad:
                            failed = True
                        elif type(raw) is str and self.cache is not None:
                            if len(cache) >= CACHE_LIMIT:
                                self.cache = None
                            cache[raw] = cell
                    cells[i] = cell
        return cells, failed

    def set_default(self, default: Cell | Bad) -> None:
        """A new default, forgetting the old one's cached blanks."""
        self.default = default
        if self.cache is not None:
            self.cache.pop("", None)

    def bound_by(self, stamp: str) -> None:
        """Times after `stamp` (the import's now) and a little skew are out
        of bounds: forgets what was read under another now."""
        now = datetime.fromisoformat(stamp)
        if now != self.now:
            self.now = now
            self.cache = {}


def _field_types(typed_dict: type) -> dict[str, tuple[Any, bool]]:
    """Each field's type and whether it is required. (Read from the hints:
    under postponed annotations a TypedDict's own required keys are wrong.)"""
    hints = get_type_hints(typed_dict, include_extras=True)
    return {
        name: (get_args(kind)[0], False) if get_origin(kind) is NotRequired else (kind, True)
        for name, kind in hints.items()
    }


# A column of cells, or the one cell of every row (a field the file lacks), or texts.
Column = list[Any] | Cell | Bad | Plain


def _without(column: Column, bad: dict[int, str]) -> Column:
    """A column without the cells of the bad lines (a constant column, one
    Cell or Bad for every line, stays as it is)."""
    if type(column) is list:
        return [cell for i, cell in enumerate(column) if i not in bad]
    if type(column) is Plain:
        return Plain(cell for i, cell in enumerate(column) if i not in bad)
    return column


class RowValidator:
    """Validates columns of raw import values into StagedQuotes, with their
    stored columns already written out."""

    def __init__(self, typed_dict: type) -> None:
        types = _field_types(typed_dict)
        fields = PriceQuote.model_fields
        self.readers = [
            FieldReader(
                name,
                kind,
                Bad(f"{name}: Field required")
                if required
                else _cell(fields[name].get_default(call_default_factory=True)),
            )
            for name, (kind, required) in types.items()
        ]
        at = [reader.name for reader in self.readers].index
        self.identity = itemgetter(*map(at, QUOTE_IDENTITY_FIELDS))
        self.value = itemgetter(*map(at, QUOTE_VALUE_FIELDS))  # attrs, when any, follow them
        self.market = itemgetter(*map(at, MARKET_VALUE_FIELDS))  # when the offer count is set
        self.stored = itemgetter(*map(at, STORED_FIELDS), at("attrs"))
        self.attrs = at("attrs")
        self.price, self.upfront_fee = at("price"), at("upfront_fee")

    def stage(
        self,
        lines: Sequence[int],
        columns: Mapping[str, Sequence[Any]],
        stamp: str,
        errors: list[str],
        input_hashes: Sequence[str | None] | None = None,
        *,
        texts: bool = False,
    ) -> list[StagedQuote]:
        """`columns` holds each field's raw values, one per line (a missing
        field is a missing column), all of them texts if `texts` (a CSV
        file's); `stamp` is the observation time of rows that give none.
        Each bad line's first bad field, in PriceQuote's order as pydantic
        names it, is appended to `errors`."""
        cells: list[Column] = []
        bad: dict[int, str] = {}
        for reader in self.readers:
            raws = columns.get(reader.name)
            if reader.name == "observed_at":
                reader.bound_by(stamp)
                reader.set_default(reader.read(stamp))
            if raws is None:
                column: Column = reader.default
                if type(column) is Bad:
                    bad.update((i, column.reason) for i in range(len(lines)) if i not in bad)
            elif (plain := reader.plain_column(raws, all_text=texts)) is not None:
                column = plain
            else:
                column, failed = reader.column(raws)
                if failed:
                    bad.update((i, cell.reason) for i, cell in enumerate(column) if type(cell) is Bad and i not in bad)
            cells.append(column)
        self._zero_prices(cells, bad)
        errors.extend(f"line {lines[i]}: {reason}" for i, reason in sorted(bad.items()))
        hashes = input_hashes if input_hashes is not None else [None] * len(lines)
        if bad:
            if len(bad) == len(lines):
                return []
            cells = [_without(column, bad) for column in cells]
            hashes = [h for i, h in enumerate(hashes) if i not in bad]
        return self._staged(cells, hashes)

    def _zero_prices(self, cells: list[Column], bad: dict[int, str]) -> None:
        """A price of 0 only with an upfront fee (`bounds.zero_price`)."""
        column = cells[self.price]
        if type(column) is not list:
            return
        try:
            prices = _part(column, 0)
        except TypeError:  # a Bad cell among them
            prices = [cell[0] if type(cell) is Cell else None for cell in column]
        if "0" not in prices:
            return
        fees = [cell[0] if type(cell) is Cell else None for cell in _cells(cells[self.upfront_fee], len(column))]
        for i, (price, fee) in enumerate(zip(prices, fees)):
            if price == "0" and fee in ("", "0") and i not in bad:
                bad[i] = bounds.zero_price(Decimal(0), None) or ""

    def _staged(self, cells: list[Column], input_hashes: Sequence[str | None]) -> list[StagedQuote]:
        """Good rows' cells, a column per field, as quotes: the per-row work
        done column-wise, in C where it can be."""
        hashed = [_part(column, 0) for column in cells]
        identity = map("\x1f".join, zip(*self.identity(hashed)))
        keys = [sha256(text.encode()).hexdigest()[:32] for text in identity]
        values: Iterable[str] = map("\x1f".join, zip(*self.value(hashed)))
        median, count = self.market(hashed)
        if type(count) is not repeat or next(count):  # a column that names no offer count is the usual case
            values = (v + f"\x1f{m}\x1f{n}" if n else v for v, m, n in zip(values, median, count))
        attrs = hashed[self.attrs]
        value_hashes = [
            sha256((text + "\x1f" + extra if extra else text).encode()).hexdigest()[:16]
            for text, extra in zip(values, attrs)
        ]
        stored = zip(*[_part(column, 1) for column in self.stored(cells)])
        return list(map(tuple.__new__, repeat(StagedQuote), zip(keys, value_hashes, stored, input_hashes)))


def _cells(column: Column, n: int) -> Iterable[Any]:
    """A column's n cells, whatever its kind."""
    return column if type(column) is list else repeat(column, n)


def _part(column: Column, which: int) -> Iterable[Any]:
    kind = type(column)
    if kind is list:
        return list(map(itemgetter(which), column))  # type: ignore[arg-type]  # `kind` says which Column this is
    if kind is Plain:
        return column  # type: ignore[return-value]  # `kind` says which Column this is
    return repeat(column[which])  # type: ignore[index]  # `kind` says which Column this is
