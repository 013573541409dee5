"""Issue 39: an offer block in words the reader does not know yet is said,
not hidden, and never breaks the page. The run goes on with what it read,
names the block in its note, and keeps the offer read from that block
before (no `offer_removed`, no `source_broken`). A page none of whose blocks
even looks like an offer is still broken.

The page is a watch page read by the real page object (spiders/watch.py),
written here (no public copy holds a page whose wording changes this way):
it proves self-consistency only.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from parsel import Selector

from db.schema import CrawlResult, RunStatus
from db.store.engine import make_engine, migrate
from tracker.config.watch import WatchSettings, watch_source
from tracker.run.pipeline import Pipeline

WELCOME = "New customers get $300 in free credits, valid 90 days."
VOUCHER = "新用户专享 满1000减300"
ODD = "Spend $100, earn 2x credits on every GPU order this month."  # an offer, in words the reader does not read


def page(welcome: str, voucher: str) -> str:
    return (
        f'<div class="offer" id="welcome"><h3>Welcome credit</h3><p>{welcome}</p></div>'
        f'<div class="offer" id="voucher"><h3>GPU 代金券</h3><p>{voucher}</p></div>'
        '<div class="offer" id="faq"><h3>Help</h3><p>How to sign in to the console.</p></div>'
    )


def items(html: str) -> list[dict[str, Any]]:
    from spiders.watch import parse_matches

    return [
        {
            "kind": "watch.match",
            "observed_at": "2026-08-03T06:00:00Z",
            "source_url": "https://example.com/promos",
            "watch": "promos",
            "provider": "gcp",
            "offer_kind": "",
            "ignore": [],
            "currency": None,
            "data": record,
        }
        for record in parse_matches(Selector(text=html), ".offer", what="watch:promos")
    ]


def test_a_block_in_new_words_is_named_and_its_offer_kept(tmp_path: Path) -> None:
    settings = WatchSettings(name="promos", url="https://example.com/promos", provider="gcp", selector=".offer")
    source = watch_source([settings], settings.source_name)[0]
    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    migrate(engine)
    moments = (datetime(2027, 1, 1, tzinfo=UTC) + timedelta(hours=h) for h in itertools.count())
    pipeline = Pipeline(engine, clock=lambda: next(moments))

    def run(html: str):
        now = next(moments)
        result = CrawlResult(
            source=source.name, provider="gcp", started_at=now, finished_at=now, items=items(html), observed_at=None
        )
        return pipeline.run(source, lambda run_id: result, mode="replay")

    first = run(page(WELCOME, VOUCHER))
    assert first.ok
    # The welcome block is now written in words the reader does not know, three times
    # (more than the removal confirmations): its offer stays, and each run names it.
    for _ in range(3):
        report = run(page(ODD, VOUCHER))
        assert report.status == RunStatus.ok, report.error
        assert [c.kind for c in report.changes] == []
        note = " ".join(report.notes)
        assert "look like offers but could not be read (please report them): watch:promos:welcome" in note, note
    with engine.connect() as conn:
        open_offers = conn.execute(
            sa.text("SELECT offer_id FROM offers WHERE source = :s AND valid_to IS NULL ORDER BY offer_id"),
            {"s": source.name},
        ).scalars()
        assert len([o for o in open_offers if o.endswith("welcome")]) == 1

    # A page whose only offer-like blocks cannot be read: not broken, nothing removed.
    report = run(page(ODD, ODD.replace("$100", "$800")))
    assert report.status == RunStatus.ok, report.error
    assert [(c.kind, c.detail) for c in report.changes] == []

    # The words come back: nothing changed, nothing said.
    report = run(page(WELCOME, VOUCHER))
    assert report.ok and [c.kind for c in report.changes] == []

    # A page with no block that even looks like an offer is broken, as before.
    report = run('<div class="offer" id="faq"><h3>Help</h3><p>How to sign in.</p></div>')
    assert report.status == RunStatus.failed
    assert [c.kind for c in report.changes] == ["source_broken"]
    engine.dispose()
