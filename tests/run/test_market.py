"""Marketplace rows (docs/marketplaces.md): the tolerance, from a table of
cases; and, through the CLI on SQLite and PostgreSQL, a group that goes
(sold out after two misses) and comes back (available again), the rules
that select it and the message a person reads."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from alerts.render import Family, single
from alerts.rules import Rule
from alerts.settings import RuleSettings
from db.schema import Change, TrackedPrice
from tests.conftest import DEMO_CAPTURES
from tests.helpers.harutil import page_json, set_page_json, shifted
from tracker.run.diff.market import Move, beyond, judge

EARLY = DEMO_CAPTURES / "vastai" / "2026-11-02-europe+north-america+asia.har.gz"
# The four crawls run once per worker and back end (`replayed`,
# tests/helpers/replayed.py); each test reads a copy of the store after them.
pytestmark = pytest.mark.xdist_group("run-market")
D = Decimal


def before(price: str, median: str | None, offers: int | None) -> TrackedPrice:
    return TrackedPrice(1, "h", D(price), None, 0, None if median is None else D(median), offers)


def fields(price: str, median: str | None, offers: int) -> dict:
    median_price = None if median is None else D(median)
    return {"price": D(price), "median_price": median_price, "offer_count": offers, "availability": None}


# stored (price, median, offers), seen now (price, median, offers), what it is
CASES = [
    (("1.00", "1.20", 10), ("1.00", "1.20", 10), Move.wobble),
    (("1.00", "1.20", 10), ("1.09", "1.25", 12), Move.wobble),  # +9%, +4%, +20%
    (("1.00", "1.20", 10), ("1.10", "1.20", 10), Move.wobble),  # exactly the tolerance is inside it
    (("1.00", "1.20", 10), ("1.11", "1.20", 10), Move.move),
    (("1.00", "1.20", 10), ("0.89", "1.20", 10), Move.move),
    (("1.00", "1.20", 10), ("1.00", "1.40", 10), Move.quiet),  # the median alone: rewritten, not announced
    (("1.00", "1.20", 10), ("1.00", "1.20", 5), Move.quiet),  # halved
    (("1.00", "1.20", 10), ("1.00", "1.20", 6), Move.wobble),
    (("1.00", "1.20", 1), ("1.00", "1.20", 2), Move.quiet),  # one to two offers is twice as many
    (("1.00", None, 1), ("1.00", "1.00", 1), Move.quiet),  # a figure appearing is a move of it
    (("1.00", None, None), ("1.00", "1.00", 3), Move.move),  # it was a list price
]


@pytest.mark.parametrize(("stored", "now", "expected"), CASES)
def test_the_tolerance_decides_what_a_change_is(stored, now, expected) -> None:
    assert judge(fields(*now), before(*stored), tolerance=D("0.10"), count_tolerance=D("0.5")) is expected


def test_beyond_is_relative_to_the_stored_figure() -> None:
    assert not beyond(D(100), D(105), D("0.05"))
    assert beyond(D(100), D("105.01"), D("0.05"))
    assert beyond(None, D(1), D("0.5")) and not beyond(None, None, D("0.5"))


def _without_h200(i: int, entry: dict) -> None:
    page = page_json(entry)
    page["offers"] = [o for o in page["offers"] if o["gpu_name"] != "H200"]
    set_page_json(entry, page)


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, ...]]:
    """Replays of the early capture; two days without the 8x H200 offer; then with it again."""
    tmp_path = tmp_path_factory.mktemp("vastai")
    day = datetime(2026, 11, 2, 6, 0, tzinfo=UTC)
    captures = [
        EARLY,
        shifted(EARLY, tmp_path / "d1.har", day.replace(day=3), _without_h200),
        shifted(EARLY, tmp_path / "d2.har", day.replace(day=4), _without_h200),
        shifted(EARLY, tmp_path / "d3.har", day.replace(day=5)),
    ]
    return [("crawl", "vastai", "--replay", str(har)) for har in captures]


def h200_changes(cli) -> list[dict]:
    rows = json.loads(cli("changes", "--format", "json").out)
    return [r for r in rows if r["instance_type"] == "8x H200 verified"]


def test_a_group_sold_out_after_two_misses_and_available_again(cli, replayed, crawls) -> None:
    # The store after each of the crawls in turn (a copy of it).
    assert [r.code for r in replayed(*crawls[:2])] == [0, 0]
    assert h200_changes(cli) == []  # one miss is not sold out
    assert replayed(*crawls[:3])[2].code == 0
    sold = h200_changes(cli)
    assert [(c["kind"], c["price_model"]) for c in sold] == [
        ("availability_changed", "on_demand"),
        ("availability_changed", "spot"),
    ]
    assert sold[0]["detail"] == (
        "availability: available -> sold_out; offers: 0; old_median_price: 26.4; old_offers: 1; tier: verified"
    )
    assert replayed(*crawls)[3].code == 0
    again = [c for c in h200_changes(cli) if c not in sold]
    assert [(c["kind"], c["price_model"]) for c in again] == [
        ("availability_changed", "on_demand"),
        ("availability_changed", "spot"),
    ]
    assert again[0]["detail"].startswith("availability: sold_out -> available; median_price: 26.4; offers: 1")
    assert "sold_out_since: 2026-11-04T06:00" in again[0]["detail"]
    # Only the H200 moved in those four runs: the other groups were the same offers.
    others = [c for c in json.loads(cli("changes", "--format", "json").out) if c["instance_type"] != "8x H200 verified"]
    assert others == []
    # The history shows the gap: one interval before, one after.
    history = json.loads(cli("history", "--provider", "vastai", "--gpu", "H200", "--format", "json").out)
    on_demand = [h for h in history if h["price_model"] == "on_demand"]
    assert [(h["valid_to"] is None) for h in on_demand] == [False, True]


def test_rules_select_stock_and_messages_read_well(cli, replayed, crawls) -> None:
    assert [r.code for r in replayed(*crawls)] == [0, 0, 0, 0]
    rows = [r for r in h200_changes(cli) if r["price_model"] == "on_demand"]
    sold, back = _change(rows[0]), _change(rows[1])
    stock = Rule(RuleSettings(name="h200", channels=["c"], gpu=["H200"], availability=["available"], min_offers=1))
    assert stock.mismatch(back) is None
    assert stock.mismatch(sold) == "availability sold_out is not available"
    many = Rule(RuleSettings(name="many", channels=["c"], min_offers=2))
    assert many.mismatch(back) == "1 offers, not at least 2"
    text = single(("k", back), Family.text).body
    assert text.splitlines()[0] == "8 × H200 verified available again on vastai in north-america"
    assert "Stock: sold out → 1 offer" in text and "Lowest: 26.40 USD/hour" in text
    assert "Per GPU-hour: 3.30 USD" in text
    gone = single(("k", sold), Family.text).body
    assert gone.splitlines()[0] == "8 × H200 verified sold out on vastai in north-america"
    assert "Stock: 1 offer → none" in gone and "Lowest: was 26.40 USD/hour" in gone


def _change(row: dict) -> Change:
    detail = dict(part.split(": ", 1) for part in row["detail"].split("; "))
    detail["old_availability"], _, detail["new_availability"] = detail.pop("availability").partition(" -> ")
    return Change.model_validate({**row, "detail": detail})
