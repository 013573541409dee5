"""Runs a spider in a child process with a hard timeout, and reads back what
it wrote to the run folder as a CrawlResult."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from db.schema import CrawlResult
from spiders.har import HarError, browser_capture_path, merge_har, read_har
from tracker.normalize import NormalizeError, parse_time
from tracker.run.child import ChildCrawler, Progress
from tracker.sources import Source


@dataclass
class CrawlRequest:
    source: Source
    out_dir: Path
    regions: list[str] = field(default_factory=list)
    replay: Path | None = None
    record: Path | None = None
    spider_args: dict[str, str] = field(default_factory=dict)
    timeout: float = 900
    download_timeout: int = 60
    retry_times: int = 2
    browser_path: str = "/usr/bin/chromium"
    # Values (API keys) that must never reach an error message or a note.
    secrets: list[str] = field(default_factory=list)
    # Set by the daemon on shutdown: the child is killed and CrawlCancelled raised.
    cancel: threading.Event | None = None


def _plain_replay(req: CrawlRequest) -> str | None:
    """Playwright's route_from_har reads plain .har files only."""
    if req.replay is None:
        return None
    if req.replay.suffix != ".gz":
        return str(req.replay.resolve())
    plain = req.out_dir / "replay.har"
    with gzip.open(req.replay, "rb") as src, plain.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return str(plain)


def _spec(req: CrawlRequest, capture: Path | None) -> dict[str, Any]:
    args = dict(req.spider_args)
    if req.regions:
        args["regions"] = ",".join(req.regions)
    return {
        "spider": req.source.spider_path,
        "out_dir": str(req.out_dir),
        "args": args,
        "replay": _plain_replay(req),
        "record": str(capture) if capture else None,
        "browser_path": req.browser_path,
        "download_timeout": req.download_timeout,
        "retry_times": req.retry_times,
    }


def _bad_replay(req: CrawlRequest, started: datetime) -> CrawlResult | None:
    """A failed result when the capture to replay cannot be read."""
    if req.replay is None:
        return None
    try:
        read_har(req.replay)
    except HarError as exc:
        return CrawlResult(
            source=req.source.name,
            provider=req.source.provider,
            started_at=started,
            finished_at=datetime.now(UTC),
            replayed=True,
            error=str(exc),
        )
    return None


def _cannot_write(req: CrawlRequest, started: datetime, exc: OSError) -> CrawlResult:
    """A full disk or a file size limit, also while unpacking a .har.gz replay."""
    return CrawlResult(
        source=req.source.name,
        provider=req.source.provider,
        started_at=started,
        finished_at=datetime.now(UTC),
        replayed=req.replay is not None,
        error=f"cannot write the crawl's files in {req.out_dir}: {exc.strerror or exc}",
    )


def _run_child(
    spec: dict[str, Any], folder: Path, timeout: float, cancel: threading.Event | None, progress: Progress | None
) -> tuple[int | None, bool]:
    """Runs `spiders.crawling.runner` on `spec` with a hard timeout: its exit code,
    and whether it was stopped for taking too long."""
    child = ChildCrawler(spec, folder, progress)
    finished = child.wait(time.monotonic() + timeout, cancel)
    child.stop()
    return child.proc.returncode, not finished


def _finish(
    req: CrawlRequest, result: CrawlResult, code: int | None, timed_out: bool, timeout: float, err: Path
) -> CrawlResult:
    if timed_out:
        result.error = f"the crawl did not finish within {timeout:g} s and was stopped"
    elif result.error is None and code != 0:
        result.error = f"the crawler exited with code {code}; see {err}"
    result.error = _scrub(result.error, req.secrets)
    result.notes = [_scrub(n, req.secrets) or "" for n in result.notes]
    return result


def run_crawl(req: CrawlRequest, progress: Progress | None = None) -> CrawlResult:
    started = datetime.now(UTC)
    req.out_dir.mkdir(parents=True, exist_ok=True)
    bad = _bad_replay(req, started)
    if bad is not None:
        return bad
    capture = None if req.replay else req.out_dir / "capture.har"
    try:
        code, timed_out = _run_child(_spec(req, capture), req.out_dir, req.timeout, req.cancel, progress)
    except OSError as exc:
        return _cannot_write(req, started, exc)
    result = _collect(req, started, capture)
    return _finish(req, result, code, timed_out, req.timeout, req.out_dir / "runner.err")


# Replays run in at most this many crawler processes side by side.
MAX_CRAWLERS = 4


class ReplayBatch:
    """Captures that crawler processes are replaying (`replay_crawls`).
    Iterating yields each request's result in the order given, as soon as
    its crawl has ended, while the crawlers go on with the next ones.
    `close()` (or leaving a `with` block) stops those still running."""

    def __init__(self, reqs: list[CrawlRequest], started: datetime) -> None:
        self.reqs = reqs
        # Those known before any crawl: a capture that cannot be read or unpacked.
        self.results: dict[int, CrawlResult] = {}
        self.started = started
        self.timeout = reqs[0].timeout if reqs else 0
        self.deadline = time.monotonic() + self.timeout
        self.children: list[ChildCrawler] = []
        self.child_of: dict[int, ChildCrawler] = {}

    def __iter__(self) -> Iterator[CrawlResult]:
        try:
            for i, req in enumerate(self.reqs):
                yield self.results.get(i) or self._result(self.child_of[i], req)
            for child in self.children:  # past their last crawl: they exit on their own
                child.wait(self.deadline, self.reqs[0].cancel)
        finally:
            self.close()

    def _result(self, child: ChildCrawler, req: CrawlRequest) -> CrawlResult:
        in_time = child.wait(self.deadline, self.reqs[0].cancel, req.out_dir)
        code = 0 if child.ended_well(req.out_dir) else child.proc.returncode
        result = _collect(req, self.started, None, child.err_file)
        return _finish(req, result, code, not in_time, self.timeout, child.err_file)

    def close(self) -> None:
        for child in self.children:
            child.stop()

    def __enter__(self) -> ReplayBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def crawler_shares(reqs: list[CrawlRequest], crawlers: int) -> list[list[int]]:
    """The requests (their indexes) split among at most `crawlers` processes,
    about the same number each. The captures of one spider and state file
    stay in one process, in their order: an earlier one may leave state for
    the next. Those of spiders that may render pages all go to the first,
    whose lanes keep at most three browsers running."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, req in enumerate(reqs):
        groups.setdefault((req.source.spider_path, req.spider_args.get("state_file", "")), []).append(i)
    shares: list[list[int]] = [[] for _ in range(max(1, crawlers))]
    browser = [g for g in groups.values() if reqs[g[0]].source.uses_browser]
    for group in browser:
        shares[0].extend(group)
    plain = sorted((g for g in groups.values() if not reqs[g[0]].source.uses_browser), key=len, reverse=True)
    for group in plain:
        min(shares, key=len).extend(group)
    return [sorted(share) for share in shares if share]


def replay_crawls(reqs: list[CrawlRequest], folder: Path, progress: Progress | None = None) -> ReplayBatch:
    """Starts replaying the captures and returns at once: whatever the caller
    does meanwhile (getting ready to store, storing a result) overlaps the
    crawls. They run in a few crawler processes side by side, one a core,
    each starting Python and Scrapy once for all its captures. The batch has
    the first request's timeout; each process's log is
    `folder/crawler-<n>/runner.err`."""
    assert all(r.replay is not None for r in reqs), "only replays share a process"
    started = datetime.now(UTC)
    batch = ReplayBatch(reqs, started)
    specs: dict[int, dict[str, Any]] = {}
    for i, req in enumerate(reqs):
        req.out_dir.mkdir(parents=True, exist_ok=True)
        failed = _bad_replay(req, started)
        if failed is not None:
            batch.results[i] = failed
            continue
        try:
            specs[i] = _spec(req, None)
        except OSError as exc:
            batch.results[i] = _cannot_write(req, started, exc)
    todo = list(specs)
    for n, share in enumerate(crawler_shares([reqs[i] for i in todo], min(os.cpu_count() or 1, MAX_CRAWLERS))):
        indexes = [todo[j] for j in share]
        place = folder / f"crawler-{n}"
        try:
            place.mkdir(parents=True, exist_ok=True)
            child = ChildCrawler({"crawls": [specs[i] for i in indexes]}, place, progress)
        except OSError as exc:
            batch.results.update({i: _cannot_write(reqs[i], started, exc) for i in indexes})
            continue
        batch.children.append(child)
        batch.child_of.update(dict.fromkeys(indexes, child))
    return batch


def _scrub(text: str | None, secrets: list[str]) -> str | None:
    for secret in secrets:
        if text and secret:
            text = text.replace(secret, "***")
    return text


def _collect(req: CrawlRequest, started: datetime, capture: Path | None, err: Path | None = None) -> CrawlResult:
    source = req.source
    base = CrawlResult(
        source=source.name,
        provider=source.provider,
        started_at=started,
        finished_at=datetime.now(UTC),
        replayed=req.replay is not None,
    )
    result_file = req.out_dir / "result.json"
    if not result_file.exists():
        base.error = _child_error(err or req.out_dir / "runner.err") or "the crawler stopped without writing a result"
        return base
    summary = json.loads(result_file.read_text(encoding="utf-8"))
    base.pages = summary["pages"]
    base.regions = summary["regions"]
    base.notes = summary["notes"]
    failures: list[str] = summary["failures"]
    if failures:
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        base.error = failures[0] + more
    with (req.out_dir / "items.jsonl").open(encoding="utf-8") as fh:
        base.items = [json.loads(line) for line in fh if line.strip()]
    base.capture_path = str(req.replay) if req.replay else _keep_capture(capture, req.record)
    if base.items:
        try:
            base.observed_at = min(parse_time(i["observed_at"]) for i in base.items)
        except (KeyError, NormalizeError) as exc:
            base.error = base.error or f"an item has no usable observation time ({exc})"
    return base


def _child_error(err_file: Path) -> str | None:
    err = err_file.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return f"the crawler failed: {err[-1]}" if err else None


def _keep_capture(capture: Path | None, record: Path | None) -> str | None:
    """Merge in the browser's capture, compress it, and copy it where
    --record asked."""
    if capture is None:
        return None
    browser = Path(browser_capture_path(str(capture)))
    if browser.exists():
        if capture.exists():
            merge_har(capture, browser)
        else:
            browser.rename(capture)
    if not capture.exists():
        return None
    if record is not None:
        record.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(capture, record)
    packed = capture.with_name(capture.name + ".gz")
    with capture.open("rb") as src, gzip.open(packed, "wb") as dst:
        shutil.copyfileobj(src, dst)
    capture.unlink()
    return str(packed)
