"""`gpu-tracker` with checkpoints, for killing a crawl at a known point of
its store step (tests/reliability/test_crawl_crash.py).

    python -m tests.helpers.crash_child --home HOME crawl aws --replay X.har.gz

runs the real CLI (`python -m tests.helpers.crash_child serve` runs it
again and again, see `serve`). Nothing of the store, the pipeline or the
alerts is replaced: their functions are wrapped so that each named point is
counted as it passes. At the point named in CRASH_AT (`name#n`, the nth
time `name` is passed) the process writes {"reached": label} as a line to
the file descriptor CRASH_FD and waits to be killed. The points:

- `begun`, `opened`, `chunk`, `closed`, `finished`, `enqueued`: after
  `Pipeline.begin` (the run row committed), `RunStore.open_prices`, each
  `RunStore.apply_prices`, `RunStore.close_prices`, `RunStore.finish` and
  `alerts.outbox.enqueue` return;
- `writing:price_points:N`, `writing:changes:N`: inside the Nth bulk write
  of that table, counted per row on PostgreSQL (a COPY in flight, what it
  was sent so far on the server) and per SQLite progress tick (a statement
  half done);
- `committing`, `committed`: just before the DBAPI COMMIT of the run's
  snapshot transaction, and just after it.

With CRASH_CRAWL (a folder holding a replayed crawl's items.jsonl and
result.json) the spider's child process is not started: those files are
what it would write again, and the store step is what is under test.
CRASH_CHUNK sets the pipeline's chunk size, so a small capture is stored
in several chunks.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sqlite3
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import sqlalchemy as sa
from sqlalchemy.orm import Session

import alerts.outbox
import db.bulk.writer
import db.store.writes.run_store
import tracker.run.crawl
import tracker.run.pipeline
from db.store.writes.run_store import RunStore
from tracker.cli import main
from tracker.run.pipeline import Pipeline

TARGET = ""  # set by `install`, from CRASH_AT
PIPE = -1  # where the label of the target is written, CRASH_FD
_counts: dict[str, int] = {}
_count_lock = threading.Lock()
# The table a bulk write is writing now, and which write of it this is.
_writing = threading.local()
_write_calls: dict[str, int] = {}
_snapshot_written = False  # after RunStore.finish: the next commit is the run's


def reached(name: str, before_pause: Callable[[], None] | None = None) -> None:
    with _count_lock:
        n = _counts[name] = _counts.get(name, 0) + 1
    label = f"{name}#{n}"
    if label != TARGET:
        return
    if before_pause is not None:
        before_pause()
    os.write(PIPE, (json.dumps({"reached": label}) + "\n").encode())
    while True:  # until SIGKILL
        time.sleep(60)


def after(owner: Any, attr: str, name: str) -> None:
    real = getattr(owner, attr)

    def hooked(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        reached(name)
        return out

    setattr(owner, attr, hooked)


def writing(owner: Any, attr: str, table: str) -> None:
    """Marks the calls of `owner.attr` as the bulk writes of `table`."""
    real = getattr(owner, attr)

    def hooked(*args: Any, **kwargs: Any) -> Any:
        with _count_lock:
            n = _write_calls[table] = _write_calls.get(table, 0) + 1
        _writing.name = f"writing:{table}:{n}"
        try:
            return real(*args, **kwargs)
        finally:
            _writing.name = None

    setattr(owner, attr, hooked)


def tick(before_pause: Callable[[], None] | None = None) -> None:
    name = getattr(_writing, "name", None)
    if name:
        reached(name, before_pause)


def sqlite_progress(dbapi_conn: Any, _record: Any) -> None:
    if isinstance(dbapi_conn, sqlite3.Connection):

        def progress() -> int:
            tick()
            return 0

        dbapi_conn.set_progress_handler(progress, 200)


class CopyInFlight:
    """psycopg's Copy, counted row by row; at the pause, the rows buffered so
    far are sent first, so the server holds part of the COPY."""

    def __init__(self, copy: psycopg.Copy) -> None:
        self.copy = copy

    def write_row(self, row: Any) -> None:
        self.copy.write_row(row)
        tick(self.flush)

    def flush(self) -> None:
        # `formatter.end()` hands over the buffered rows (text COPY has no end
        # marker); libpq keeps them until its buffer fills, unless flushed.
        self.copy.write(self.copy.formatter.end())
        while self.copy.connection.pgconn.flush() == 1:
            time.sleep(0.01)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.copy, name)


_real_copy = psycopg.Cursor.copy


@contextmanager
def counted_copy(self: psycopg.Cursor, *args: Any, **kwargs: Any) -> Iterator[Any]:
    with _real_copy(self, *args, **kwargs) as copy:
        yield CopyInFlight(copy)


def on_commit(_conn: Any) -> None:
    if _snapshot_written and threading.current_thread() is threading.main_thread():
        reached("committing")


def after_commit(_session: Any) -> None:
    if _snapshot_written and threading.current_thread() is threading.main_thread():
        reached("committed")


def finish_marks_snapshot(real: Callable[..., None]) -> Callable[..., None]:
    def hooked(*args: Any, **kwargs: Any) -> None:
        global _snapshot_written
        real(*args, **kwargs)
        _snapshot_written = True

    return hooked


def replayed_crawl(folder: Path) -> Callable[..., tuple[int, bool]]:
    def run_child(spec: dict[str, Any], out_dir: Path, *_args: Any) -> tuple[int, bool]:
        for name in ("items.jsonl", "result.json"):
            shutil.copyfile(folder / name, out_dir / name)
        return 0, False

    return run_child


def install() -> None:
    global TARGET, PIPE
    TARGET = os.environ.get("CRASH_AT", "")
    PIPE = int(os.environ.get("CRASH_FD", "-1"))
    after(Pipeline, "begin", "begun")
    after(RunStore, "open_prices", "opened")
    after(RunStore, "apply_prices", "chunk")
    after(RunStore, "close_prices", "closed")
    RunStore.finish = finish_marks_snapshot(RunStore.finish)  # type: ignore[method-assign]
    after(RunStore, "finish", "finished")
    after(alerts.outbox, "enqueue", "enqueued")
    writing(db.bulk.writer, "insert_price_rows", "price_points")
    writing(db.store.writes.run_store, "add_changes", "changes")
    sa.event.listen(sa.pool.Pool, "connect", sqlite_progress)
    psycopg.Cursor.copy = counted_copy  # type: ignore[method-assign, assignment]
    sa.event.listen(sa.engine.Engine, "commit", on_commit)
    sa.event.listen(Session, "after_commit", after_commit)
    if os.environ.get("CRASH_CRAWL"):
        tracker.run.crawl._run_child = replayed_crawl(Path(os.environ["CRASH_CRAWL"]))
    if os.environ.get("CRASH_CHUNK"):
        tracker.run.pipeline.CHUNK = int(os.environ["CRASH_CHUNK"])


def trace() -> None:
    """With CRASH_TRACE set, the points passed and how often, on stderr at exit."""
    if os.environ.get("CRASH_TRACE"):
        print(" ".join(f"{name}#{n}" for name, n in _counts.items()), file=sys.stderr)


def run(argv: list[str]) -> int:
    install()
    try:
        return main(argv)
    finally:
        trace()


PRELOAD = (
    "db.store.engine",
    "tracker.cli.commands.crawl",
    "tracker.cli.state",
    "tracker.normalize.providers.aws",
    "tracker.run.alerting",
    "tracker.run.service",
)


def tell(message: dict[str, Any]) -> None:
    # os.write, not print: a buffer left in sys.stdout would be copied into each fork.
    os.write(1, (json.dumps(message) + "\n").encode())


def serve() -> None:
    """One CLI run per line of stdin (JSON: argv, env, out, err), each in a
    fork of this process, which has imported everything once already (a
    fresh Python would spend a second on it). Says {"pid": n}, then the
    child's {"reached": label} if it gets there, then {"exit": code} once
    the child is reaped, signals as negative codes."""
    # What `crawl` loads where it is used.
    for module in PRELOAD:
        importlib.import_module(module)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                os.setsid()
                os.environ.update(request["env"])
                os.environ["CRASH_FD"] = str(os.dup(1))
                with open(request["out"], "wb") as out, open(request["err"], "wb") as err:
                    os.dup2(out.fileno(), 1)
                    os.dup2(err.fileno(), 2)
                code = run(request["argv"])
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        tell({"pid": pid})
        _, status = os.waitpid(pid, 0)
        tell({"exit": os.waitstatus_to_exitcode(status)})


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        serve()
    else:
        sys.exit(run(sys.argv[1:]))
