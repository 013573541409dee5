"""Normalized price rows from a file (`gpu-tracker import`): one PriceQuote
per row, with the field names of `gpu-tracker prices --format json`.

Each raw item is `{"line": N, "observed_at": ..., "data": {field: value}}`.
A row that does not validate fails the whole file, naming its line: a
partial import would look like removed prices.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from itertools import groupby
from operator import itemgetter
from typing import Annotated, Any, NotRequired

from pydantic import AfterValidator, Field, ValidationError
from typing_extensions import TypedDict

from db.bulk.encoding import StagedQuote
from db.schema import PriceModel, PriceQuote, Unit, aware_time, currency_code
from tracker.file_import.row_validator import RowValidator
from tracker.normalize import Normalized, NormalizeError, bounds, parse_time

QUOTE_FIELDS = frozenset(PriceQuote.model_fields)
# Columns our own exports add; importing an export back ignores them.
DERIVED_FIELDS = frozenset(
    {
        "hourly_price",
        "price_per_gpu_hour",
        "gpu_bf16_tflops",
        "price_per_tflop_hour",
        "price_per_gb_vram_hour",
        "local_ssd_gib",
        "local_ssd_hourly",
        "valid_from",
        "valid_to",
        "source",
        "key",
        "value_hash",
        "first_run_id",
        "missed_runs",
        "id",
    }
)
MAX_REPORTED = 5


def validation_reason(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]


def fail_on(errors: list[str]) -> None:
    """One error naming the first bad lines, or nothing."""
    if errors:
        shown = "; ".join(errors[:MAX_REPORTED])
        more = f" (and {len(errors) - MAX_REPORTED} more)" if len(errors) > MAX_REPORTED else ""
        raise NormalizeError(f"{len(errors)} bad row{'s' if len(errors) > 1 else ''}, nothing stored: {shown}{more}")


def _row_fields(data: dict[str, Any]) -> dict[str, Any]:
    fields = {k: v for k, v in data.items() if k in QUOTE_FIELDS and v not in (None, "")}
    attrs = fields.get("attrs")
    if isinstance(attrs, str):
        try:
            fields["attrs"] = json.loads(attrs)
        except json.JSONDecodeError:
            raise ValueError("attrs: not a JSON object") from None
    return fields


def quotes_by_line(
    items: Iterable[dict[str, Any]], to_quotes: Callable[[dict[str, Any]], list[PriceQuote]]
) -> Normalized:
    """Every item's quotes; the bad items' lines and reasons fail the whole file."""
    out = Normalized()
    errors: list[str] = []
    for item in items:
        try:
            quotes = to_quotes(item)
            stamp = item.get("observed_at")  # the import's time
            now = parse_time(stamp) if stamp else datetime.now(UTC)
            for quote in quotes:
                why = bounds.quote_reason(quote, now)
                if why:
                    raise ValueError(why)
            out.quotes.extend(quotes)
        except ValidationError as exc:
            errors.append(f"line {item['line']}: {validation_reason(exc)}")
        except ValueError as exc:  # MoneyError and other unreadable values
            errors.append(f"line {item['line']}: {exc}")
    fail_on(errors)
    return out


def _quote(item: dict[str, Any]) -> list[PriceQuote]:
    data = dict(item["data"])
    if not data.get("observed_at"):
        data["observed_at"] = item.get("observed_at")
    return [PriceQuote.model_validate(_row_fields(data))]


def normalize(items: Iterable[dict[str, Any]]) -> Normalized:
    return quotes_by_line(items, _quote)


class QuoteRow(TypedDict):
    """PriceQuote's fields and checks, one pydantic type per field: the bulk
    import validates a column at a time by them (`RowValidator`; a property
    test keeps the two in step)."""

    provider: str
    region: str
    zone: NotRequired[str]
    instance_type: str
    gpu_model: NotRequired[str | None]
    gpu_count: NotRequired[Decimal | None]
    gpu_memory_gb: NotRequired[Decimal | None]
    vcpu: NotRequired[Decimal | None]
    memory_gb: NotRequired[Decimal | None]
    gpu_interconnect: NotRequired[str | None]
    network_gbps: NotRequired[Decimal | None]
    os: NotRequired[str]
    price_model: PriceModel
    term: NotRequired[str]
    payment_option: NotRequired[str]
    price: Decimal
    currency: Annotated[str, AfterValidator(currency_code)]
    unit: Unit
    list_price: NotRequired[Decimal | None]
    upfront_fee: NotRequired[Decimal | None]
    availability: NotRequired[str | None]
    source_url: NotRequired[str]
    observed_at: Annotated[datetime, AfterValidator(aware_time)]
    attrs: NotRequired[dict[str, str]]
    median_price: NotRequired[Decimal | None]
    offer_count: NotRequired[Annotated[int, Field(ge=0)] | None]


_ROWS = RowValidator(QuoteRow)


def staged_columns(
    lines: Sequence[int],
    columns: Mapping[str, Sequence[Any]],
    stamp: str,
    errors: list[str],
    input_hashes: Sequence[str | None] | None = None,
    *,
    texts: bool = False,
) -> list[StagedQuote]:
    """The bulk path of `normalize`, a column of raw values per field (see
    `RowValidator.stage`); each bad line's reason is appended to `errors`."""
    return _ROWS.stage(
        lines,
        {name: raws for name, raws in columns.items() if name in QUOTE_FIELDS},
        stamp,
        errors,
        input_hashes,
        texts=texts,
    )


def staged_rows(items: Iterable[dict[str, Any]], errors: list[str]) -> list[StagedQuote]:
    """`staged_columns` of raw items `{"line", "observed_at", "data"}`."""
    out: list[StagedQuote] = []
    for stamp, group in groupby(items, key=itemgetter("observed_at")):
        batch = list(group)
        columns = {name: [item["data"].get(name) for item in batch] for name in QUOTE_FIELDS}
        out += _ROWS.stage([item["line"] for item in batch], columns, stamp, errors)
    return out
