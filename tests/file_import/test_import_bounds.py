"""The bounds of a stored price (`tracker/normalize/bounds.py`), as the
import's column validator, its JSON Lines and CSV readers and the crawl's
screen apply them (issue 40 item 1). The whole-process cases, on both back
ends, are rows of `tests/reliability/faults_input.py`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from db.schema import PriceQuote
from tracker.file_import import jsonl
from tracker.file_import.files import BadFile, open_records
from tracker.file_import.rows import normalize, staged_rows
from tracker.normalize import Normalized, NormalizeError, bounds
from tracker.scalars import inert

T0 = datetime(2026, 5, 1, tzinfo=UTC)
ROW = {
    "provider": "acme",
    "region": "eu-1",
    "instance_type": "gx.8",
    "gpu_count": "8",
    "price_model": "on_demand",
    "price": "25.50",
    "currency": "USD",
    "unit": "hour",
}


def _reasons(**fields: Any) -> list[str]:
    errors: list[str] = []
    staged_rows([{"line": 7, "observed_at": T0.isoformat(), "data": ROW | fields}], errors)
    return errors


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"price": "1e400"}, "price: '1E+400' is out of range: at least 0.000001 and below 1,000,000,000,000"),
        ({"price": "-5"}, "price: '-5' is out of range"),
        ({"price": "-0"}, "price: '-0' is out of range"),
        ({"price": "1e-400"}, "price: '1E-400' is out of range"),
        ({"price": "0.0000001"}, "price: '0.0000001' is out of range"),
        ({"price": "9" * 60}, "has more than 28 digits"),
        ({"price": "0"}, "price: 0 without an upfront_fee"),
        ({"price": 25.5, "list_price": -1}, "list_price: '-1' is out of range"),
        ({"gpu_count": "-1"}, "gpu_count: '-1' is out of range: above 0 and below 100,000"),
        ({"gpu_count": "0"}, "gpu_count: '0' is out of range"),
        ({"gpu_count": 10**30}, "gpu_count: '1000000000000000000000000000000' has more than 28 digits"),
        ({"vcpu": "1e9"}, "vcpu: '1000000000' is out of range"),
        ({"offer_count": 10**12}, "offer_count: '1000000000000' is out of range"),
        ({"observed_at": "9999-12-31T00:00:00Z"}, "observed_at: 9999-12-31T00:00:00+00:00 is in the future"),
        ({"observed_at": (T0 + timedelta(hours=2)).isoformat()}, "is in the future (more than 60 minutes after"),
        ({"observed_at": "1970-01-01T00:00:00Z"}, "observed_at: 1970-01-01T00:00:00+00:00 is before 2000-01-01"),
        ({"region": "eu\x00"}, "region: 'eu\\x00' holds a NUL character"),
        ({"instance_type": "x" * 201}, "instance_type: 'xxxx"),
        ({"source_url": "https://a.example/" + "p" * 2000}, "source_url:"),
        ({"attrs": {"a": "y" * 9000}}, "attrs: 9,009 characters of JSON, more than 8,192"),
        ({"attrs": json.dumps({"a": "\x00"})}, "attrs: holds a NUL character"),
    ],
)
def test_a_row_out_of_bounds_is_named_by_line_and_field(fields: dict[str, Any], reason: str) -> None:
    (found,) = _reasons(**fields)
    assert found.startswith("line 7: ") and reason in found, found
    assert len(found) < 200  # a long value is quoted by its head


@pytest.mark.parametrize(
    "fields",
    [
        {"price": "0", "upfront_fee": "12000"},  # an all-upfront term's hourly part
        {"price": "0.0000000000", "upfront_fee": "1"},
        {"price": "0.000001"},
        {"price": "999999999999.99"},
        {"gpu_count": "0.015625"},  # 1/64 of a GPU
        {"gpu_count": "99999"},
        {"upfront_fee": "0"},
        {"observed_at": (T0 + timedelta(minutes=59)).isoformat()},
        {"observed_at": "2000-01-01T00:00:00Z"},
        {"instance_type": "x" * 200},
    ],
)
def test_the_edges_of_the_bounds_are_within(fields: dict[str, Any]) -> None:
    assert _reasons(**fields) == []


def test_the_slow_path_says_the_same() -> None:
    """A SkyPilot file's rows go through PriceQuote: the same bounds, the same words."""
    items = [{"line": 3, "observed_at": T0.isoformat(), "data": ROW | {"price": "-5"}}]
    with pytest.raises(NormalizeError, match=r"line 3: price: '-5' is out of range"):
        normalize(items)


def test_a_json_key_given_twice_is_found_in_the_fast_path_and_line_by_line() -> None:
    good = json.dumps(ROW).encode()
    twice = good.replace(b'"price": "25.50"', b'"price": "25.50", "price": "-5"')
    nested = json.dumps(ROW | {"attrs": {"a": "1"}}).encode().replace(b'{"a": "1"}', b'{"a": "1", "a": "2"}')
    for lines in ([twice], [good, twice], [good, good, twice, good], [nested]):
        data = b"\n".join(lines) + b"\n"
        assert jsonl.block(data, len(lines)) is None  # the fast path hands it over
        with pytest.raises(BadFile, match=r"the key '(price|a)' is given twice"):
            jsonl.columns(range(1, len(lines) + 1), [line.decode() for line in lines])
    assert jsonl.named_twice(good) is None and jsonl.named_twice(twice) == "price"
    assert jsonl.block(good + b"\n" + good + b"\n", 2) is not None


def test_a_csv_column_named_twice_refuses_the_file(tmp_path: Path) -> None:
    path = tmp_path / "twice.csv"
    path.write_text("\nprovider,region,price,price\nacme,eu,1,-5\n", encoding="utf-8")
    with pytest.raises(BadFile, match=r"line 2: the column 'price' is named twice"), open_records(path, "rows"):
        pass


def _quote(**fields: Any) -> PriceQuote:
    base: dict[str, Any] = dict(ROW, observed_at=T0, price=Decimal("25.50"), gpu_count=Decimal(8))
    return PriceQuote.model_validate(base | fields)


def test_the_screen_skips_an_odd_quote_with_a_note_and_keeps_its_last_price() -> None:
    out = Normalized(
        quotes=[
            _quote(),
            _quote(instance_type="odd", price=Decimal(-5)),
            _quote(instance_type="odd", price=Decimal(-5), zone="b"),  # another zone: one note
            _quote(instance_type="huge", price=Decimal("1e30")),
            _quote(instance_type="term", price=Decimal(0), upfront_fee=Decimal(9000), term="1yr"),
            _quote(instance_type="free", price=Decimal(0)),
        ]
    )
    bounds.screen(out, "acme", T0)
    assert [q.instance_type for q in out.quotes] == ["gx.8", "term"]
    assert [(h.instance_type, h.price_model) for h in out.held] == [
        ("odd", "on_demand"),
        ("odd", "on_demand"),
        ("huge", "on_demand"),
        ("free", "on_demand"),
    ]
    assert out.notes == [
        "acme: odd (on_demand) in eu-1 skipped, its last price kept: price: '-5' is out of range: "
        "at least 0.000001 and below 1,000,000,000,000",
        "acme: huge (on_demand) in eu-1 skipped, its last price kept: price: "
        "'1000000000000000000000000000000' is out of range: at least 0.000001 and below 1,000,000,000,000",
        "acme: free (on_demand) in eu-1 skipped, its last price kept: price: 0 without an upfront_fee "
        "(only an all-upfront term's hourly price is 0)",
    ]


def test_the_quick_check_agrees_with_the_close_one() -> None:
    last = bounds.latest(T0)
    for fields in (
        {},
        {"region": "a\x00"},
        {"attrs": {"k": "\x00"}},
        {"attrs": {"k": "v" * 9000}},
        {"vcpu": Decimal("1e-20")},
        {"offer_count": 3, "median_price": Decimal(30)},
        {"observed_at": T0 + timedelta(days=2)},
        {"source_url": "u" * 2001},
    ):
        quote = _quote(**fields)
        if bounds._plainly_within(quote.__dict__, last):
            assert bounds.quote_reason(quote, T0) is None, fields


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1+2", "'+1+2"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-5", "-5"),
        ("-0.25", "-0.25"),
        ("+1E+3", "+1E+3"),
        ("H100", "H100"),
        (Decimal(-5), Decimal(-5)),
        (None, None),
    ],
)
def test_a_formula_cell_is_written_inert(cell: Any, written: Any) -> None:
    assert inert(cell) == written
