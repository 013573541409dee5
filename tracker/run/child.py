"""A crawler child process: `spiders.crawling.runner` on a spec, in its own process
group, killed as a whole. It reports on its standard output as JSON lines:
progress, and each crawl that has ended (written its result)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Progress = Callable[[int, int], None]


class CrawlCancelled(Exception):
    """The crawl was stopped from outside (a daemon shutting down)."""


class ChildCrawler:
    """`spiders.crawling.runner` on a spec, in its own process group; its events are
    read on a thread, and which crawls have ended (written their result) is
    known while it still runs."""

    def __init__(self, spec: dict[str, Any], folder: Path, progress: Progress | None) -> None:
        # The spec may carry API keys: a private file, not the command line.
        self.spec_file = folder / "spec.json"
        self.spec_file.touch(mode=0o600)
        self.spec_file.write_text(json.dumps(spec), encoding="utf-8")
        self.err_file = folder / "runner.err"
        self.progress = progress
        self.ended: set[str] = set()
        self.changed = threading.Condition()
        try:
            with self.err_file.open("w") as err:
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "spiders.crawling.runner", str(self.spec_file)],
                    stdout=subprocess.PIPE,
                    stderr=err,
                    text=True,
                    start_new_session=True,
                )
        except OSError:
            self.spec_file.unlink(missing_ok=True)
            raise
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
            if self.proc.poll() is not None:  # its last reports may still be in the pipe
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


def _kill(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
