"""A fake Azure price API on 127.0.0.1 that can hang or change a price, and
the real `gpu-tracker daemon` started in a subprocess against it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import sqlalchemy as sa

from spiders.har import read_har
from tests.conftest import DEMO_CAPTURES
from tests.helpers.localserver import Received, Reply, serve

EARLY = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"
ROOT = Path(__file__).parents[2]


def _pages() -> dict[str, dict[str, Any]]:
    pages = {}
    for entry in read_har(EARLY)["log"]["entries"]:
        query = parse_qs(urlsplit(entry["request"]["url"]).query)
        pages[query.get("$skip", ["0"])[0]] = json.loads(entry["response"]["content"]["text"])
    return pages


@dataclass
class FakeAzure:
    """`hang` set: requests wait (until cleared, at most a minute). `bump`:
    added to the first item's price, so the next crawl sees a change."""

    base: str = ""
    hang: threading.Event = field(default_factory=threading.Event)
    bump: float = 0.0
    pages: dict[str, dict[str, Any]] = field(default_factory=_pages)

    def answer(self, req: Received) -> Reply:
        deadline = time.monotonic() + 60
        while self.hang.is_set() and time.monotonic() < deadline:
            time.sleep(0.1)
        query = parse_qs(urlsplit(req.path).query)
        skip = query.get("$skip", ["0"])[0]
        page = json.loads(json.dumps(self.pages[skip]))
        if page["NextPageLink"]:
            page["NextPageLink"] = self.base + "/api/retail/prices?" + urlsplit(page["NextPageLink"]).query
        if skip == "0" and self.bump:
            first = page["Items"][0]
            for key in ("retailPrice", "unitPrice"):
                first[key] = round(first[key] + self.bump, 6)
        return Reply(body=json.dumps(page).encode())

    def config(self, **daemon: object) -> str:
        # Only the fake Azure: the other sources would go to the real network.
        settings = {"sources": '["azure"]', "every": '"3s"', "jitter": 0, "delivery_every": '"2s"', **daemon}
        lines = "\n".join(f"{k} = {v}" for k, v in settings.items())
        return (
            f'[providers.azure]\nregions = ["westeurope"]\napi_url = "{self.base}/api/retail/prices"\n'
            f"[crawl]\ncrawl_timeout = 6\nretry_times = 0\ndownload_timeout = 30\n[daemon]\n{lines}\n"
        )


@contextmanager
def fake_azure() -> Iterator[FakeAzure]:
    fake = FakeAzure()
    with serve(fake.answer) as (base, _received):
        fake.base = base
        yield fake
        fake.hang.clear()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class DaemonProcess:
    proc: subprocess.Popen[str]
    port: int
    log: Path

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()
        except OSError:
            return 0, ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def kill(self, *, group: bool = False) -> None:
        """SIGKILL, as `kill -9` does; `group`: the daemon and every child at
        once, as the kernel's out-of-memory killer ends a container."""
        if group:
            os.killpg(self.proc.pid, signal.SIGKILL)
        else:
            self.proc.kill()
        self.proc.wait(timeout=30)


@contextmanager
def daemon(
    home: Path, *args: str, env: dict[str, str] | None = None, new_session: bool = False
) -> Iterator[DaemonProcess]:
    port = free_port()
    log = home / "daemon.log"
    full_env = {**os.environ, "GPU_TRACKER_HOME": str(home), **(env or {})}
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from tracker.cli import run; run()",
                "--home",
                str(home),
                "daemon",
                "--metrics-port",
                str(port),
                *args,
            ],
            cwd=ROOT,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=new_session,
        )
    running = DaemonProcess(proc, port, log)
    try:
        wait_for(lambda: running.get("/healthz")[0] == 200 or proc.poll() is not None, 60, "the daemon to start")
        assert proc.poll() is None, running.output()
        yield running
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def wait_for(condition: Callable[[], object], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def runs(url: str, source: str = "azure") -> list[sa.Row[Any]]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return list(
                conn.execute(
                    sa.text(
                        "select id, status, started_at, finished_at, error, pid, mode from crawl_runs "
                        "where source = :s order by id"
                    ),
                    {"s": source},
                )
            )
    finally:
        engine.dispose()
