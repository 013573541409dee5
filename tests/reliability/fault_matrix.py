"""The faults issue 30 found, each a row: what happens, and what must hold.

`test_faults_sqlite.py` and `test_faults_postgres.py` run every row that
applies to their back end. A new fault is a new row here: a `Fault` with its
check, a function of one `Ctx`.

The daemon rows start the real `gpu-tracker daemon` (`tests/helpers/daemonutil.py`)
and send its alerts to a JSON webhook on 127.0.0.1; stopping the store is
`tests/helpers/faults.py`'s (a TCP proxy in front of PostgreSQL, immutable
files for SQLite).
"""

from __future__ import annotations

import json
import re
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from alerts.outbox import enqueue
from alerts.rules import MemoryReferences, compile_rules, route
from db.store.engine import make_engine, migrate
from tests.conftest import DEMO_CAPTURES, Cli
from tests.helpers.alert_samples import price
from tests.helpers.daemonutil import DaemonProcess, daemon, wait_for
from tests.helpers.faults import Store
from tests.helpers.harutil import page_json, set_page_json, shifted
from tests.helpers.localserver import Received, Reply, serve
from tracker.config.settings import load_config

ROUND = 2  # seconds between the daemon's delivery rounds in these rows
ALERTS = 20
EARLY = DEMO_CAPTURES / "azure" / "2026-08-03-westeurope.har.gz"


@dataclass
class Ctx:
    store: Store
    home: Path
    tmp: Path
    cli: Cli


@dataclass(frozen=True)
class Fault:
    name: str
    must_hold: str
    check: Callable[[Ctx], None]
    backends: tuple[str, ...] = ("sqlite", "postgres")

    def __str__(self) -> str:
        return self.name


# --- the webhook and the daemon ------------------------------------------------


@dataclass
class Hook:
    """A JSON webhook on 127.0.0.1 that can hold the n-th request until released."""

    hold_at: int | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    in_flight: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    base: str = ""

    def answer(self, req: Received) -> Reply:
        # `received` already holds this request: hold the (hold_at + 1)-th.
        if self.hold_at is not None and len(self.received) == self.hold_at + 1 and not self.release.is_set():
            self.in_flight.set()
            self.release.wait(60)
        return Reply(self.status, b"{}", {"Content-Type": "application/json", **self.headers})

    def keys(self) -> list[str]:
        return [r.headers["Idempotency-Key"] for r in self.received if r.path == "/hook"]


@contextmanager
def webhook(hook: Hook) -> Iterator[Hook]:
    with serve(hook.answer) as (base, received):
        hook.base, hook.received = base, received
        yield hook
        hook.release.set()


def delivery_config(ctx: Ctx, hook: Hook, **alerts: object) -> Path:
    settings = {"retry_base_seconds": 1, "lease_seconds": 30, **alerts}
    lines = "".join(f"{k} = {json.dumps(v)}\n" for k, v in settings.items())
    path = ctx.home / "config.toml"
    path.write_text(
        f'[daemon]\nsources = ["azure"]\nevery = "6h"\ndelivery_every = "{ROUND}s"\njitter = 0\n'
        f"[alerts]\n{lines}"
        f'[[channel]]\nname = "team"\nurl = "json://{hook.base.removeprefix("http://")}/hook"\n'
        '[[rule]]\nname = "drops"\nwhen = ["price_drop"]\nchannels = ["team"]\n',
        encoding="utf-8",
    )
    return path


def add_alerts(ctx: Ctx, n: int = ALERTS) -> list[str]:
    """`n` price drops routed to the channel, due a minute ago; their idempotency keys."""
    config = load_config(ctx.home / "config.toml", home=ctx.home)
    engine = make_engine(ctx.store.direct_url)
    migrate(engine)
    at = datetime.now(UTC) - timedelta(minutes=1)
    changes = [price(key=f"sku-{i}", instance=f"Standard_ND{i}") for i in range(n)]
    with Session(engine) as session:
        enqueue(session, route(compile_rules(config.rule), changes, MemoryReferences(), at), at)
        session.commit()
    keys = [k for (k,) in _rows(ctx, "select idempotency_key from alert_outbox order by id")]
    engine.dispose()
    return keys


def _rows(ctx: Ctx, sql: str) -> list[Any]:
    engine = sa.create_engine(ctx.store.direct_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(sa.text(sql)))
    finally:
        engine.dispose()


def states(ctx: Ctx) -> Counter[str]:
    return Counter(s for (s,) in _rows(ctx, "select state from alert_outbox"))


def all_sent(ctx: Ctx, n: int = ALERTS) -> bool:
    return states(ctx) == {"sent": n}


@contextmanager
def running(ctx: Ctx, *args: str, new_session: bool = False) -> Iterator[DaemonProcess]:
    env = {"GPU_TRACKER_DATABASE_URL": ctx.store.url}
    with daemon(ctx.home, "--no-crawl", *args, env=env, new_session=new_session) as d:
        yield d


def assert_each_once(hook: Hook, keys: list[str], *, but: int = 0) -> None:
    """Every alert arrived; at most `but` of them twice (the one in flight at a kill), with its own key."""
    counts = Counter(hook.keys())
    assert set(counts) == set(keys), (len(counts), len(keys))
    twice = [k for k, n in counts.items() if n > 1]
    assert len(twice) <= but and all(counts[k] == 2 for k in twice), counts


# --- delivery rows ---------------------------------------------------------------


def _killed_while_delivering(ctx: Ctx, *, group: bool) -> None:
    with webhook(Hook(hold_at=5)) as hook:
        delivery_config(ctx, hook)
        keys = add_alerts(ctx)
        with running(ctx, new_session=group) as first:
            assert hook.in_flight.wait(60), first.output()
            first.kill(group=group)
        hook.release.set()
        # The kill strands the message in flight, not a batch (issue 30: 29 of 34 waited for the next stop).
        assert states(ctx) == {"sent": 5, "sending": 1, "pending": ALERTS - 6}
        with running(ctx) as second:
            started = time.monotonic()
            wait_for(lambda: all_sent(ctx), 2 * ROUND + 15, "every alert sent after the restart")
            assert time.monotonic() - started <= 2 * ROUND + 15
            assert second.stop(signal.SIGTERM) == 0
    assert_each_once(hook, keys, but=1)


def killed_while_delivering(ctx: Ctx) -> None:
    _killed_while_delivering(ctx, group=False)


def oom_killed_while_delivering(ctx: Ctx) -> None:
    _killed_while_delivering(ctx, group=True)


def store_stops_mid_batch(ctx: Ctx) -> None:
    with webhook(Hook(hold_at=5)) as hook:
        delivery_config(ctx, hook)
        keys = add_alerts(ctx)
        with running(ctx) as d:
            assert hook.in_flight.wait(60), d.output()
            with ctx.store.stopped():
                hook.release.set()  # the channel takes it while the store is gone: its answer is kept
                wait_for(lambda: "delivery: the store failed: " in d.output(), 30, "the store's failure said")
                time.sleep(2 * ROUND)  # two more rounds due while the store is away
                assert d.proc.poll() is None, d.output()
            back = time.monotonic()
            wait_for(lambda: all_sent(ctx), 2 * ROUND + 15, "every alert sent after the store's return")
            assert time.monotonic() - back <= 2 * ROUND + 15
            assert d.stop(signal.SIGTERM) == 0
            log = d.output()
    assert_each_once(hook, keys)  # the one answered while the store was gone is recorded, not sent again
    assert "delivery: the store failed: " in log and "Traceback" not in log, log
    assert "sending" not in states(ctx)


def sigterm_while_delivering(ctx: Ctx) -> None:
    with webhook(Hook(hold_at=5)) as hook:
        delivery_config(ctx, hook)
        keys = add_alerts(ctx)
        with running(ctx) as d:
            assert hook.in_flight.wait(60), d.output()
            d.proc.send_signal(signal.SIGTERM)
            time.sleep(1)
            hook.release.set()
            started = time.monotonic()
            assert d.proc.wait(timeout=10) == 0, d.output()
            assert time.monotonic() - started < 5
        # Stopped between messages: the one in flight was recorded, nothing is left claimed.
        assert states(ctx) == {"sent": 6, "pending": ALERTS - 6}
        with running(ctx) as again:
            wait_for(lambda: all_sent(ctx), 2 * ROUND + 15, "the rest sent by the next start")
            assert again.stop(signal.SIGTERM) == 0
    assert_each_once(hook, keys)


def retry_after_is_a_floor(ctx: Ctx) -> None:
    from tracker.run.alerting import deliver_outbox

    now = datetime.now(UTC)
    later = (now + timedelta(seconds=90)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    for asked, floor in (("30", 30), (later, 90)):
        with webhook(Hook(status=429, headers={"Retry-After": asked})) as slow, webhook(Hook()) as fine:
            config_path = delivery_config(ctx, slow, retry_base_seconds=1)
            text = config_path.read_text(encoding="utf-8").replace('channels = ["team"]', 'channels = ["team", "ok"]')
            text += f'[[channel]]\nname = "ok"\nurl = "json://{fine.base.removeprefix("http://")}/hook"\n'
            config_path.write_text(text, encoding="utf-8")
            _rows_clear(ctx)
            add_alerts(ctx, 3)
            config = load_config(config_path, home=ctx.home)
            engine = make_engine(ctx.store.direct_url)
            report = deliver_outbox(config, engine, now=now)
            due = _rows(ctx, "select next_attempt_at from alert_outbox where channel = 'team' and state = 'pending'")
            engine.dispose()
        assert report.sent == 3 and len(fine.keys()) == 3, report  # the other channel is not held back
        assert len(slow.keys()) == 1  # one attempt, then the channel waits
        for (when,) in due:
            when = when if isinstance(when, datetime) else datetime.fromisoformat(str(when))
            when = when if when.tzinfo else when.replace(tzinfo=UTC)
            # An HTTP date counts whole seconds.
            assert when >= now + timedelta(seconds=floor - 2), (asked, when)


def _rows_clear(ctx: Ctx) -> None:
    engine = make_engine(ctx.store.direct_url)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(sa.text("delete from alert_outbox"))
    engine.dispose()


def failures_are_said(ctx: Ctx) -> None:
    # One log format per back end (the log does not depend on the store; a daemon run each costs 10 s).
    for fmt in ("text",) if ctx.store.name == "sqlite" else ("json",):
        _rows_clear(ctx)
        with webhook(Hook(status=500)) as hook:
            delivery_config(ctx, hook, max_attempts=2)
            add_alerts(ctx, 2)
            with running(ctx, "--log-format", fmt) as d:
                wait_for(lambda: states(ctx).get("dead") == 2, 60, "the alerts dead-lettered")
                time.sleep(1)
                code, metrics = d.get("/metrics")
                assert d.stop(signal.SIGTERM) == 0
                log = d.output()
        lines = log.splitlines()
        if fmt == "json":
            records = [json.loads(line) for line in lines if line.startswith("{")]
            warnings = [r for r in records if r["level"] == "warning" and "delivery failed" in r["message"]]
            errors = [r for r in records if r["level"] == "error" and "gave up" in r["message"]]
            assert warnings and all(r["channel"] == "team" and r["http_status"] == 500 for r in warnings), records
            texts = [r["message"] for r in warnings + errors]
        else:
            texts = [line for line in lines if "delivery failed" in line or "gave up" in line]
            assert any("warning: team: delivery failed (HTTP 500" in line for line in texts), log
        assert len([t for t in texts if "delivery failed" in t]) >= 2
        assert len([t for t in texts if "gave up" in t]) == 2, texts
        assert all("alerts retry --channel team" in t for t in texts if "gave up" in t)
        assert code == 200
        for name in DOCUMENTED_METRICS:
            assert re.search(rf"^{name}(\{{[^}}]*\}})? ", metrics, re.M), f"{name} has no sample"
        assert re.search(r'^gpu_tracker_delivery_failures_total\{channel="team"\} [1-9]', metrics, re.M), metrics
        assert re.search(r'^gpu_tracker_outbox_depth\{state="dead"\} 2', metrics, re.M), metrics
    status = ctx.cli("status")
    assert "outbox: 0 pending, 0 sending, 2 dead" in status.err, status.err
    assert "team: 0 waiting, 2 dead; `gpu-tracker alerts retry --channel team`" in status.err, status.err


DOCUMENTED_METRICS = (
    "gpu_tracker_crawls_total",
    "gpu_tracker_crawl_duration_seconds_count",
    "gpu_tracker_crawl_items_count",
    "gpu_tracker_changes_total",
    "gpu_tracker_outbox_depth",
    "gpu_tracker_outbox_oldest_pending_seconds",
    "gpu_tracker_outbox_dead_letters",
    "gpu_tracker_delivery_failures_total",
    "gpu_tracker_deliveries_total",
    "gpu_tracker_crawls_skipped_total",
    "gpu_tracker_scheduler_up",
)


def overlap_said_once(ctx: Ctx) -> None:
    with webhook(Hook(hold_at=0)) as hook:
        config = delivery_config(ctx, hook)
        config.write_text(config.read_text(encoding="utf-8").replace(f'"{ROUND}s"', '"1s"'), encoding="utf-8")
        add_alerts(ctx, 1)
        with running(ctx) as d:
            assert hook.in_flight.wait(60), d.output()
            time.sleep(6)  # six rounds due while the first one waits for the channel
            hook.release.set()
            wait_for(lambda: all_sent(ctx, 1), 20, "the alert sent")
            assert d.stop(signal.SIGTERM) == 0
            log = d.output()
    assert log.count("still running when due again") == 1, log
    assert "maximum number of running instances" not in log


# --- crawl and store rows ------------------------------------------------------


def _times(factor: float) -> Callable[[int, dict[str, Any]], None]:
    def edit(_: int, entry: dict[str, Any]) -> None:
        page = page_json(entry)
        for item in page["Items"]:
            for key in ("retailPrice", "unitPrice"):
                item[key] = round(item[key] * factor, 6)
        set_page_json(entry, page)

    return edit


def catalogue_times_ten(ctx: Ctx) -> None:
    def crawl(har: Path) -> Any:
        return ctx.cli("crawl", "azure", "-r", "westeurope", "--replay", str(har), "--format", "json")

    first = crawl(EARLY)
    assert first.code == 0, first.err
    before = ctx.cli("prices", "--format", "json").out
    slip = crawl(shifted(EARLY, ctx.tmp / "x10.har", datetime(2026, 8, 4, tzinfo=UTC), _times(10)))
    assert slip.code == 1 and "moved by the same factor (x10)" in slip.err, slip.err
    assert ctx.cli("prices", "--format", "json").out == before
    good = crawl(shifted(EARLY, ctx.tmp / "good.har", datetime(2026, 8, 5, tzinfo=UTC)))
    assert good.code == 0
    kinds = Counter(c["kind"] for c in json.loads(ctx.cli("changes", "--format", "json").out))
    assert kinds == {"source_broken": 1, "source_recovered": 1}, kinds  # no flood of rises, then of drops


def store_fails_while_storing(ctx: Ctx) -> None:
    from db.schema import CrawlResult
    from tracker.run.crawl import CrawlRequest, run_crawl
    from tracker.run.pipeline import Pipeline, StoreWriteFailed
    from tracker.sources import SOURCES

    engine = make_engine(ctx.store.url)
    migrate(engine)
    pipeline = Pipeline(engine)
    source = SOURCES["azure"]

    def replay(har: Path, folder: str, stop_store: bool = False) -> Callable[[int], CrawlResult]:
        def crawl(run_id: int) -> CrawlResult:
            result = run_crawl(CrawlRequest(source, ctx.tmp / folder, ["westeurope"], replay=har))
            if stop_store:
                ctx.store.down()
            return result

        return crawl

    assert pipeline.run(source, replay(EARLY, "a"), mode="replay").ok
    second = shifted(EARLY, ctx.tmp / "b.har", datetime(2026, 8, 4, tzinfo=UTC), _times(0.9))
    try:
        pipeline.run(source, replay(second, "b", stop_store=True), mode="replay")
        raise AssertionError("the store was down: the run cannot have been stored")
    except StoreWriteFailed:
        pass
    finally:
        ctx.store.up()
    assert pipeline.unsettled  # kept until the store answers ...
    assert pipeline.settle() == 1  # ... and marked as soon as it does, never left `running`
    runs = [tuple(r) for r in _rows(ctx, "select status from crawl_runs order by id")]
    assert runs == [("ok",), ("store_error",)], runs
    third = shifted(EARLY, ctx.tmp / "c.har", datetime(2026, 8, 5, tzinfo=UTC), _times(0.9))
    report = pipeline.run(source, replay(third, "c"), mode="replay")
    kinds = Counter(str(c.kind) for c in report.changes)
    assert report.ok and "source_recovered" not in kinds and kinds["price_drop"] > 0, kinds
    assert not [k for (k,) in _rows(ctx, "select kind from changes") if k == "source_broken"]
    engine.dispose()


def damaged_sqlite_file(ctx: Ctx) -> None:
    assert ctx.cli("crawl", "azure", "-r", "westeurope", "--replay", str(EARLY)).code == 0
    db = Path(ctx.store.url.removeprefix("sqlite:///"))
    engine = sa.create_engine(ctx.store.url)
    with engine.connect() as conn:
        root = conn.execute(sa.text("select rootpage from sqlite_master where name = 'ix_price_points_key'")).scalar()
        page_size = conn.execute(sa.text("pragma page_size")).scalar()
        conn.execute(sa.text("pragma wal_checkpoint(TRUNCATE)"))
    engine.dispose()
    assert root is not None and page_size is not None
    data = bytearray(db.read_bytes())
    start = (int(root) - 1) * int(page_size)
    data[start + 8 : start + 100] = b"\xab" * 92  # an index page SQLite's quick check reads, not a query
    db.write_bytes(bytes(data))
    result = ctx.cli("daemon", "--once")
    assert result.code == 1, result.err
    assert f"the store {db} is damaged" in result.err and ".recover" in result.err, result.err
    assert "Traceback" not in result.err


def once_with_a_failing_source(ctx: Ctx) -> None:
    with serve(lambda req: Reply(500, b"{}")) as (base, _):
        (ctx.home / "config.toml").write_text(
            '[daemon]\nsources = ["azure"]\n[crawl]\nretry_times = 0\n'
            f'[providers.azure]\nregions = ["westeurope"]\napi_url = "{base}/api/retail/prices"\n',
            encoding="utf-8",
        )
        result = ctx.cli("daemon", "--once")
    assert result.code == 1, result.err  # for cron: the docs promise 1 (issue 30: it was 0)
    assert "not complete: azure" in result.err


def read_only_store(ctx: Ctx) -> None:
    from tests.helpers.faults import chattr, sqlite_files

    assert ctx.cli("crawl", "azure", "-r", "westeurope", "--replay", str(EARLY)).code == 0
    db = Path(ctx.store.url.removeprefix("sqlite:///"))
    engine = sa.create_engine(ctx.store.url)
    with engine.connect() as conn:
        conn.execute(sa.text("pragma wal_checkpoint(TRUNCATE)"))
    engine.dispose()
    for extra in sqlite_files(db)[1:]:
        extra.unlink(missing_ok=True)
    frozen = [db, db.parent]
    chattr("+i", frozen)
    try:
        for command in (
            ("prices", "--gpu", "A100"),
            ("runs",),
            ("changes",),
            ("compare", "--gpu", "A100"),
            ("status",),
        ):
            result = ctx.cli(*command)
            assert result.code == 0 and "error" not in result.err, (command, result.err)
        crawl = ctx.cli("crawl", "azure", "-r", "westeurope", "--replay", str(EARLY))
        assert crawl.code == 1 and f"the store at {db} failed" in crawl.err and "readonly" in crawl.err, crawl.err
    finally:
        chattr("-i", frozen)


def store_from_a_newer_version(ctx: Ctx) -> None:
    assert ctx.cli("runs").code == 0
    engine = sa.create_engine(ctx.store.direct_url)
    with engine.begin() as conn:
        conn.execute(sa.text("delete from alembic_version"))
        conn.execute(sa.text("insert into alembic_version (version_num) values ('0999')"))
    engine.dispose()
    result = ctx.cli("prices")
    assert result.code == 1 and "upgraded by a newer gpu-tracker (schema revision 0999" in result.err, result.err
    assert "pip install --upgrade gpu-offer-tracker" in result.err and "CommandError" not in result.err


def truncated_replay_file(ctx: Ctx) -> None:
    cut = ctx.tmp / "cut.har.gz"
    cut.write_bytes(EARLY.read_bytes()[:5000])
    result = ctx.cli("crawl", "azure", "-r", "westeurope", "--replay", str(cut))
    assert result.code == 1 and "nothing was crawled or recorded" in result.err, result.err
    assert json.loads(ctx.cli("runs", "--format", "json").out) == []
    assert json.loads(ctx.cli("changes", "--format", "json").out) == []


FAULTS = [
    Fault(
        "daemon SIGKILLed while delivering",
        "one message stranded, not a batch; all delivered within one round of the restart; only that one twice",
        killed_while_delivering,
    ),
    Fault(
        "daemon and its children killed at once (OOM-like)",
        "as after SIGKILL",
        oom_killed_while_delivering,
    ),
    Fault(
        "the store stops in the middle of a delivery batch, for two rounds after the daemon says so",
        "the daemon lives, says why in one line, and delivers everything within one round of the store's return, "
        "each exactly once",
        store_stops_mid_batch,
    ),
    Fault(
        "SIGTERM while delivering",
        "exit 0 within seconds; the message in flight recorded, nothing left claimed or sent twice",
        sigterm_while_delivering,
    ),
    Fault(
        "a channel answers 429 with Retry-After (seconds, then an HTTP date)",
        "its next attempt no sooner than asked; another channel in the same round is not held back",
        retry_after_is_a_floor,
    ),
    Fault(
        "a channel fails until its alerts are dead-lettered",
        "a WARNING per failed attempt and an ERROR per dead letter in both log formats (text with SQLite, JSON "
        "with PostgreSQL); every documented metric "
        "has samples; status shows the backlog and dead letters per channel",
        failures_are_said,
    ),
    Fault(
        "a delivery round outlasts the delivery interval",
        "the overlap is said once, not every second",
        overlap_said_once,
    ),
    Fault(
        "a whole catalogue arrives multiplied by 10, then right again",
        "one source_broken naming the factor, the last good prices kept; no price_increase or price_drop",
        catalogue_times_ten,
    ),
    Fault(
        "the store fails while a crawl is stored",
        "the run is marked store_error once the store answers, never left running; nothing announced, and the next "
        "good run is no source_recovered",
        store_fails_while_storing,
    ),
    Fault(
        "a damaged SQLite file",
        "the daemon refuses to start, naming the file and the way out",
        damaged_sqlite_file,
        ("sqlite",),
    ),
    Fault("daemon --once with a failing source", "exit 1, naming the source", once_with_a_failing_source),
    Fault(
        "a read-only store (file and folder)",
        "reading commands work; a crawl says the store is read-only in one line",
        read_only_store,
        ("sqlite",),
    ),
    Fault(
        "a store upgraded by a newer gpu-tracker",
        "one line naming the revision and how to upgrade",
        store_from_a_newer_version,
    ),
    Fault(
        "a truncated local --replay file",
        "refused before a run is recorded; nothing announced",
        truncated_replay_file,
    ),
]


ROW_MODULES = ("faults_input", "faults_daemon", "faults_web")
"""Modules of more rows (issue 40), each with its own `FAULTS` list of `Fault`s."""


def rows_for(backend: str) -> list[Fault]:
    import importlib

    rows = list(FAULTS)
    for name in ROW_MODULES:
        rows += importlib.import_module(f"tests.reliability.{name}").FAULTS
    return [f for f in rows if backend in f.backends]
