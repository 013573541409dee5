"""Many captures replayed by one crawler process: each result comes back in
the order asked, as soon as its crawl has ended, while the process goes on
with the rest; closing the batch stops the process."""

from __future__ import annotations

from pathlib import Path

from tracker.config.settings import Config
from tracker.run.crawl import CrawlRequest, replay_crawls
from tracker.run.demo import demo_captures
from tracker.run.service import crawl_request
from tracker.sources import SOURCES

AWS = [capture for source, capture in demo_captures() if source == "aws"]


def requests(home: Path, captures: list[Path]) -> list[CrawlRequest]:
    config = Config(home=home)
    return [
        crawl_request(config, SOURCES["aws"], out_dir=home / f"{i:02d}", regions=["us-east-1"], replay=capture)
        for i, capture in enumerate(captures)
    ]


def test_results_come_in_order_while_the_crawler_goes_on(tmp_path: Path) -> None:
    # Six crawls of 450 items each after the first: the crawler is still at
    # them when the first result is read back.
    captures = [AWS[0], *AWS * 3]
    batch = replay_crawls(requests(tmp_path, captures), tmp_path / "batch")
    assert batch.child is not None
    running_at_first: bool | None = None
    results = []
    for result in batch:
        if running_at_first is None:
            running_at_first = batch.child.proc.poll() is None
        results.append(result)
    assert running_at_first is True
    assert [r.error for r in results] == [None] * len(captures)
    assert [r.capture_path for r in results] == [str(c) for c in captures]
    counts = [len(r.items) for r in results]
    assert counts[0] == counts[1] and counts[0] > 400
    assert batch.child.proc.returncode == 0
    assert not (tmp_path / "batch" / "spec.json").exists()


def test_closing_the_batch_stops_the_crawler(tmp_path: Path) -> None:
    batch = replay_crawls(requests(tmp_path, AWS * 4), tmp_path / "batch")
    with batch:
        first = next(iter(batch))
        assert first.error is None and first.items
    assert batch.child is not None and batch.child.proc.returncode is not None
    assert not (tmp_path / "batch" / "spec.json").exists()


def test_a_capture_that_cannot_be_read_fails_alone(tmp_path: Path) -> None:
    broken = tmp_path / "broken.har"
    broken.write_text("{not json", encoding="utf-8")
    results = list(replay_crawls(requests(tmp_path, [AWS[0], broken, AWS[1]]), tmp_path / "batch"))
    assert [r.error is None for r in results] == [True, False, True]
    assert results[1].error is not None and "broken.har is not a HAR file" in results[1].error


def test_an_empty_batch_starts_no_crawler(tmp_path: Path) -> None:
    batch = replay_crawls([], tmp_path / "batch")
    assert batch.child is None and list(batch) == []
