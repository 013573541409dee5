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
from collections.abc import Callable
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


def _read_events(stream: Any, progress: Progress | None) -> None:
    for line in stream:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if progress and event.get("event") in {"progress", "done"}:
            progress(int(event.get("pages", 0)), int(event.get("items", 0)))


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


def _run_child(
    spec: dict[str, Any], folder: Path, timeout: float, cancel: threading.Event | None, progress: Progress | None
) -> tuple[int | None, bool]:
    """Runs `spiders.runner` on `spec` with a hard timeout: its exit code,
    and whether it was stopped for taking too long."""
    # The spec may carry API keys: a private file, not the command line.
    spec_file = folder / "spec.json"
    spec_file.touch(mode=0o600)
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "spiders.runner", str(spec_file)],
        stdout=subprocess.PIPE,
        stderr=(folder / "runner.err").open("w"),
        text=True,
        start_new_session=True,
    )
    reader = threading.Thread(target=_read_events, args=(proc.stdout, progress), daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout

    def stopped() -> bool:
        return cancel is not None and cancel.is_set()

    try:
        while proc.poll() is None and time.monotonic() < deadline and not stopped():
            time.sleep(0.05)
        timed_out = proc.poll() is None
        if timed_out:
            _kill(proc)
        if stopped():
            raise CrawlCancelled("stopped: the daemon is shutting down")
    except BaseException:
        _kill(proc)
        raise
    reader.join(timeout=2)
    spec_file.unlink(missing_ok=True)
    return proc.returncode, timed_out


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


def replay_crawls(reqs: list[CrawlRequest], folder: Path, progress: Progress | None = None) -> list[CrawlResult]:
    """Replays captures in ONE child process, one after the other: starting
    Python and Scrapy once instead of once a capture. The batch has the
    first request's timeout; its log is `folder/runner.err`."""
    assert all(r.replay is not None for r in reqs), "only replays share a process"
    started = datetime.now(UTC)
    folder.mkdir(parents=True, exist_ok=True)
    bad: dict[int, CrawlResult] = {}
    specs = []
    for i, req in enumerate(reqs):
        req.out_dir.mkdir(parents=True, exist_ok=True)
        failed = _bad_replay(req, started)
        if failed is not None:
            bad[i] = failed
            continue
        try:
            specs.append(_spec(req, None))
        except OSError as exc:
            bad[i] = _cannot_write(req, started, exc)
    code, timed_out = (0, False)
    if specs:
        timeout = reqs[0].timeout
        try:
            code, timed_out = _run_child({"crawls": specs}, folder, timeout, reqs[0].cancel, progress)
        except OSError as exc:
            return [bad.get(i) or _cannot_write(req, started, exc) for i, req in enumerate(reqs)]
    err = folder / "runner.err"
    results = []
    for i, req in enumerate(reqs):
        if i in bad:
            results.append(bad[i])
            continue
        result = _collect(req, started, None, err)
        results.append(_finish(req, result, code, timed_out, reqs[0].timeout, err))
    return results


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
