"""Runs a spider in a child process with a hard timeout, and reads back what
it wrote to the run folder as a CrawlResult."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from db.schema import CrawlResult
from spiders.har import HarError, browser_capture_path, merge_har, read_har
from tracker.normalize import NormalizeError, parse_time
from tracker.sources import Source

Progress = Callable[[int, int], None]


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


class CrawlCancelled(Exception):
    """The crawl was stopped from outside (a daemon shutting down)."""


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


def _kill(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


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


class _Child:
    """`spiders.runner` on a spec, in its own process group; its events are
    read on a thread, and which crawls have ended (written their result) is
    known while it still runs."""

    def __init__(self, spec: dict[str, Any], folder: Path, progress: Progress | None) -> None:
        # The spec may carry API keys: a private file, not the command line.
        self.spec_file = folder / "spec.json"
        self.spec_file.touch(mode=0o600)
        self.spec_file.write_text(json.dumps(spec), encoding="utf-8")
        self.progress = progress
        self.ended: set[str] = set()
        self.changed = threading.Condition()
        with (folder / "runner.err").open("w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "spiders.runner", str(self.spec_file)],
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                start_new_session=True,
            )
        self.reader = threading.Thread(target=self._read_events, daemon=True)
        self.reader.start()

    def _read_events(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if self.progress and event.get("event") in {"progress", "done"}:
                self.progress(int(event.get("pages", 0)), int(event.get("items", 0)))
            if event.get("event") == "done":
                with self.changed:
                    self.ended.add(str(event.get("out_dir")))
                    self.changed.notify_all()
        with self.changed:  # the child has closed its output: it is ending
            self.changed.notify_all()

    def wait(self, deadline: float, cancel: threading.Event | None, out_dir: Path | None = None) -> bool:
        """Waits until the crawl writing to `out_dir` has ended (None: the
        whole child); False when the deadline passed first, and the child was
        killed. Raises CrawlCancelled when `cancel` is set."""

        def settled() -> bool:
            return (out_dir is not None and str(out_dir) in self.ended) or self.proc.poll() is not None

        try:
            while not settled() and time.monotonic() < deadline:
                if cancel is not None and cancel.is_set():
                    raise CrawlCancelled("stopped: the daemon is shutting down")
                with self.changed:
                    self.changed.wait(timeout=0.05)
        except BaseException:
            self.stop()
            raise
        if settled():
            if out_dir is None:
                self.reader.join(timeout=2)
            return True
        self.stop()
        return False

    def ended_well(self, out_dir: Path) -> bool:
        return str(out_dir) in self.ended

    def stop(self) -> None:
        """Kills the child if it still runs, and removes its spec."""
        if self.proc.poll() is None:
            _kill(self.proc)
        self.spec_file.unlink(missing_ok=True)


def _run_child(
    spec: dict[str, Any], folder: Path, timeout: float, cancel: threading.Event | None, progress: Progress | None
) -> tuple[int | None, bool]:
    """Runs `spiders.runner` on `spec` with a hard timeout: its exit code,
    and whether it was stopped for taking too long."""
    child = _Child(spec, folder, progress)
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


class ReplayBatch:
    """Captures one child process is replaying (`replay_crawls`). Iterating
    yields each request's result in the order given, as soon as its crawl
    has ended, while the child goes on with the next ones. `close()` (or
    leaving a `with` block) stops the child if it still runs."""

    def __init__(
        self, reqs: list[CrawlRequest], results: dict[int, CrawlResult], child: _Child | None, started: datetime
    ) -> None:
        self.reqs = reqs
        self.results = results
        self.child = child
        self.started = started
        self.timeout = reqs[0].timeout if reqs else 0
        self.deadline = time.monotonic() + self.timeout

    def __iter__(self) -> Iterator[CrawlResult]:
        try:
            for i, req in enumerate(self.reqs):
                yield self.results.get(i) or self._result(req)
            if self.child is not None:  # it is past its last crawl: let it exit on its own
                self.child.wait(self.deadline, self.reqs[0].cancel)
        finally:
            self.close()

    def _result(self, req: CrawlRequest) -> CrawlResult:
        assert self.child is not None
        in_time = self.child.wait(self.deadline, self.reqs[0].cancel, req.out_dir)
        code = 0 if self.child.ended_well(req.out_dir) else self.child.proc.returncode
        err = self.child.spec_file.with_name("runner.err")
        result = _collect(req, self.started, None, err)
        return _finish(req, result, code, not in_time, self.timeout, err)

    def close(self) -> None:
        if self.child is not None:
            self.child.stop()

    def __enter__(self) -> ReplayBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def replay_crawls(reqs: list[CrawlRequest], folder: Path, progress: Progress | None = None) -> ReplayBatch:
    """Starts replaying the captures in ONE child process (Python and Scrapy
    start once, not once a capture) and returns at once: whatever the caller
    does meanwhile (getting ready to store, storing a result) overlaps the
    crawls. The batch has the first request's timeout; its log is
    `folder/runner.err`."""
    assert all(r.replay is not None for r in reqs), "only replays share a process"
    started = datetime.now(UTC)
    folder.mkdir(parents=True, exist_ok=True)
    done: dict[int, CrawlResult] = {}
    specs = []
    for i, req in enumerate(reqs):
        req.out_dir.mkdir(parents=True, exist_ok=True)
        failed = _bad_replay(req, started)
        if failed is not None:
            done[i] = failed
            continue
        try:
            specs.append(_spec(req, None))
        except OSError as exc:
            done[i] = _cannot_write(req, started, exc)
    child = None
    if specs:
        try:
            child = _Child({"crawls": specs}, folder, progress)
        except OSError as exc:
            done = {i: done.get(i) or _cannot_write(req, started, exc) for i, req in enumerate(reqs)}
    return ReplayBatch(reqs, done, child, started)


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
