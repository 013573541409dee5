"""The answers of the analytics commands on the demo store, as recorded in
tests/data/golden_answers/*.json and as `tests/analytics/test_golden_answers.py`
compares them: compare, tco, recommend, history, prices, changes (JSON of
the command line) and the report's numbers (the text of its tables).

Record them again, on purpose only (a change of an answer is a change of
the product), with:

    .venv/bin/python -m tests.helpers.golden_answers

which runs `gpu-tracker demo` into a temporary home on SQLite and writes
one file per answer.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import sqlalchemy as sa

FOLDER = Path(__file__).parents[1] / "data" / "golden_answers"
# The demo's captures were taken up to 2026-12-01 03:00; the runs themselves,
# and a change a failing source records, are stamped with the time the demo
# ran. They are set to this time before anything is asked, so that an answer
# does not depend on the day the test runs.
SETTLED = "2026-12-01 12:00:00"
REPORT_NOW = datetime(2026, 12, 2, tzinfo=UTC)
REPORT_DAYS = 120
# The report's sections whose text is an answer (the charts are pictures, the
# health table the times of the runs).
REPORT_SECTIONS = ("summary", "cheapest", "changes", "offers", "recommendation")

COMMANDS: dict[str, list[str]] = {
    "compare_h100_8": ["compare", "--gpu", "H100", "--count", "8"],
    "compare_a100": ["compare", "--gpu", "A100"],
    "compare_h100_cny_tflop": ["compare", "--gpu", "H100", "--currency", "CNY", "--rank-by", "price_per_tflop_hour"],
    "compare_a100_us_ondemand_spot": [
        "compare",
        "--gpu",
        "A100",
        "--region-group",
        "us",
        "--price-model",
        "on_demand",
        "--price-model",
        "spot",
    ],
    "compare_gb_vram_limit": ["compare", "--gpu", "L", "--rank-by", "price_per_gb_vram_hour", "--limit", "15"],
    "tco_h100_8_36": ["tco", "--gpu", "H100", "--count", "8", "--months", "36"],
    "tco_a100_mix_egress": [
        "tco",
        "--gpu",
        "A100",
        "--count",
        "8",
        "--hours-per-month",
        "500",
        "--mix",
        "on_demand=0.5,reserved_1yr=0.5",
        "--egress-gb",
        "2000",
    ],
    "tco_a100_offer_cny": [
        "tco",
        "--gpu",
        "A100",
        "--count",
        "8",
        "--offer",
        "tencent:new-满10000",
        "--currency",
        "CNY",
    ],
    "tco_h100_spot_credit": [
        "tco",
        "--gpu",
        "H100",
        "--count",
        "16",
        "--mix",
        "spot=1",
        "--credit",
        "5000",
        "--credit-months",
        "6",
        "--storage-gb",
        "1000",
    ],
    "tco_aws_spot_credit": [
        "tco",
        "--gpu",
        "A100",
        "--provider",
        "aws",
        "--count",
        "16",
        "--mix",
        "spot=1",
        "--credit",
        "5000",
        "--credit-months",
        "6",
        "--storage-gb",
        "1000",
    ],
    "recommend_8_70gb": ["recommend", "--gpus", "8", "--min-gpu-memory", "70", "--months", "36", "--limit", "0"],
    "recommend_1": ["recommend", "--gpus", "1", "--limit", "0"],
    "recommend_half_inference": ["recommend", "--gpus", "0.5", "--workload", "inference", "--limit", "0"],
    "recommend_a100_new_cny": [
        "recommend",
        "--gpus",
        "1",
        "--gpu",
        "A100",
        "--hours-per-month",
        "100",
        "--months",
        "3",
        "--new-account",
        "--currency",
        "CNY",
        "--limit",
        "0",
    ],
    "recommend_eu_mix": [
        "recommend",
        "--gpus",
        "4",
        "--region-group",
        "eu",
        "--mix",
        "on_demand=0.25,reserved_1yr=0.75",
        "--qualify",
        "startups",
        "--limit",
        "0",
    ],
    "history_h100": ["history", "--gpu", "H100"],
    "history_a100_summary": ["history", "--gpu", "A100", "--summary"],
    "prices_h100_aws": ["prices", "--gpu", "H100", "--provider", "aws"],
    "prices_all": ["prices"],
    "prices_spot_region": ["prices", "--price-model", "spot", "--region", "us-east-1"],
    "changes_since": ["changes", "--since", "2026-09-01"],
}

Run = Callable[..., tuple[int, str, str]]


def settle(url: str) -> None:
    """Stamp what the demo stamped with the time it ran with `SETTLED` instead."""
    engine = sa.create_engine(url)
    at: Any = datetime.fromisoformat(SETTLED + "+00:00")
    if engine.dialect.name == "sqlite":  # stored as SQLAlchemy writes it: naive UTC text
        at = SETTLED + ".000000"
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE changes SET observed_at = :at WHERE observed_at > :at"), {"at": at})
        for column in ("started_at", "finished_at"):
            conn.execute(sa.text(f"UPDATE crawl_runs SET {column} = :at WHERE {column} > :at"), {"at": at})
    engine.dispose()


def _words(text: str) -> str:
    return " ".join(text.split())


def command_answer(run: Run, args: list[str]) -> dict[str, Any]:
    code, out, err = run(*args, "--format", "json")
    return {"args": args, "code": code, "rows": json.loads(out) if code == 0 else None, "stderr": _words(err)}


class _Text(HTMLParser):
    """The text of each table cell, card and heading of one report section, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.other: list[str] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._text: list[str] = []
        self._skip: str | None = None  # a chart's drawing or legend: a picture, not an answer

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if self._skip:
            return
        if (tag == "svg" and found.get("class") == "chart") or (tag == "ul" and found.get("class") == "legend"):
            self._skip = tag
            if tag == "svg":  # recorded as the picture it was when the answers were recorded
                self.other.append("img: " + (found.get("aria-label") or ""))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.other.append("img: " + (dict(attrs).get("alt") or ""))

    def handle_endtag(self, tag: str) -> None:
        if self._skip:
            self._skip = None if tag == self._skip else self._skip
            return
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(_words(" ".join(self._cell)))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None
        elif tag in ("p", "h2", "h3", "div", "figcaption") and self._text:
            text = _words(" ".join(self._text))
            if text:
                self.other.append(text)
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._cell is not None:
            self._cell.append(data)
        elif self._row is None:
            self._text.append(data)


def report_numbers(html: str) -> dict[str, Any]:
    """Per section of the report that holds answers: its table rows and its other text."""
    out: dict[str, Any] = {}
    for name, body in re.findall(r'<section id="([^"]+)">(.*?)</section>', html, flags=re.DOTALL):
        if name not in REPORT_SECTIONS and name != "history":
            continue
        parser = _Text()
        parser.feed(body)
        out[name] = {"other": parser.other} if name == "history" else {"rows": parser.rows, "other": parser.other}
    return out


def report_answer(url: str) -> dict[str, Any]:
    from tracker.analytics.facts.reference import load_references
    from tracker.analytics.history import open_store
    from tracker.answers import report

    engine = open_store(url)
    try:
        request = report.ReportRequest(currency="USD", days=REPORT_DAYS, now=REPORT_NOW)
        html = report.html(engine, load_references(), request)
    finally:
        engine.dispose()
    return report_numbers(html)


def answers(run: Run, url: str) -> dict[str, Any]:
    """Every recorded answer, by name, from the CLI `run` on the store at `url`."""
    found = {name: command_answer(run, args) for name, args in COMMANDS.items()}
    found["report"] = report_answer(url)
    return found


def dump(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str]) -> None:
    import os

    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    if argv:
        sys.exit(f"no arguments are taken (got {argv[0]!r}); see --help")

    from tests.helpers.stores import run_demo

    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        home = Path(tmp) / "home"
        demo = run_demo(home)
        if demo.code != 0:
            sys.exit(f"the demo failed: {demo.err[-2000:]}")
        settle(demo.url)
        os.environ["GPU_TRACKER_HOME"] = str(home)
        os.environ["GPU_TRACKER_DATABASE_URL"] = demo.url

        def run(*args: str) -> tuple[int, str, str]:
            from tracker.cli import main as cli

            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli(["--home", str(home), *args])
            return code, out.getvalue(), err.getvalue()

        FOLDER.mkdir(parents=True, exist_ok=True)
        for name, value in answers(run, demo.url).items():
            (FOLDER / f"{name}.json").write_text(dump(value), encoding="utf-8")
            print(f"wrote {name}.json")


if __name__ == "__main__":
    main(sys.argv[1:])
