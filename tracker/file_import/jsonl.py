"""Decoding JSON Lines for `gpu-tracker import`, with msgspec: a block of
lines at a time, into small structs rather than dicts (four times faster
than `json.loads`, and no dict per row). Only the fields a quote has are
kept; their values stay as the file wrote them, for the row validator.

A block that fails to decode is decoded again line by line, so that the
error names the line.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import msgspec

from db.schema import PriceQuote
from tracker.normalize import NormalizeError

FIELDS = tuple(PriceQuote.model_fields)
# A row's quote fields, as written; a field the row lacks is None, like a null.
RawRow = msgspec.defstruct("RawRow", [(name, Any, None) for name in FIELDS], gc=False)
_ROWS = msgspec.json.Decoder(RawRow)
_PLAIN = msgspec.json.Decoder()


class BadLine(NormalizeError):
    """A line that is not a JSON object; the message names its line."""


def _bad(number: int, text: str) -> BadLine:
    try:
        _PLAIN.decode(text)
    except msgspec.DecodeError as exc:
        return BadLine(f"line {number}: not JSON: {exc}; nothing stored")
    return BadLine(f"line {number}: not a JSON object; nothing stored")


def decode_lines(decoder: msgspec.json.Decoder, numbers: Sequence[int], texts: Sequence[str]) -> list[Any]:
    """Each text (one non-blank line) decoded by `decoder`; the first line
    that is not a JSON object fails them all, naming its line."""
    try:
        found = decoder.decode_lines("\n".join(texts))
        if len(found) == len(texts):
            return found  # type: ignore[no-any-return]
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass
    out = []
    for number, text in zip(numbers, texts):
        try:
            out.append(decoder.decode(text))
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise _bad(number, text) from None
    return out


def columns(numbers: Sequence[int], texts: Sequence[str]) -> dict[str, list[Any]]:
    """The rows' raw values, a list per quote field; a field no row gives is left out."""
    rows = decode_lines(_ROWS, numbers, texts)
    out = {}
    for name in FIELDS:
        values = list(map(attrgetter(name), rows))
        if values.count(None) != len(values):
            out[name] = values
    return out


class Summary(msgspec.Struct, gc=False):
    """What the first pass over a file needs of each row."""

    provider: Any = None
    observed_at: Any = None


def summary_decoder(known: Sequence[str]) -> msgspec.json.Decoder:
    """A decoder of `Summary` that fails on a field outside `known` (then
    `row_keys` says which), other known fields skipped unread."""
    others = [(name, msgspec.Raw, msgspec.UNSET) for name in known if name not in Summary.__struct_fields__]
    kind = msgspec.defstruct("KnownRow", others, bases=(Summary,), forbid_unknown_fields=True, gc=False)
    return msgspec.json.Decoder(kind)


def row_keys(number: int, text: str) -> dict[str, Any]:
    """One line decoded whole, for a row with a field `summary_decoder` does not know."""
    try:
        data = _PLAIN.decode(text)
    except msgspec.DecodeError:
        raise _bad(number, text) from None
    if not isinstance(data, dict):
        raise _bad(number, text)
    return data
