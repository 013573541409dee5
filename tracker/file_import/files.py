"""Reading a file of price rows for `gpu-tracker import`: lazily, record by
record, and validated a batch at a time. Nothing here touches the store.

A record is one row of the file as text: a JSON Lines line, or a CSV row
(which may span lines inside quotes). Its hash, salted with the file's
header, lets the diff recognize a row that an open price came from without
parsing it again (`SnapshotDiff.recognize`).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice, repeat
from operator import attrgetter
from pathlib import Path
from typing import Any

from db.bulk.encoding import StagedQuote
from tracker.errors import UserError
from tracker.file_import import jsonl, rows, skypilot
from tracker.normalize import NormalizeError, parse_time

FORMATS = ("rows", "skypilot")
# Bump when what a row means changes (validation, defaults, hashing): every
# remembered row is then read again once.
RECORD_MEANING = b"rows-1"
# (line number, the record's text without its line ending, its hash or None)
Record = tuple[int, str, int | None]


BadFile = jsonl.BadLine  # a row that cannot be read at all; the message names its line


def _open_text(path: Path) -> io.TextIOBase:
    try:
        if path.suffix == ".gz":
            return io.TextIOWrapper(gzip.open(path), encoding="utf-8-sig", newline="")
        return path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror or exc}") from None


def is_jsonl(path: Path) -> bool:
    name = path.name.removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return True
    if name.endswith(".csv"):
        return False
    raise UserError(f"{path}: say what it is by its name: .csv, .jsonl or .ndjson (optionally .gz)")


@contextmanager
def _readable() -> Iterator[None]:
    try:
        yield
    except (UnicodeDecodeError, csv.Error, gzip.BadGzipFile, EOFError) as exc:
        raise BadFile(f"not readable as UTF-8 text rows: {exc}; nothing stored") from None


# A quoted field may hold line breaks, but not this many.
MAX_RECORD_LINES = 1_000


def _texts(fh: Iterable[str], quoted_newlines: bool, first: int = 1) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each non-blank record, the first line
    being number `first`. A CSV record goes on while it has an odd number of
    quote characters: a quote inside a quoted field is doubled, so a complete
    record always has an even count. (The CSV parser later checks that each
    record is exactly one row.)"""
    pending: list[str] = []
    start = 0
    for number, line in enumerate(fh, start=first):
        if pending:
            pending.append(line)
            if len(pending) > MAX_RECORD_LINES:
                raise BadFile(f"line {start}: a quote opened here is never closed; nothing stored")
            text = "".join(pending)
            if text.count('"') % 2:
                continue
            pending = []
        elif quoted_newlines and line.count('"') % 2:
            pending, start = [line], number
            continue
        else:
            text, start = line, number
        text = text.rstrip("\r\n")
        if text.strip():
            yield start, text
    if pending:
        raise BadFile(f"line {start}: a quote opened here is never closed; nothing stored")


@dataclass
class RecordFile:
    """A file's header (CSV) and the rest of it, to be read once: record by
    record (`records`), or in blocks of lines (`blocks`) when no record is
    looked at before it is validated."""

    fh: Iterable[str]
    header: list[str] | None
    salt: bytes
    first_line: int  # the number of the first line after the header
    quoted_newlines: bool

    @property
    def records(self) -> Iterator[tuple[int, str]]:
        return _texts(self.fh, self.quoted_newlines, self.first_line)

    def byte_blocks(self) -> Iterator[tuple[int, bytes]]:
        """JSON Lines in blocks of bytes (`jsonl.byte_blocks`), read before any text is."""
        return jsonl.byte_blocks(self.fh.buffer)  # type: ignore[attr-defined]  # a text file of open(): a TextIOWrapper

    def blocks(self, size: int) -> Iterator[tuple[int, list[str]]]:
        """(number of the first line, lines) of about `size` lines at a time,
        never cutting a record: a CSV block goes on while its quotes are odd."""
        number = self.first_line
        fh = iter(self.fh)
        while lines := list(islice(fh, size)):
            odd = self.quoted_newlines and sum(map(_quotes, lines)) % 2
            for line in islice(fh, MAX_RECORD_LINES) if odd else ():
                lines.append(line)
                if _quotes(line) % 2:
                    break
            yield number, lines
            number += len(lines)


def _quotes(line: str) -> int:
    return line.count('"')


def _one_column_each(header: list[str], line: int) -> None:
    """A column named twice would let its last cell silently win."""
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise BadFile(f"line {line}: the column {name[:40]!r} is named twice; nothing stored")
        seen.add(name)


@contextmanager
def open_records(path: Path, fmt: str, **extra: Any) -> Iterator[RecordFile]:
    jsonl = is_jsonl(path)
    with _open_text(path) as fh, _readable():
        header = None
        header_text = ""
        first_line = 1
        if not jsonl:
            lines: list[str] = []
            for line in fh:  # the header: the first non-blank record
                lines.append(line)
                if (sum(map(_quotes, lines)) % 2 == 0 and "".join(lines).strip()) or len(lines) > MAX_RECORD_LINES:
                    break
            header_text = "".join(lines).rstrip("\r\n").lstrip()
            header = next(csv.reader([header_text]), [])
            first_line = len(lines) + 1
            _one_column_each(header, next((n for n, line in enumerate(lines, 1) if line.strip()), 1))
        # The same text means the same row only under the same header, format and meaning.
        salt = hashlib.blake2b(
            "\x1f".join([fmt, header_text, json.dumps(extra, sort_keys=True)]).encode(),
            key=RECORD_MEANING,
            digest_size=32,
        ).digest()
        yield RecordFile(fh, header, salt, first_line, quoted_newlines=not jsonl)


def record_digest(salt: bytes, text: str, *, is_jsonl: bool = False) -> bytes:
    """A record's hash, as the diff looks it up (`record_hex` as stored)."""
    record = text.encode()
    if is_jsonl:
        return jsonl.line_hash(salt, record)
    return hashlib.blake2b(record, key=salt, digest_size=8).digest()


def record_hex(salt: bytes, text: str, *, is_jsonl: bool = False) -> str:
    return record_digest(salt, text, is_jsonl=is_jsonl).hex()


def _csv_rows(header: list[str], numbers: Sequence[int], texts: Sequence[str]) -> list[list[str]]:
    """Each text's cells. Each must be exactly one row, of no more cells than
    the header (short rows are padded with blanks)."""
    width = len(header)
    reader = csv.reader(texts)
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise BadFile(f"line {numbers[reader.line_num - 1]}: not a CSV row: {exc}; nothing stored") from None
    if len(rows) != len(texts) or reader.line_num != len(texts) or set(map(len, rows)) != {width}:
        rows = _checked_rows(width, numbers, texts)
    return rows


def _checked_rows(width: int, numbers: Sequence[int], texts: Sequence[str]) -> list[list[str]]:
    """`_csv_rows` the slow way, to name the line that is wrong."""
    rows = []
    for number, text in zip(numbers, texts):
        found = list(csv.reader([text]))
        if len(found) != 1:  # one record, one row: else hashes and lines would slip
            raise BadFile(f"line {number}: not one CSV row; nothing stored")
        cells = found[0]
        if len(cells) > width:
            raise BadFile(f"line {number}: more cells than columns; nothing stored")
        rows.append(cells + [""] * (width - len(cells)))
    return rows


@dataclass(frozen=True)
class Batch:
    """What validating a batch of records needs, all of it picklable: it
    may be done in a worker process."""

    fmt: str
    header: list[str] | None
    stamp: str
    extra: dict[str, Any] = field(default_factory=dict)
    salt: bytes | None = None  # to hash records given without their hash (None: keep none)

    def items(self, numbers: Sequence[int], texts: Sequence[str]) -> list[dict[str, Any]]:
        if self.header is None:
            datas: Iterable[dict[str, Any]] = (jsonl.row_keys(n, text) for n, text in zip(numbers, texts))
        else:
            datas = (dict(zip(self.header, row)) for row in _csv_rows(self.header, numbers, texts))
        return [
            {"line": number, "observed_at": self.stamp, **self.extra, "data": data}
            for number, data in zip(numbers, datas)
        ]

    def _columns(self, numbers: Sequence[int], texts: Sequence[str]) -> Mapping[str, Sequence[Any]]:
        if self.header is None:
            return jsonl.columns(numbers, texts)
        return dict(zip(self.header, zip(*_csv_rows(self.header, numbers, texts))))

    def in_worker(self, method: str, *args: Any) -> tuple[list[tuple[Any, ...]], list[str]]:
        """A method's quotes as plain tuples, which a worker process sends
        faster than named ones (`as_staged` makes them StagedQuotes again)."""
        staged, errors = getattr(self, method)(*args)
        return list(map(tuple, staged)), errors

    def stage_lines(self, first: int, lines: list[str]) -> tuple[list[StagedQuote], list[str]]:
        """`stage` of a block of the file's lines, the first being line `first`."""
        texts = list(map(str.rstrip, lines, repeat("\r\n")))
        if (self.header is None or '"' not in "".join(lines)) and all(map(str.strip, texts)):
            return self._stage(range(first, first + len(texts)), texts, None)  # a line a record
        numbers, texts = _unzip(_texts(lines, self.header is not None, first))
        return self._stage(numbers, texts, None)

    def stage_bytes(self, first: int, data: bytes) -> tuple[list[StagedQuote], list[str]]:
        """`stage_lines` of a block of JSON Lines as bytes (`jsonl.byte_blocks`)."""
        staged = self._stage_block(data, first, jsonl.line_count(data))
        return staged if staged is not None else self.stage_lines(first, jsonl.split_lines(data, first))

    def _stage_block(self, data: bytes, first: int, lines: int) -> tuple[list[StagedQuote], list[str]] | None:
        """The common case of JSON Lines, a block decoded at once: None when
        a line is blank or bad, to be looked at line by line."""
        found = jsonl.block(data, lines)
        if found is None:
            return None
        errors: list[str] = []
        numbers = range(first, first + lines)
        hashes = None
        if self.salt is not None:
            hashes = [digest.hex() for digest in jsonl.line_hashes(self.salt, jsonl.block_lines(data))]
        return rows.staged_columns(numbers, jsonl.columns_of(found), self.stamp, errors, hashes), errors

    def stage(self, records: list[Record]) -> tuple[list[StagedQuote], list[str]]:
        """The records validated and hashed, and each bad one's line and reason."""
        numbers, texts, hashes = (list(column) for column in zip(*records)) if records else ([], [], [])
        return self._stage(numbers, texts, hashes)

    def _stage(
        self, numbers: Sequence[int], texts: Sequence[str], hashes: Sequence[int | None] | None
    ) -> tuple[list[StagedQuote], list[str]]:
        errors: list[str] = []
        if self.fmt == "skypilot":
            try:
                return [StagedQuote.of(q) for q in skypilot.normalize(self.items(numbers, texts)).quotes], errors
            except NormalizeError as exc:
                return [], [str(exc)]
        columns = self._columns(numbers, texts)
        input_hashes = None
        if self.salt is not None:
            salt = self.salt
            input_hashes = [
                record_hex(salt, text, is_jsonl=self.header is None) if h is None else format(h, "016x")
                for text, h in zip(texts, hashes or repeat(None))
            ]
        return rows.staged_columns(
            numbers, columns, self.stamp, errors, input_hashes, texts=self.header is not None
        ), errors


def as_staged(quotes: list[tuple[Any, ...]]) -> list[StagedQuote]:
    return list(map(tuple.__new__, repeat(StagedQuote), quotes))  # tuple.__new__, in C


def _unzip(pairs: Iterable[tuple[int, str]]) -> tuple[list[int], list[str]]:
    numbers: list[int] = []
    texts: list[str] = []
    for number, text in pairs:
        numbers.append(number)
        texts.append(text)
    return numbers, texts


@dataclass
class FileSummary:
    """What must be known of a file before its run begins: a first, light
    pass, since the rows themselves are streamed and never all held. It
    also finds any unreadable line before a row is written."""

    rows: int = 0
    # The CSV header; of JSON Lines, the keys of each block's first row.
    columns: set[str] = field(default_factory=set)
    providers: set[str] = field(default_factory=set)
    newest: datetime | None = None


def summarize(path: Path, provider: str | None = None) -> FileSummary:
    try:
        return _summarize(path, provider)
    except BadFile as exc:
        raise UserError(f"{path}: {exc}") from None


def _summarize(path: Path, provider: str | None) -> FileSummary:
    summary = FileSummary()
    stamps: set[str] = set()
    with _open_text(path) as fh, _readable():
        if is_jsonl(path):
            _summarize_jsonl(fh, provider, summary, stamps)
        else:
            # Only the cells it needs: building each row's dict would double this pass.
            reader = csv.reader(fh)
            header = next(reader, None) or []
            width = len(header)
            summary.columns.update(header)
            at = {name: header.index(name) for name in ("provider", "observed_at") if name in header}
            for row in reader:
                if len(row) > width:
                    raise BadFile(f"line {reader.line_num}: more cells than columns; nothing stored")
                if row:
                    summary.rows += 1
                    summary.providers.add(_cell(row, at.get("provider")) or provider or "")
                    stamps.add(_cell(row, at.get("observed_at")))
    summary.newest = max(_times(stamps), default=None)
    summary.providers.discard("")
    return summary


def _summarize_jsonl(fh: Iterable[str], provider: str | None, summary: FileSummary, stamps: set[str]) -> None:
    for first, data in jsonl.byte_blocks(fh.buffer):  # type: ignore[attr-defined]  # a text file of open(): a TextIOWrapper
        found = jsonl.summary_rows(first, data)
        # The columns of each block's first row: a file's rows share theirs.
        summary.columns.update(jsonl.first_keys(data))
        summary.rows += len(found)
        summary.providers.update(str(p or provider or "") for p in _distinct(map(attrgetter("provider"), found)))
        stamps.update(str(s or "") for s in _distinct(map(attrgetter("observed_at"), found)))


def _distinct(values: Iterable[Any]) -> Iterable[Any]:
    values = list(values)
    try:
        return set(values)
    except TypeError:  # a JSON object or list where a text belongs: its row's validation names it
        return values


def _cell(row: list[str], index: int | None) -> str:
    return row[index] if index is not None and index < len(row) else ""


def _times(stamps: Iterable[str]) -> Iterator[datetime]:
    for stamp in stamps:
        if stamp:
            try:
                yield parse_time(stamp)
            except (ValueError, NormalizeError):
                continue  # the row's own validation names it
