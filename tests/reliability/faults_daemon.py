"""Fault-matrix rows of issue 40: a slip in one page, reasons in the log, locks released, stopping with a hanging webhook.

Each row is a `Fault` of `fault_matrix.py`; `rows_for` adds this module's `FAULTS`.
"""

from __future__ import annotations

import json
import re
import signal
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime

from db.schema import CrawlResult
from db.store.engine import make_engine, migrate
from tests.helpers.daemonutil import daemon, fake_azure, wait_for
from tests.helpers.localserver import Received, Reply, serve
from tests.helpers.replayed import Printed
from tests.reliability.fault_matrix import (
    ALERTS,
    EARLY,
    ROUND,
    Ctx,
    Fault,
    Hook,
    _rows,
    add_alerts,
    all_sent,
    assert_each_once,
    delivery_config,
    running,
    states,
    webhook,
)
from tests.run.test_page_slip import check_one_page_slip


def one_page_times_ten(ctx: Ctx) -> None:
    # The first capture crawled here, not copied from a shared store: the row's own store.
    def crawled(*commands: tuple[str, ...]) -> list[Printed]:
        return [Printed(r.code, r.out, r.err) for r in (ctx.cli(*c) for c in commands)]

    check_one_page_slip(ctx.cli, crawled, ctx.tmp, 10, "x10")


def _store_fails_under_the_lock(ctx: Ctx, *, crawl_fails: bool) -> None:
    """The daemon's path (`crawl_source`: the crawl lock, then the pipeline)
    with the store failing at the end of the crawl: as the crawl is stored,
    or (a full disk fails the crawl too) as its failure is recorded."""
    from db.store.locks import crawl_lock, pending_locks, release_pending
    from tracker.run.crawl import CrawlRequest, run_crawl
    from tracker.run.pipeline import Pipeline, StoreWriteFailed
    from tracker.sources import SOURCES

    engine = make_engine(ctx.store.url)
    migrate(engine)
    pipeline = Pipeline(engine)
    source = SOURCES["azure"]

    def replay(folder: str, stop_store: bool = False) -> Callable[[int], CrawlResult]:
        def crawl(run_id: int) -> CrawlResult:
            result = run_crawl(CrawlRequest(source, ctx.tmp / folder, ["westeurope"], replay=EARLY))
            if stop_store:
                ctx.store.down()
                if crawl_fails:
                    result.error = "the crawl could not write its capture: No space left on device"
            return result

        return crawl

    with crawl_lock(engine, "azure"):
        assert pipeline.run(source, replay("a"), mode="replay").ok
    try:
        with crawl_lock(engine, "azure", lease=30):
            pipeline.run(source, replay("b", stop_store=True), mode="replay")
        raise AssertionError("the store was down: the run cannot have been stored")
    except StoreWriteFailed as exc:
        assert "could not be stored: " in str(exc) and "Background on this error" not in str(exc), exc
    finally:
        ctx.store.up()
    # The crawl has ended: its lock is free at once, to this process too (issue 40:
    # "azure is being crawled by process <our own pid>" for the whole lease).
    with crawl_lock(engine, "azure", wait=0):
        pass
    if ctx.store.name == "sqlite":
        assert not pending_locks(engine) and release_pending(engine) == 0
        assert _rows(ctx, "select name from crawl_locks") == []
    assert pipeline.settle() == 1  # the run marked as soon as the store answers, never left running
    runs = [(s, e or "") for s, e in _rows(ctx, "select status, error from crawl_runs order by id")]
    assert [s for s, _ in runs] == ["ok", "store_error"], runs
    assert runs[1][1].startswith("store error: ") and "Background on this error" not in runs[1][1], runs
    if crawl_fails:
        assert "No space left on device" in runs[1][1], runs
    kinds = [k for (k,) in _rows(ctx, "select kind from changes")]
    assert "source_broken" not in kinds and "source_recovered" not in kinds, kinds
    engine.dispose()


def store_fails_under_the_lock(ctx: Ctx) -> None:
    _store_fails_under_the_lock(ctx, crawl_fails=False)


def full_disk_fails_the_crawl_and_its_record(ctx: Ctx) -> None:
    _store_fails_under_the_lock(ctx, crawl_fails=True)


# The text log's lines of a stop: "2026-12-06 17:09:50,675 gpu_tracker.daemon info: daemon stopped".
_STOPPING = re.compile(r"^(\S+ \S+) gpu_tracker\.daemon info: (received SIGTERM: stopping|daemon stopped)$", re.M)


def sigterm_while_a_webhook_hangs(ctx: Ctx) -> None:
    with webhook(Hook(hold_at=5)) as hook:  # the sixth request is never answered (until the test ends)
        delivery_config(ctx, hook, request_timeout=30)
        keys = add_alerts(ctx)
        with running(ctx) as d:
            assert hook.in_flight.wait(60), d.output()
            started = time.monotonic()
            d.proc.send_signal(signal.SIGTERM)
            assert d.proc.wait(timeout=15) == 0, d.output()
            took = time.monotonic() - started
            log = d.output()
        # The grace of 3 s and the process's own exit (2 to 3 s on a loaded machine), not the
        # request's 30 s (issue 40: 17.8 s with the default 20).
        assert took < 10, (took, log)
        said = {m.group(2): datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f") for m in _STOPPING.finditer(log)}
        assert (said["daemon stopped"] - said["received SIGTERM: stopping"]).total_seconds() < 3 + 1.5, log
        assert "the channel had not answered within 3 s; the message stays pending" in log, log
        # The message cut off is pending again, with no attempt counted; nothing is left claimed.
        assert states(ctx) == {"sent": 5, "pending": ALERTS - 5}, states(ctx)
        assert _rows(ctx, "select max(attempts) from alert_outbox where state = 'pending'") == [(0,)]
        with running(ctx) as again:
            wait_for(lambda: all_sent(ctx), 2 * ROUND + 15, "the rest sent by the next start")
            assert again.stop(signal.SIGTERM) == 0
    assert_each_once(hook, keys, but=1)  # the one cut off arrived twice, with its own key
    assert Counter(hook.keys())[keys[5]] == 2


def store_fails_while_the_daemon_crawls(ctx: Ctx) -> None:
    """The real daemon, crawling a fake Azure, loses its store as a crawl is
    stored and gets it back a few seconds later."""
    env = {"GPU_TRACKER_DATABASE_URL": ctx.store.url}

    def statuses() -> list[str]:
        return [s for (s,) in _rows(ctx, "select status from crawl_runs where source = 'azure' order by id")]

    with fake_azure() as fake, webhook(Hook()) as hook:
        (ctx.home / "config.toml").write_text(
            fake.config(every='"8s"')
            + f'[[channel]]\nname = "team"\nurl = "json://{hook.base.removeprefix("http://")}/hook"\n'
            '[[rule]]\nname = "all"\nchannels = ["team"]\n',
            encoding="utf-8",
        )
        with daemon(ctx.home, "--log-format", "json", env=env) as d:
            wait_for(lambda: statuses()[:1] == ["ok"], 60, "a first complete run")
            fake.hang.set()
            wait_for(lambda: statuses()[1:] == ["running"], 30, "the next crawl under way")
            ctx.store.down()
            try:
                fake.hang.clear()
                wait_for(lambda: "could not be stored" in d.output(), 30, "the failure said")
                time.sleep(4)  # beats and delivery rounds while the store is away
            finally:
                ctx.store.up()
            back = datetime.now(UTC)
            wait_for(lambda: statuses()[1:2] == ["store_error"], 12, "the run marked store_error")
            marked = datetime.now(UTC)
            wait_for(lambda: statuses()[2:3] == ["ok"], 30, "a complete run after the store's return")
            assert d.stop(signal.SIGTERM) == 0
            log = d.output()
    records = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    messages = [r["message"] for r in records]
    # The reason, in the message, in one line: never SQLAlchemy's link, never a traceback without --debug.
    assert "Background on this error" not in log and "Traceback" not in log, log
    assert not [r for r in records if "exception" in r], log
    stored = [m for m in messages if "could not be stored: " in m]
    assert stored and all(m.split("could not be stored: ")[1].strip() for m in stored), stored
    assert not [m for m in messages if m.startswith("azure: azure:")], messages
    # The lock was released: no skip naming the daemon's own pid, now or later.
    assert not [m for m in messages if "is being crawled by" in m], messages
    assert (marked - back).total_seconds() <= 12
    if any(m.startswith("delivery: the store failed") for m in messages):  # SQLite reads on: it may not
        answers = [
            datetime.fromisoformat(r["time"].replace("Z", "+00:00"))
            for r in records
            if r["message"] == "the store answers again"
        ]
        assert answers and (answers[0] - back).total_seconds() <= 8, (answers, back)  # not 20 s later
    kinds = [k for (k,) in _rows(ctx, "select kind from changes")]
    assert not {"source_stale", "source_recovered", "source_broken"} & set(kinds), kinds


def a_slow_failing_webhook_is_said_truly(ctx: Ctx) -> None:
    """A webhook that takes 3 s to answer 500 with a JSON body: the warning
    quotes the body as text, and the next attempt it names is after the
    failure (issue 40: "next attempt 14:03:55" already past; `b'{"error":"nope"}'`)."""

    def slow_no(req: Received) -> Reply:
        time.sleep(3)
        return Reply(500, b'{"error":"nope"}')

    with serve(slow_no) as (base, _):
        delivery_config(ctx, Hook(base=base), retry_base_seconds=2, max_attempts=3)
        add_alerts(ctx, 1)
        with running(ctx, "--log-format", "json") as d:
            wait_for(lambda: "delivery failed" in d.output(), 30, "a failed attempt said")
            assert d.stop(signal.SIGTERM) == 0
            log = d.output()
    records = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    failed = [r for r in records if "delivery failed" in r["message"]]
    assert failed, log
    first = failed[0]
    assert 'answer: {"error":"nope"}' in first["message"] and "b'" not in first["message"], first
    said = datetime.fromisoformat(first["time"].replace("Z", "+00:00"))
    next_at = re.search(r"next attempt (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC", first["message"])
    assert next_at, first
    due = datetime.strptime(next_at.group(1), "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    assert due >= said.replace(microsecond=0), (due, said)  # a time still to come when it is said


FAULTS: list[Fault] = [
    Fault(
        "one page of an Azure answer of three multiplied by 10, then right again",
        "only that page's prices held at their last good value, named by its URL in one price_suspect change; "
        "the rest stored; no price_increase, and no price_drop on the next good crawl",
        one_page_times_ten,
    ),
    Fault(
        "the store fails while a crawl is stored, under the crawl lock",
        "the run marked store_error as soon as the store answers; the lock free at once, to this process too; "
        "nothing announced",
        store_fails_under_the_lock,
    ),
    Fault(
        "a full disk fails the crawl, then the record of its failure",
        "as above: store_error with the crawl's reason, never left running; the lock free",
        full_disk_fails_the_crawl_and_its_record,
    ),
    Fault(
        "SIGTERM while a webhook hangs (never answers)",
        "exit 0 within the 3 s grace, not the request's timeout; the message pending again with no attempt "
        "counted, and sent once after the restart",
        sigterm_while_a_webhook_hangs,
    ),
    Fault(
        "the store goes away while the daemon stores a crawl, and comes back",
        "the reason in the log message (not SQLAlchemy's link, no traceback); the run store_error within a beat "
        "or two of the return; the lock free (no 'being crawled by' its own pid); 'the store answers again' "
        "said within seconds; no source_stale, source_broken or source_recovered",
        store_fails_while_the_daemon_crawls,
    ),
    Fault(
        "a webhook takes 3 s to answer 500 with a JSON body",
        "the warning quotes the body as text (not a bytes literal) and names a next attempt still to come",
        a_slow_failing_webhook_is_said_truly,
    ),
]
