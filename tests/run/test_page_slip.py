"""A slip in one page (issue 40, item 2): one page of an Azure answer of
three comes back x10. Only its prices are held, at their last good value,
named by the page they came from; the rest of the run is stored, and
neither this run nor the next good one announces a move of them.

The captures are the demo's (tracker/demo_captures/azure/README.md says
where their shape comes from); the edit multiplies `retailPrice` and
`unitPrice` of the second page's `Items`, the fields the normalizer reads."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DEMO_CAPTURES, Cli, Replayed
from tests.helpers.harutil import page_json, set_page_json, shifted

# The first crawl is the one tests/spiders/test_replay.py starts from: one
# worker replays it once for both (`replayed`, tests/helpers/replayed.py).
pytestmark = pytest.mark.xdist_group("spiders-replay")

EARLY = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"
FIRST = ("crawl", "azure", "--region", "westeurope", "--replay", str(EARLY), "--format", "json")


def page_times(page: int, factor: float) -> Callable[[int, dict[str, Any]], None]:
    """An edit for `shifted`: every price of the `page`-th answer (from 0) times `factor`."""

    def edit(i: int, entry: dict[str, Any]) -> None:
        if i != page:
            return
        answer = page_json(entry)
        for item in answer["Items"]:
            for key in ("retailPrice", "unitPrice"):
                item[key] = round(item[key] * factor, 6)
        set_page_json(entry, answer)

    return edit


def crawl(cli: Cli, har: Path) -> Any:
    return cli("crawl", "azure", "-r", "westeurope", "--replay", str(har))


def prices(cli: Cli) -> str:
    listed = cli("prices", "--format", "json")
    assert listed.code == 0 and json.loads(listed.out), listed.err
    return listed.out


def check_one_page_slip(cli: Cli, replayed: Replayed, tmp: Path, factor: float, shown: str) -> None:
    assert replayed(FIRST)[0].code == 0
    before = prices(cli)
    slipped = shifted(EARLY, tmp / "slip.har", datetime(2026, 8, 4, tzinfo=UTC), page_times(1, factor))
    result = crawl(cli, slipped)
    assert result.code == 0, result.err
    said = " ".join(result.err.split())  # the terminal's width wraps it
    assert f"moved by the same factor ({shown}), all from page " in said, result.err
    assert "$skip=250" in result.err.replace("\n", "") and "their last good prices are kept" in said
    assert prices(cli) == before  # the slipped page's prices kept, the others unchanged
    runs = json.loads(cli("runs", "--format", "json").out)
    assert [r["status"] for r in runs] == ["ok", "ok"]
    changes = json.loads(cli("changes", "--format", "json").out)
    kinds = Counter(c["kind"] for c in changes)
    assert kinds == {"price_suspect": 1}, kinds  # no +900% rises
    held = changes[0]
    assert "$skip=250" in held["detail"] and "216 of the 614 prices" in held["detail"], held
    good = crawl(cli, shifted(EARLY, tmp / "good.har", datetime(2026, 8, 5, tzinfo=UTC)))
    assert good.code == 0, good.err
    kinds = Counter(c["kind"] for c in json.loads(cli("changes", "--format", "json").out))
    assert kinds == {"price_suspect": 1}, kinds  # and no drops back on the next good crawl
    assert prices(cli) == before


def test_one_page_times_ten_holds_only_that_page(cli: Cli, replayed: Replayed, tmp_path: Path) -> None:
    check_one_page_slip(cli, replayed, tmp_path, 10, "x10")


def test_one_page_divided_by_ten_holds_only_that_page(cli: Cli, replayed: Replayed, tmp_path: Path) -> None:
    check_one_page_slip(cli, replayed, tmp_path, 0.1, "/10")


def test_a_few_prices_moved_by_one_factor_are_a_repricing(cli: Cli, replayed: Replayed, tmp_path: Path) -> None:
    """Fewer than 20 prices and 10% of those matched: no slip of the source."""

    def few(i: int, entry: dict[str, Any]) -> None:
        if i == 2:
            answer = page_json(entry)
            for item in answer["Items"][:12]:
                for key in ("retailPrice", "unitPrice"):
                    item[key] = round(item[key] * 10, 6)
            set_page_json(entry, answer)

    assert replayed(FIRST)[0].code == 0
    result = crawl(cli, shifted(EARLY, tmp_path / "few.har", datetime(2026, 8, 4, tzinfo=UTC), few))
    assert result.code == 0 and "same factor" not in result.err, result.err
    # Stored, and judged by the market check alone (x10 is far from their market).
    changes = json.loads(cli("changes", "--format", "json").out)
    assert changes and not [c for c in changes if "same factor" in c["detail"]], changes
