"""Bad input of a source is a `source_broken` verdict, whatever exception it
makes a normalizer or a page object raise: the run is marked failed with the
exception's type and message in one sentence, the change is announced once,
the last good data stays, and no run is left `running`.

The fuzz test takes every registered source (offers included) and the two
kinds of watch page, replays the first demo capture of each once, and feeds
the pipeline those real items with parts replaced by arbitrary JSON values
or removed.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import shutil
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parsel import Selector

from db.schema import CrawlResult, RunStatus
from db.store.engine import make_engine, migrate
from tests.conftest import DEMO_CAPTURES, examples
from tests.security.shapes import mutated
from tracker.normalize import Normalized, NormalizeError
from tracker.run.pipeline import Pipeline
from tracker.sources import SOURCES, Source

# Items kept per kind of item and source: enough of each kind to make a
# snapshot, few enough that one example takes milliseconds.
PER_KIND = 8
EXAMPLES = settings(
    max_examples=examples(int(os.environ.get("GPU_TRACKER_FUZZ_EXAMPLES", "15"))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# A watch page the spider's page object reads (spiders/watch.py); written
# here, as no demo capture holds a watch page: it proves self-consistency only.
WATCH_PAGE = """<html><body>
<div class="offer" id="welcome"><h3>Welcome credit</h3><p>New customers get $300 in free credits, valid 90 days.</p></div>
<div class="offer" id="voucher"><h3>GPU 代金券</h3><p>新用户专享 满1000减300</p></div>
<div class="price" data-sku="a100"><b>A100</b> $3.06/hour</div>
<div class="price" data-sku="h100"><b>H100</b> ¥1200/月</div>
</body></html>"""


def _watch_sources() -> dict[str, tuple[Source, str]]:
    """The watch normalizer as the registry of watch pages builds it, for offers and for prices."""
    from tracker.config.watch import WatchSettings, watch_source

    pages = [
        WatchSettings(name="promos", url="https://example.com/promos", provider="gcp", selector=".offer"),
        WatchSettings(name="gpus", url="https://example.com/gpus", provider="gcp", selector=".price", kind="price"),
    ]
    return {w.source_name: (watch_source(pages, w.source_name)[0], w.selector) for w in pages}


def _watch_items(name: str, selector: str) -> list[dict[str, Any]]:
    from spiders.watch import parse_matches

    source = _watch_sources()[name][0]
    records = parse_matches(Selector(text=WATCH_PAGE), selector, what=name)
    offer_kind = "price" if source.kind == "prices" else ""
    return [
        {
            "kind": "watch.match",
            "observed_at": "2026-08-03T06:00:00Z",
            "source_url": "https://example.com/",
            "watch": name.removeprefix("watch:"),
            "provider": "gcp",
            "offer_kind": offer_kind,
            "ignore": [],
            "currency": None,
            "data": r,
        }
        for r in records
    ]


def _sample(source: Source, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A few items of each kind, or all of them when those few price nothing
    (GCP's GPU SKUs sit among many others)."""
    kept: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for item in items:
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
        if counts[item["kind"]] <= PER_KIND:
            kept.append(item)
    assert source.normalizer is not None
    try:
        normalized = source.normalizer(copy.deepcopy(kept))
    except NormalizeError:
        return items
    return kept if normalized.quotes or normalized.offers else items


@pytest.fixture(scope="module")
def demo_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CrawlResult]:
    """Each source's first demo capture, replayed once by the real spiders."""
    from tracker.run.captures import capture_regions
    from tracker.run.crawl import CrawlRequest, replay_crawls

    folder = tmp_path_factory.mktemp("replays")
    reqs = []
    for name, source in SOURCES.items():
        first = sorted((DEMO_CAPTURES / name).glob("*.har.gz"))[0]
        reqs.append(CrawlRequest(source=source, out_dir=folder / name, regions=capture_regions(first), replay=first))
    results = {}
    with replay_crawls(reqs, folder) as batch:
        for req, result in zip(reqs, batch, strict=True):
            assert result.ok and result.items, (req.source.name, result.error)
            results[req.source.name] = result.model_copy(update={"items": _sample(req.source, result.items)})
    for name, (_, selector) in _watch_sources().items():
        now = datetime(2026, 8, 3, 6, tzinfo=UTC)
        results[name] = CrawlResult(
            source=name, provider="gcp", started_at=now, finished_at=now, items=_watch_items(name, selector)
        )
    return results


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated SQLite store, copied for each source."""
    path = tmp_path_factory.mktemp("template") / "store.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    engine.dispose()
    return path


@st.composite
def spoiled(draw: st.DrawFn, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items with parts of one or two of them replaced by a random JSON
    value (or an odd text a page might hold), or removed; an item stays a
    dict, as the crawler writes it."""
    out = list(items)
    for _ in range(draw(st.integers(1, 2))):
        at = draw(st.integers(0, len(out) - 1))
        out[at] = draw(mutated(out[at], keep_root=True))
    return copy.deepcopy(out)


def _snapshot(engine: sa.Engine, source: str) -> list[tuple[Any, ...]]:
    with engine.connect() as conn:
        prices = conn.execute(sa.text("SELECT * FROM price_points WHERE source = :s ORDER BY id"), {"s": source}).all()
        offers = conn.execute(sa.text("SELECT * FROM offers WHERE source = :s ORDER BY id"), {"s": source}).all()
    return [tuple(r) for r in [*prices, *offers]]


def _statuses(engine: sa.Engine) -> list[str]:
    with engine.connect() as conn:
        return [r[0] for r in conn.execute(sa.text("SELECT status FROM crawl_runs ORDER BY id"))]


NAMES = [*SOURCES, "watch:promos", "watch:gpus"]


@pytest.mark.parametrize("name", NAMES)
def test_any_bad_item_ends_the_run_ok_or_source_broken(
    name: str, demo_results: dict[str, CrawlResult], migrated: Path, tmp_path: Path
) -> None:
    source = SOURCES[name] if name in SOURCES else _watch_sources()[name][0]
    shutil.copyfile(migrated, tmp_path / "store.db")
    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    moments = (datetime(2027, 1, 1, tzinfo=UTC) + timedelta(hours=h) for h in itertools.count())
    pipeline = Pipeline(engine, clock=lambda: next(moments))
    good = demo_results[name]

    def run(items: list[dict[str, Any]]):
        result = good.model_copy(update={"items": items, "observed_at": None})
        return pipeline.run(source, lambda run_id: result, mode="replay")

    # The baseline may itself be a broken source (volcengine-offers' page states no offer).
    state = {"last_ok": run(copy.deepcopy(good.items)).ok}

    @EXAMPLES
    @given(spoiled(good.items))
    def check(items: list[dict[str, Any]]) -> None:
        before = _snapshot(engine, source.name)
        report = run(items)  # never raises
        assert report.status in (RunStatus.ok, RunStatus.failed, RunStatus.quarantined), report
        if not report.ok:
            assert report.error and "\n" not in report.error
            assert _snapshot(engine, source.name) == before  # the last good data stays
            kinds = [c.kind for c in report.changes]
            # Announced once: on the first bad run after a good one.
            assert kinds == (["source_broken"] if state["last_ok"] else []), (kinds, report.error)
            assert not any(k in kinds for k in ("price_increase", "price_drop", "sku_removed", "offer_removed"))
        state["last_ok"] = report.ok
        assert "running" not in _statuses(engine)

    check()
    engine.dispose()


def _duration_days_of_issue_27(items: Iterable[Any]) -> Normalized:
    """The offers normalizer as issue 27 found it: `int(str(...))` of a
    voucher's days, a ValueError for Tencent's `validDays` of 30.5 (the
    normalizer now reads it as a number of days; this keeps the bug)."""
    from tracker.normalize.offers import normalize

    items = list(items)  # the pipeline's list
    for item in items:
        if item["data"].get("duration_days") not in (None, ""):
            int(str(item["data"]["duration_days"]))
    return normalize(items)


def test_a_normalizer_exception_is_source_broken_naming_it(migrated: Path, tmp_path: Path) -> None:
    """Issue 27: a Tencent voucher valid for 30.5 days made the offers
    normalizer raise ValueError, which left the run `running` (then
    `aborted`) and announced nothing. The real crawl of the demo capture,
    then the same items with the odd value, through the pipeline."""
    from tracker.run.crawl import CrawlRequest, run_crawl

    shutil.copyfile(migrated, tmp_path / "store.db")
    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    pipeline = Pipeline(engine)
    real = SOURCES["tencent-offers"]
    source = Source(real.name, real.provider, real.spider, _duration_days_of_issue_27, kind="offers")
    first = sorted((DEMO_CAPTURES / "tencent-offers").glob("*.har.gz"))[0]
    crawled = run_crawl(CrawlRequest(source=source, out_dir=tmp_path / "run", replay=first))
    assert pipeline.run(source, lambda run_id: crawled, mode="replay").ok
    kept = _snapshot(engine, source.name)
    odd = copy.deepcopy(crawled.items)
    odd[0]["data"]["duration_days"] = 30.5
    assert crawled.observed_at is not None
    later = crawled.model_copy(update={"items": odd, "observed_at": crawled.observed_at + timedelta(days=1)})
    report = pipeline.run(source, lambda run_id: later, mode="replay")
    assert report.status == RunStatus.failed
    assert report.error == (
        "tencent-offers: its items could not be read (ValueError: invalid literal for int() with base 10: '30.5')"
    )
    assert [c.kind for c in report.changes] == ["source_broken"]
    assert "30.5" in report.changes[0].detail["reason"]
    assert _statuses(engine) == ["ok", "failed"]
    assert _snapshot(engine, source.name) == kept


def _one_page_capture(path: Path, body: dict[str, Any]) -> Path:
    from spiders.har import write_har
    from tests.helpers.faulty_spider import URL

    entry = {
        "startedDateTime": "2026-08-03T06:00:00Z",
        "time": 1,
        "request": {"method": "GET", "url": URL, "httpVersion": "HTTP/1.1", "headers": [], "queryString": []},
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "content": {"size": 0, "mimeType": "application/json", "text": json.dumps(body)},
        },
    }
    write_har(path, [entry])
    return path


@pytest.mark.parametrize(
    ("spider", "body", "said"),
    [
        ("BuggyPageSpider", {"prices": [{"type": "a100", "cost": 1}]}, "KeyError: 'price' (while reading"),
        ("BrokenStartSpider", {"prices": []}, "the crawl could not start: ValueError: invalid literal for int()"),
        ("UnwritableItemSpider", {"prices": []}, "an item from https://prices.example.com/gpus.json cannot be written"),
    ],
)
def test_a_page_object_exception_is_source_broken_naming_it(
    spider: str, body: dict[str, Any], said: str, migrated: Path, tmp_path: Path
) -> None:
    """In the crawler child: an exception of a page object (a callback), of
    `start`, or an item that cannot be written fails the crawl naming it; the
    run is failed and announced, never ok with what was left."""
    from tests.helpers import faulty_spider
    from tracker.normalize import Normalized
    from tracker.run.crawl import CrawlRequest, run_crawl

    shutil.copyfile(migrated, tmp_path / "store.db")
    pipeline = Pipeline(make_engine(f"sqlite:///{tmp_path / 'store.db'}"))
    source = Source("test", "test", getattr(faulty_spider, spider), lambda items: Normalized())
    capture = _one_page_capture(tmp_path / "page.har", body)
    request = CrawlRequest(source=source, out_dir=tmp_path / "run", replay=capture, timeout=120)
    report = pipeline.run(source, lambda run_id: run_crawl(request), mode="replay")
    assert report.status == RunStatus.failed and report.error and said in report.error, report.error
    assert [c.kind for c in report.changes] == ["source_broken"]
    assert _statuses(pipeline.engine) == ["failed"]
