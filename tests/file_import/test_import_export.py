"""`gpu-tracker import` (rows and SkyPilot catalogs) and `export`."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pandas as pd

from tests.conftest import FIXTURES
from tests.helpers.analytics_data import H100_ROWS, as_csv, as_json, load_rows, write_csv, write_jsonl


def test_a_bad_line_rejects_the_whole_file(cli, tmp_path: Path) -> None:
    rows = [dict(r) for r in H100_ROWS]
    rows[3]["price"] = "cheap"
    rows[5]["currency"] = "dollars"
    result = cli("import", str(write_jsonl(tmp_path / "bad.jsonl", rows)), "--source", "mycorp")
    assert result.code == 1 and len(result.err.strip().splitlines()) == 1
    assert "line 4: price" in result.err and "line 6: currency" in result.err and "nothing stored" in result.err
    assert as_json(cli("prices", "--format", "json")) == []
    # The refused file is on record, as refused input, never as a source fault.
    runs = as_json(cli("runs", "--format", "json"))
    assert [(r["status"], r["rows_written"]) for r in runs] == [("rejected", 0)] and "line 4" in runs[0]["error"]
    assert as_json(cli("changes", "--format", "json")) == []

    csv_rows = [dict(r) for r in H100_ROWS]
    del csv_rows[2]["price"]
    bad_csv = cli("import", str(write_csv(tmp_path / "bad.csv", csv_rows)), "--source", "mycorp")
    assert bad_csv.code == 1 and "line 4: price: Field required" in bad_csv.err  # line 1 is the header

    not_json = tmp_path / "broken.jsonl"
    not_json.write_text('{"provider": "aws"}\n{oops\n', encoding="utf-8")
    broken = cli("import", str(not_json), "--source", "mycorp")
    assert broken.code == 1 and "line 2: not JSON" in broken.err


def test_import_is_one_complete_run_with_diffs(cli, tmp_path: Path) -> None:
    load_rows(cli, tmp_path, H100_ROWS, source="mycorp")
    assert len(as_json(cli("prices", "--format", "json"))) == len(H100_ROWS)
    changed = [dict(r) for r in H100_ROWS]
    changed[0]["price"] = "50"
    result = cli("import", str(write_csv(tmp_path / "again.csv", changed)), "--source", "mycorp", "--format", "json")
    assert result.code == 0, result.err
    changes = json.loads(result.out)
    assert [(c["kind"], c["instance_type"], c["old_price"], c["new_price"]) for c in changes] == [
        ("price_drop", "p5.48xlarge", "55.04", "50")
    ]
    runs = as_json(cli("runs", "--format", "json"))
    assert [(r["source"], r["status"], r["mode"]) for r in runs] == [("mycorp", "ok", "import")] * 2
    refused = cli("import", str(write_jsonl(tmp_path / "x.jsonl", H100_ROWS)), "--source", "azure")
    assert refused.code == 1 and "crawled source" in refused.err


def test_skypilot_catalog(cli) -> None:
    result = cli(
        "import",
        str(FIXTURES / "skypilot" / "aws_vms.csv"),
        "--source",
        "skypilot-aws",
        "--from",
        "skypilot",
        "--format",
        "json",
    )
    assert result.code == 0, result.err
    prices = as_json(cli("prices", "--format", "json"))
    got = sorted(
        (p["region"], p["zone"], p["instance_type"], p["price_model"], p["price"], p["gpu_model"], p["gpu_count"])
        for p in prices
    )
    assert got == sorted(
        [
            ("us-east-1", "", "p3.2xlarge", "on_demand", "3.06", "V100", "1"),
            ("us-east-1", "use1-az1", "p3.2xlarge", "spot", "0.519700", "V100", "1"),
            ("eu-west-1", "", "p3.2xlarge", "on_demand", "3.305", "V100", "1"),
            ("eu-west-1", "euw1-az3", "p3.2xlarge", "spot", "1.380900", "V100", "1"),
            ("us-east-1", "", "p4d.24xlarge", "on_demand", "32.7726", "A100 40GB", "8"),
            ("us-east-1", "use1-az1", "p4d.24xlarge", "spot", "6.791500", "A100 40GB", "8"),
            ("us-east-1", "use1-az2", "p4d.24xlarge", "spot", "9.610700", "A100 40GB", "8"),
            ("ap-northeast-1", "", "p4d.24xlarge", "on_demand", "44.92215", "A100 40GB", "8"),
            ("ap-northeast-1", "apne1-az4", "p4d.24xlarge", "spot", "14.052000", "A100 40GB", "8"),
            ("us-east-1", "", "p5.48xlarge", "on_demand", "55.04", "H100", "8"),
        ]
    )
    assert {p["provider"] for p in prices} == {"aws"}


def test_skypilot_bad_price_names_the_line(cli, tmp_path: Path) -> None:
    lines = (FIXTURES / "skypilot" / "aws_vms.csv").read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace(",3.305,", ",n/a,")
    bad = tmp_path / "aws_vms.csv"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = cli("import", str(bad), "--source", "sky", "--from", "skypilot")
    assert result.code == 1 and "line 4: Price 'n/a' is not a number" in result.err
    unnamed = tmp_path / "catalog.csv"
    unnamed.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")
    assert "--provider" in cli("import", str(unnamed), "--source", "sky", "--from", "skypilot").err


def test_export_every_kind_and_format(cli, tmp_path: Path) -> None:
    load_rows(cli, tmp_path, H100_ROWS, source="mycorp")
    changed = [dict(r) for r in H100_ROWS]
    changed[0]["price"] = "50"
    load_rows(cli, tmp_path, changed, source="mycorp", name="again.jsonl")

    out = tmp_path / "prices.csv"
    assert cli("export", "prices", "--out", str(out)).code == 0
    exported = pd.read_csv(out, dtype=str)
    assert len(exported) == len(H100_ROWS) and "50" in set(exported["price"])

    history = tmp_path / "history.jsonl"
    assert cli("export", "history", "--out", str(history), "--gpu", "H100").code == 0
    lines = [json.loads(x) for x in history.read_text(encoding="utf-8").splitlines()]
    p5 = sorted(
        (r["price"], r["valid_to"] is None)
        for r in lines
        if r["instance_type"] == "p5.48xlarge" and r["price_model"] == "on_demand"
    )
    assert p5 == [("50", True), ("55.04", False)]

    parquet = tmp_path / "history.parquet"
    assert cli("export", "history", "--out", str(parquet)).code == 0
    frame = pd.read_parquet(parquet)
    assert len(frame) == len(H100_ROWS) + 1 and str(frame["valid_from"].dtype).startswith("datetime64")
    assert sorted(Decimal(p) for p in frame["price"])[0] == Decimal("2")

    changes = as_json(cli("export", "changes", "--format", "json"))
    assert [(c["kind"], c["new_price"]) for c in changes] == [("price_drop", "50")]
    assert as_csv(cli("export", "changes"))[0]["old_price"] == "55.04"
    offers = cli("export", "offers", "--format", "json")
    assert offers.code in (0, 1) and "Traceback" not in offers.err
    assert cli("export", "prices", "--format", "parquet").code == 1  # Parquet needs --out


def test_export_then_import_round_trips(cli, tmp_path: Path) -> None:
    load_rows(cli, tmp_path, H100_ROWS, source="mycorp")
    out = tmp_path / "mine.csv"
    assert cli("export", "prices", "--out", str(out)).code == 0
    result = cli("import", str(out), "--source", "copy")
    assert result.code == 0, result.err
    by_source: dict[str, list] = {}
    for row in as_json(cli("export", "prices", "--format", "json")):
        by_source.setdefault(row["source"], []).append(
            (row["instance_type"], row["price_model"], row["price"], row["gpu_count"], row["currency"])
        )
    assert sorted(by_source["copy"]) == sorted(by_source["mycorp"])
