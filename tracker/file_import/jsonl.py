"""Decoding JSON Lines for `gpu-tracker import`, with msgspec: a block of
lines at a time, into small structs rather than dicts (four times faster
than `json.loads`, and no dict per row). Only the fields a quote has are
kept; their values stay as the file wrote them, for the row validator.

A block that fails to decode is decoded again line by line, so that the
error names the line.
"""

from __future__ import annotations

import codecs
import hashlib
import json
from collections.abc import Iterator, Sequence
from operator import attrgetter, methodcaller
from typing import IO, Any

import msgspec

from db.schema import PriceQuote
from tracker.normalize import NormalizeError

FIELDS = tuple(PriceQuote.model_fields)
# A row's quote fields, as written; a field the row lacks is None, like a null.
RawRow = msgspec.defstruct("RawRow", [(name, Any, None) for name in FIELDS], gc=False)
_ROWS = msgspec.json.Decoder(RawRow)
_PLAIN = msgspec.json.Decoder()


# Bytes of the file read at a time: some ten thousand rows.
BLOCK_BYTES = 4 * 2**20


def byte_blocks(fh: IO[bytes], size: int = BLOCK_BYTES) -> Iterator[tuple[int, bytes]]:
    """(number of the first line, whole lines as bytes) of about `size`
    bytes at a time: no text object per line, and msgspec reads UTF-8
    bytes itself. A last line without its line break is a line."""
    number, rest = 1, fh.read(size).removeprefix(codecs.BOM_UTF8)
    while True:
        more = fh.read(size)
        data = rest + more
        if not more:
            if data:
                yield number, data
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data  # one line longer than a block: read on
            continue
        block, rest = data[:cut], data[cut:]
        yield number, block
        number += block.count(b"\n")


def split_lines(data: bytes, first: int) -> list[str]:
    """A block's lines as text, line breaks kept: the slow path, for a
    block with a blank or bad line. (Only a line feed ends a line, as in
    JSON Lines: not the other breaks `str.splitlines` knows.)"""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        number = first + data[: exc.start].count(b"\n")
        raise BadLine(f"line {number}: not UTF-8 text; nothing stored") from None
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


_OBSERVED = b'"observed_at"'


def _observed_span(line: bytes) -> tuple[int, int] | None:
    """Where the row's `"observed_at": "..."` member is, if it names
    observed_at once, as a plain text (else the row is remembered whole)."""
    start = line.find(_OBSERVED)
    if start < 0 or line.find(_OBSERVED, start + 1) >= 0:
        return None
    after = start + len(_OBSERVED)
    opening = line.find(b'"', after)
    closing = line.find(b'"', opening + 1)
    if opening < 0 or closing < 0 or line[after:opening].strip(b" \t:") or line.find(b"\\", opening, closing) >= 0:
        return None
    return start, closing + 1


def remembered(line: bytes) -> bytes:
    """A row as its hash remembers it: without its observed_at, which a
    daily export changes in every row and which is no part of the price
    (the run's time is stored). A row naming observed_at more than once
    (a nested one too), or giving it as anything but a plain text, is kept
    whole."""
    span = _observed_span(line)
    return line if span is None else line[: span[0]] + line[span[1] :]


def line_hash(salt: bytes, line: bytes) -> bytes:
    """The hash of `remembered(line)`, without making it."""
    digest = hashlib.blake2b(key=salt, digest_size=8)
    span = _observed_span(line)
    if span is None:
        digest.update(line)
    else:
        view = memoryview(line)
        digest.update(view[: span[0]])
        digest.update(view[span[1] :])
    return digest.digest()


def line_hashes(salt: bytes, lines: Sequence[bytes]) -> list[bytes]:
    return [line_hash(salt, line) for line in lines]


def block_lines(data: bytes) -> list[bytes]:
    """A block's lines, without their line breaks."""
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


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
            return found
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass
    out = []
    for number, text in zip(numbers, texts):
        try:
            out.append(decoder.decode(text))
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise _bad(number, text) from None
    return out


def block(data: bytes, lines: int) -> list[Any] | None:
    """A block of `lines` whole lines as rows, when every line is a JSON
    object, none is blank and none may name a key twice; else None, and the
    caller goes line by line."""
    try:
        found = _ROWS.decode_lines(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if len(found) != lines or any(map(named_twice, _block_representatives(data, lines))):
        return None
    return found


def _block_representatives(data: bytes, lines: int) -> list[bytes]:
    """`representatives` of a block; of the usual block, all of one shape, its first line only."""
    first = data[: data.find(b"\n") + 1 or len(data)]
    if data.count(b'":') == first.count(b'":') * lines:
        return [first]
    return representatives(block_lines(data))  # type: ignore[return-value]  # a block's lines are bytes


class _Twice(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _Twice(next(key for i, (key, _) in enumerate(pairs) if key in dict(pairs[:i])))
    return found


def named_twice(line: str | bytes) -> str | None:
    """The first key that a line's object, or an object in it, names twice
    (msgspec keeps the last value silently, as most JSON readers do); None
    when none is, or when the line is no JSON (said elsewhere)."""
    try:
        json.loads(line, object_pairs_hook=_once)
    except _Twice as exc:
        return exc.key
    except ValueError:
        return None
    return None


def representatives(lines: Sequence[str | bytes]) -> list[str | bytes]:
    """The lines to read for a key named twice: one of each count of `":`
    (a row's members, about): a block's rows are mostly of one shape, and a
    row naming a key twice has a member more than its like. (A row that
    names one twice and lacks another, in a block with rows of that count,
    is not looked at.)"""
    if not lines:
        return []
    counts = list(map(methodcaller("count", b'":' if isinstance(lines[0], bytes) else '":'), lines))
    first: dict[int, int] = {}
    for i, count in enumerate(counts):
        first.setdefault(count, i)
    return [lines[i] for i in first.values()]


def check_keys(numbers: Sequence[int], texts: Sequence[str]) -> None:
    """BadLine naming the first line that names a key twice."""
    for text in representatives(texts):
        key = named_twice(text)
        if key is not None:
            twice = [n for n, t in zip(numbers, texts) if named_twice(t) == key]
            raise BadLine(f"line {twice[0]}: the key {key[:40]!r} is given twice; nothing stored")


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (not data.endswith(b"\n"))


def columns(numbers: Sequence[int], texts: Sequence[str]) -> dict[str, list[Any]]:
    """The rows' raw values, a list per quote field; a field no row gives is left out."""
    found = decode_lines(_ROWS, numbers, texts)
    check_keys(numbers, texts)
    return columns_of(found)


def columns_of(rows: Sequence[Any]) -> dict[str, list[Any]]:
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


_SUMMARY = msgspec.json.Decoder(Summary)


def summary_rows(first: int, data: bytes) -> list[Summary]:
    """Each row of a block (`byte_blocks`) as a Summary; the first line that
    is not a JSON object fails them all, naming its line."""
    try:
        return _SUMMARY.decode_lines(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass
    numbered = [(n, line.rstrip("\r\n")) for n, line in enumerate(split_lines(data, first), start=first)]
    numbered = [(n, line) for n, line in numbered if line.strip()]
    return decode_lines(_SUMMARY, [n for n, _ in numbered], [line for _, line in numbered])


def first_keys(data: bytes) -> list[str]:
    """The keys of a block's first row, if it is an object (a bad one is named elsewhere)."""
    try:
        found = _PLAIN.decode(data.lstrip().split(b"\n", 1)[0])
    except msgspec.DecodeError:
        return []
    return list(found) if isinstance(found, dict) else []


def row_keys(number: int, text: str) -> dict[str, Any]:
    """One line decoded whole (to see its keys)."""
    try:
        data = _PLAIN.decode(text)
    except msgspec.DecodeError:
        raise _bad(number, text) from None
    if not isinstance(data, dict):
        raise _bad(number, text)
    check_keys([number], [text])
    return data
