"""Tables for a person: they fit an 80- or 120-column terminal, fold GPU,
terms and price into readable cells, show money at a precision for its size,
and --wide shows every column; JSON and CSV keep exact values."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest

from tests.cli.test_alert_cli import crawl_azure
from tracker.cli.output import RUN_CHANGES_SHOWN, OutputFormat, emit

RESERVED = dict(
    provider="aws",
    region="us-east-1",
    instance_type="p5.48xlarge",
    gpu_model="H100",
    gpu_count=Decimal(8),
    price_model="reserved",
    term="1yr",
    currency="USD",
    price_per_gpu_hour=Decimal("3.4117123287671232876712328767"),
)


def test_reserved_rows_show_upfront_fees_and_the_payment_option(capsys: pytest.CaptureFixture[str], monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    rows = [
        {
            **RESERVED,
            "payment_option": "all_upfront",
            "price": Decimal("0E-10"),
            "unit": "hour",
            "upfront_fee": Decimal("239000.0000000000"),
        },
        {**RESERVED, "payment_option": "no_upfront", "price": Decimal("70.5280000000"), "unit": "hour"},
    ]
    columns = [
        "provider",
        "region",
        "instance_type",
        "gpu_model",
        "gpu_count",
        "price_model",
        "term",
        "payment_option",
        "price",
        "currency",
        "unit",
        "upfront_fee",
        "price_per_gpu_hour",
    ]
    emit(rows, OutputFormat.table, columns=columns)
    out = capsys.readouterr().out
    assert "239000.00 USD upfront" in out and "70.53 USD/h" in out
    assert "reserved 1yr all_upfront" in out and "reserved 1yr no_upfront" in out
    assert "8 × H100" in out and "3.412 USD" in out
    assert "0000000000" not in out and "0.0000" not in out
    emit(rows, OutputFormat.json, columns=columns)
    exact = json.loads(capsys.readouterr().out)
    assert exact[1]["price"] == "70.5280000000" and exact[0]["upfront_fee"] == "239000.0000000000"


@pytest.mark.slow
def test_every_listing_fits_the_terminal(sqlite_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    crawl_azure(sqlite_cli)
    out: dict[tuple[str, ...], str] = {}  # at 120 columns
    for width in (80, 120):
        monkeypatch.setenv("COLUMNS", str(width))
        for args in (
            ["prices"],
            ["prices", "--wide"],
            ["changes"],
            ["changes", "--wide"],
            ["runs"],
            ["history", "--gpu", "A100"],
            ["history", "--gpu", "A100", "--summary"],
            ["offers"],
        ):
            result = sqlite_cli(*args)
            assert result.code == 0, (args, result.err)
            lines = result.out.splitlines()
            assert max(map(len, lines), default=0) <= width, (width, args, max(lines, key=len))
            assert "0000000000" not in result.out, args
            out[tuple(args)] = result.out
    prices = out["prices",]
    assert "per GPU-h" in prices and "GPU" in prices and "provider" in prices
    wide = out["prices", "--wide"]
    # Every column, not only the main ones: at 120 columns they wrap into many more lines.
    assert len("".join(wide.split())) > 2 * len("".join(prices.split())) or len(wide.splitlines()) > 2 * len(
        prices.splitlines()
    )
    # ... as a block per price, each value whole on its line (a table of 40 columns
    # folded every cell into a sliver: 54,000 lines for 615 prices).
    every = json.loads(sqlite_cli("prices", "--format", "json").out)
    blocks = re.findall(r"^-\[ (\d+) of (\d+) \]-+$", wide, re.M)
    assert blocks == [(str(n), str(len(every))) for n in range(1, len(every) + 1)]
    instances = re.findall(r"^instance +(\S+)$", wide, re.M)
    assert instances == [r["instance_type"] for r in every]
    assert len(wide.splitlines()) < 40 * len(every)
    assert re.search(r"^gpu_memory_gb +\d+$", wide, re.M) and re.search(r"^source_url +https://", wide, re.M)
    changes = out["changes",]
    assert "→" in changes  # old → new in one cell
    exact = json.loads(sqlite_cli("changes", "--format", "json").out)
    assert "change" not in exact[0] and "instance" not in exact[0]  # the table's cells stay out of JSON


def test_a_runs_table_shows_a_screenful_of_its_changes_and_counts_the_rest(sqlite_cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "160")

    def export(day: int, cents: int) -> str:
        path = tmp_path / f"day{day}.jsonl"
        rows = [
            {
                "provider": "aws",
                "region": "us-east-1",
                "instance_type": f"p5.{i}xlarge",
                "gpu_model": "H100",
                "gpu_count": "8",
                "price_model": "on_demand",
                "price": f"{cents + i}.00",
                "currency": "USD",
                "unit": "hour",
                "observed_at": f"2026-11-{day:02d}T00:00:00+00:00",
            }
            for i in range(RUN_CHANGES_SHOWN + 10)
        ]
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        return str(path)

    assert sqlite_cli("import", export(1, 90), "--source", "mine").code == 0
    result = sqlite_cli("import", export(2, 80), "--source", "mine")
    assert result.code == 0
    assert f"{RUN_CHANGES_SHOWN + 10} changes" in result.err
    assert result.out.count("p5.") == RUN_CHANGES_SHOWN
    assert "and 10 more not shown here" in result.err
    every = sqlite_cli("changes", "--format", "json")
    assert len(json.loads(every.out)) == RUN_CHANGES_SHOWN + 10


def test_a_wide_table_stays_a_table_where_its_columns_fit(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    rows = [{**RESERVED, "payment_option": "no_upfront", "price": Decimal("70.528"), "unit": "hour"}]
    columns = [*RESERVED, "payment_option", "price", "unit"]
    monkeypatch.setenv("COLUMNS", "200")
    emit(rows, OutputFormat.table, columns=columns, wide=True)
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["provider", "region", "instance", "gpu_model", *table[0].split()[4:]]
    assert len(table) == 3 and "p5.48xlarge" in table[2] and "-[" not in "".join(table)
    monkeypatch.setenv("COLUMNS", "60")
    emit(rows, OutputFormat.table, columns=columns, wide=True)
    block = capsys.readouterr().out.splitlines()
    assert block[0] == "-[ 1 of 1 ]" + "-" * 49
    assert "instance        p5.48xlarge" in block and "payment_option  no_upfront" in block
    assert max(map(len, block)) <= 60
