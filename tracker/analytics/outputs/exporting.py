"""`gpu-tracker export`: prices, history, changes and offers as CSV, JSON
Lines, JSON or Parquet. Decimals are written as strings (exact, as the source
wrote them), times as ISO 8601 UTC (Parquet: UTC timestamps)."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import pandas as pd
import sqlalchemy as sa

from tracker.analytics.history import changes_frame, offers_frame, prices_frame, records
from tracker.errors import UserError
from tracker.scalars import inert, plain

KINDS = ("prices", "history", "changes", "offers")
FORMATS = ("csv", "jsonl", "json", "parquet")
_SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".parquet": "parquet"}


def export_frame(
    engine: sa.Engine, kind: str, *, gpu: str | None = None, provider: str | None = None, since: Any = None
) -> pd.DataFrame:
    if kind == "prices":
        return prices_frame(engine, gpu=gpu, provider=provider)
    if kind == "history":
        frame = prices_frame(engine, gpu=gpu, provider=provider, current=False)
        if since is not None and not frame.empty:
            frame = frame[frame["valid_to"].isna() | (frame["valid_to"] > pd.Timestamp(since))]
        return frame.reset_index(drop=True)
    if kind == "changes":
        return changes_frame(engine, since=since, provider=provider)
    if kind == "offers":
        frame = offers_frame(engine, current=False)
        if frame.empty and not sa.inspect(engine).has_table("offers"):
            raise UserError("this store has no offers table yet")
        if provider and not frame.empty:
            frame = frame[frame["provider"] == provider]
        return frame.reset_index(drop=True)
    raise UserError(f"unknown export {kind!r}; known: {', '.join(KINDS)}")


def choose_format(out: Path | None, fmt: str | None) -> str:
    if fmt:
        return fmt
    if out is None:
        return "csv"
    found = _SUFFIXES.get(out.suffix.lower())
    if found is None:
        raise UserError(f"{out}: cannot tell the format from the name; give --format {'|'.join(FORMATS)}")
    return found


def _plain(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return plain(value)


def _write_text(rows: Sequence[dict[str, Any]], columns: Sequence[str], fmt: str, fh: TextIO) -> None:
    if fmt == "csv":
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow([inert(c) for c in columns])
        for row in rows:
            writer.writerow(["" if (v := _plain(row.get(c))) is None else inert(v) for c in columns])
    elif fmt == "jsonl":
        for row in rows:
            fh.write(json.dumps({c: _json_value(row.get(c)) for c in columns}, ensure_ascii=False) + "\n")
    else:
        json.dump([{c: _json_value(row.get(c)) for c in columns} for row in rows], fh, ensure_ascii=False, indent=1)
        fh.write("\n")


def _json_value(value: Any) -> Any:
    return value if isinstance(value, (dict, list)) else plain(value)


def _parquet_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Decimals and nested values as strings: Parquet keeps them exact that way."""
    out = frame.copy()
    for name in out.columns:
        if out[name].dtype == object:
            out[name] = out[name].map(lambda v: None if v is None else (_plain(v) if not isinstance(v, str) else v))
    return out


def write_export(frame: pd.DataFrame, fmt: str, out: Path | None) -> int:
    """Write `frame`; return the number of rows."""
    if fmt not in FORMATS:
        raise UserError(f"unknown export format {fmt!r}; known: {', '.join(FORMATS)}")
    if fmt == "parquet":
        if out is None:
            raise UserError("Parquet needs a file: give --out FILE.parquet")
        try:
            _parquet_frame(frame).to_parquet(out, index=False)
        except OSError as exc:
            raise UserError(f"{out}: cannot write it: {exc}") from None
        return len(frame)
    rows, columns = records(frame), [str(c) for c in frame.columns]
    if out is None:
        _write_text(rows, columns, fmt, sys.stdout)
        return len(rows)
    buffer = io.StringIO()
    _write_text(rows, columns, fmt, buffer)
    try:
        out.write_text(buffer.getvalue(), encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{out}: cannot write it: {exc.strerror or exc}") from None
    return len(rows)
