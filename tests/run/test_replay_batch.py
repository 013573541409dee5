"""Many captures replayed by one crawler process: each result comes back in
the order asked, as soon as its crawl has ended, while the process goes on
with the rest; closing the batch stops the process."""

from __future__ import annotations

import os
from pathlib import Path

from tracker.config.settings import Config
from tracker.run.captures import capture_regions, demo_captures
from tracker.run.crawl import CrawlRequest, crawler_shares, replay_crawls
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
    assert len(batch.children) == 1  # one spider: its captures keep their order in one process
    (child,) = batch.children
    running_at_first: bool | None = None
    results = []
    for result in batch:
        if running_at_first is None:
            running_at_first = child.proc.poll() is None
        results.append(result)
    assert running_at_first is True
    assert [r.error for r in results] == [None] * len(captures)
    assert [r.capture_path for r in results] == [str(c) for c in captures]
    counts = [len(r.items) for r in results]
    assert counts[0] == counts[1] and counts[0] > 400
    assert child.proc.returncode == 0
    assert not child.spec_file.exists()


def test_closing_the_batch_stops_the_crawler(tmp_path: Path) -> None:
    batch = replay_crawls(requests(tmp_path, AWS * 4), tmp_path / "batch")
    with batch:
        first = next(iter(batch))
        assert first.error is None and first.items
    assert batch.children and all(c.proc.returncode is not None for c in batch.children)
    assert not any(c.spec_file.exists() for c in batch.children)


def test_a_capture_that_cannot_be_read_fails_alone(tmp_path: Path) -> None:
    broken = tmp_path / "broken.har"
    broken.write_text("{not json", encoding="utf-8")
    results = list(replay_crawls(requests(tmp_path, [AWS[0], broken, AWS[1]]), tmp_path / "batch"))
    assert [r.error is None for r in results] == [True, False, True]
    assert results[1].error is not None and "broken.har is not a HAR file" in results[1].error


def test_an_empty_batch_starts_no_crawler(tmp_path: Path) -> None:
    batch = replay_crawls([], tmp_path / "batch")
    assert batch.children == [] and list(batch) == []


def test_crawler_shares_keep_a_spiders_captures_together_and_in_order(tmp_path: Path) -> None:
    config = Config(home=tmp_path)
    names = ["aws", "azure", "aws", "gcp", "alibaba", "azure", "alibaba", "tencent-api", "aws"]
    reqs = [crawl_request(config, SOURCES[n], out_dir=tmp_path / str(i), replay=AWS[0]) for i, n in enumerate(names)]
    shares = crawler_shares(reqs, 2)
    assert sorted(i for share in shares for i in share) == list(range(len(names)))
    for share in shares:
        assert share == sorted(share)
    where = {names[i]: k for k, share in enumerate(shares) for i in share}
    for k, share in enumerate(shares):
        assert all(where[names[i]] == k for i in share)
    browser = {n for n in names if SOURCES[n].uses_browser}
    assert all(where[n] == 0 for n in browser)
    assert len(shares) == 2
    assert crawler_shares(reqs, 1) == [list(range(len(names)))]
    assert len(crawler_shares(reqs[:1], 4)) == 1


def test_two_spiders_replay_side_by_side(tmp_path: Path) -> None:
    config = Config(home=tmp_path)
    captures = [(s, c) for s, c in demo_captures() if s in {"aws", "gcp"}]
    reqs = [
        crawl_request(config, SOURCES[s], out_dir=tmp_path / f"{i:02d}", regions=capture_regions(c), replay=c)
        for i, (s, c) in enumerate(captures)
    ]
    with replay_crawls(reqs, tmp_path / "batch") as batch:
        results = list(batch)
    assert len(batch.children) == min(2, os.cpu_count() or 1)
    assert [r.error for r in results] == [None] * len(captures)
    assert [r.source for r in results] == [s for s, _ in captures]
    assert all(r.items for r in results)
