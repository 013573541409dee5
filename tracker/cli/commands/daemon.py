"""Commands for running unattended: `daemon`, `status` and `reprocess`."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from enum import Enum
from typing import TYPE_CHECKING, Annotated

import typer

from tracker.answers.columns import REPROCESS_COLUMNS, STATUS_COLUMNS
from tracker.cli.output import FormatOption, OutputFormat, emit, stderr
from tracker.cli.state import parse_since, state
from tracker.errors import UserError
from tracker.logs import mask_secrets, secret_values

if TYPE_CHECKING:
    from tracker.config.settings import Config
    from tracker.run.pipeline import Pipeline

# The store and the daemon load inside each command: `--help` starts fast.


class LogFormat(str, Enum):
    text = "text"
    json = "json"


def daemon(
    ctx: typer.Context,
    once: Annotated[
        bool, typer.Option("--once", help="Crawl every source once, deliver, and exit (for cron).")
    ] = False,
    metrics_port: Annotated[
        int | None, typer.Option(min=0, max=65535, help="Serve Prometheus /metrics and /healthz on this port.")
    ] = None,
    metrics_host: Annotated[str, typer.Option(help="Address the metrics server listens on.")] = "127.0.0.1",
    log_format: Annotated[
        LogFormat, typer.Option(help="Log lines as text or JSON (one object a line).")
    ] = LogFormat.text,
    no_crawl: Annotated[
        bool,
        typer.Option(
            "--no-crawl", help="Deliver and watch for stale sources only; crawls run elsewhere (Kubernetes CronJobs)."
        ),
    ] = False,
    web_host: Annotated[
        str | None,
        typer.Option(help="With [web] enabled: the dashboard's address instead of [web] host (others need a token)."),
    ] = None,
    web_port: Annotated[
        int | None,
        typer.Option(min=0, max=65535, help="With [web] enabled: the dashboard's port instead of [web] port."),
    ] = None,
) -> None:
    """Crawl every source on its schedule and deliver alerts, until SIGTERM or Ctrl-C.

    Stale sources are watched too. Schedules live in [daemon] and
    [daemon.schedule.<source>] of the configuration. With [web] enabled it
    serves the dashboard too (docs/web.md), its /healthz the scheduler's.

    Example: gpu-tracker daemon --metrics-port 9108 --log-format json
    """
    from db.store.engine import StoreError, check_integrity
    from tracker.logs import logging_to_stderr

    st = state(ctx)
    config = st.config
    config.need()  # it crawls, alerts and keeps schedules: every part of the configuration
    web = {k: v for k, v in (("host", web_host), ("port", web_port)) if v is not None}
    if web:
        config = config.model_copy(update={"web": config.web.model_copy(update=web)})
    if config.web.enabled and not once:
        from tracker.web.serve import check_bind, check_libraries

        check_libraries()
        check_bind(config.web)  # refused before the first crawl, in one sentence
    try:
        # A damaged file would take each crawl's writes without a word: refused at start.
        check_integrity(st.engine)
    except StoreError as exc:
        raise UserError(str(exc)) from None
    level = logging.DEBUG if st.debug else logging.INFO
    secrets = secret_values(config)
    with logging_to_stderr(log_format.value, level, secrets):
        code = _run_daemon(
            st.pipeline(),
            config,
            once=once,
            crawl=not no_crawl,
            metrics_port=metrics_port,
            metrics_host=metrics_host,
            logs=(log_format.value, level, tuple(secrets)),
        )
    raise typer.Exit(code)


def _run_daemon(
    pipeline: Pipeline,
    config: Config,
    *,
    once: bool,
    crawl: bool,
    metrics_port: int | None,
    metrics_host: str,
    logs: tuple[str, int, tuple[str, ...]],
) -> int:
    from tracker.daemon.metrics import Metrics, serve_metrics
    from tracker.daemon.scheduler import Daemon

    runner = Daemon(config, pipeline, Metrics(), crawl=crawl)
    if once:
        return runner.run_once()
    server = None
    web = None
    try:
        if metrics_port is not None:
            try:
                server = serve_metrics(runner.metrics, metrics_port, runner.healthy, host=metrics_host)
            except OSError as exc:
                raise UserError(f"cannot serve metrics on {metrics_host}:{metrics_port}: {exc.strerror}") from None
        if config.web.enabled:
            # In a process of its own: no page asked, however many at once,
            # slows a crawl or a delivery. Its /healthz answers as the metrics
            # server's does: the scheduler's health.
            from tracker.web.serve import Logs, start_process

            url = pipeline.engine.url.render_as_string(hide_password=False)
            web = start_process(url, config, Logs(*logs), runner.healthy)
        return runner.run()
    finally:
        if web is not None:
            web.stop()
        if server is not None:
            server.shutdown()
            server.server_close()


def serve(
    ctx: typer.Context,
    host: Annotated[
        str | None, typer.Option(help="Address to listen on (default [web] host, 127.0.0.1); others need a token.")
    ] = None,
    port: Annotated[int | None, typer.Option(min=0, max=65535, help="Port (default [web] port, 8080).")] = None,
    log_format: Annotated[
        LogFormat, typer.Option(help="Log lines as text or JSON (one object a line).")
    ] = LogFormat.text,
) -> None:
    """Serve the dashboard and the JSON API over the store, read-only, until Ctrl-C.

    Pages: overview, prices, one page per instance type, changes, offers,
    recommend and sources; the API under /api (OpenAPI at
    /api/openapi.json) and an Atom feed of changes. It listens on 127.0.0.1
    unless told otherwise; another address needs [web] token (or
    $GPU_TRACKER_WEB_TOKEN). The daemon serves the same app when [web]
    enabled = true. See docs/web.md.

    Example: gpu-tracker serve --port 8080
    """
    st = state(ctx)
    config = st.config
    settings = config.web.model_copy(update={k: v for k, v in (("host", host), ("port", port)) if v is not None})
    from tracker.web.serve import check_bind, check_libraries, without_pyarrow

    check_libraries()
    check_bind(settings)  # before the store opens: the refusal is the first thing said
    without_pyarrow()
    from tracker.logs import logging_to_stderr
    from tracker.web.serve import build_app, server, warm_up

    level = logging.DEBUG if st.debug else logging.INFO
    with logging_to_stderr(log_format.value, level, secret_values(config)):
        web = server(build_app(st.engine, config), settings)
        stderr.print(
            f"dashboard on http://{settings.host}:{settings.port}/ (Ctrl-C stops it)", highlight=False, markup=False
        )
        warm_up()
        try:
            web.run()
        except SystemExit:
            raise UserError(
                f"cannot serve on {settings.host}:{settings.port}: the address is in use or not ours"
            ) from None


def status(ctx: typer.Context, fmt: FormatOption = OutputFormat.table) -> None:
    """Show each source's health: last good run, last failure, next run and staleness.

    Then the store's size and the outbox backlog: what waits and since when,
    and the alerts given up on, per channel.

    Example: gpu-tracker status --format json
    """
    from tracker.daemon.health import outbox_backlog, price_rows, scheduled_sources, source_health, store_size

    st = state(ctx)
    engine = st.engine
    st.config.need("daemon")
    names = scheduled_sources(st.config)
    rows = [h.row() for h in source_health(engine, st.config, names, datetime.now(UTC))]
    # A run's error was scrubbed when it was stored; mask again in case a
    # secret was set (or changed) after that run, or an old version stored it.
    known = [*secret_values(st.config), *(v for n in names for v in st.config.provider(n).secret_values())]
    for row in rows:
        if row["last_failure"]:
            row["last_failure"] = mask_secrets(str(row["last_failure"]), known)
    emit(rows, fmt, columns=STATUS_COLUMNS, empty="no sources")
    size = store_size(engine)
    shown = f", {size / 1e6:.1f} MB" if size is not None else ""
    stderr.print(
        f"store: {st.store_label()}: {price_rows(engine)} price rows{shown}",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
    backlog = outbox_backlog(engine)
    if backlog is not None:
        for line in backlog.lines(datetime.now(UTC)):
            stderr.print(line, highlight=False, soft_wrap=True, markup=False)


def reprocess(
    ctx: typer.Context,
    provider: Annotated[str, typer.Argument(help="The source whose captures to replay, for example azure.")],
    since: Annotated[
        str | None,
        typer.Option(help="Only captures from this date or span on: 2026-08-01, 7d. Default: every kept capture."),
    ] = None,
    wait: Annotated[float, typer.Option(min=0, help="Seconds to wait if the source is being crawled.")] = 0,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Rebuild a source's snapshots from its kept captures, without fetching again.

    Use it after a parser fix. History from the oldest replayed capture on
    is replaced; nothing is alerted.

    Example: gpu-tracker reprocess azure --since 2026-08-01
    """
    from tracker.run.reprocess import reprocess as rebuild

    st = state(ctx)
    done = rebuild(st.pipeline(), st.config, provider, parse_since(since), lock_wait=wait)
    r = done.rewound
    stderr.print(
        f"{provider}: rewound: {r.deleted_prices} price rows deleted, {r.reopened_prices} reopened, "
        f"{r.deleted_changes} changes deleted, {r.superseded_runs} runs superseded",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
    rows = [
        {
            "capture": str(c.path),
            "observed_at": c.observed_at,
            "run_id": rep.run_id,
            "status": str(rep.status),
            "items": rep.items,
            "rows_written": rep.rows_written,
            "changes": len(rep.changes),
            "error": rep.error,
        }
        for c, rep in done.reports
    ]
    emit(rows, fmt, columns=REPROCESS_COLUMNS, empty="nothing replayed")
    failed = [row for row in rows if row["status"] != "ok"]
    if failed:
        raise UserError(f"{len(failed)} of {len(rows)} captures did not load; the first: {failed[0]['error']}")


def register(app: typer.Typer) -> None:
    for command in (daemon, serve, status, reprocess):
        app.command()(command)
