"""Crawling a source end to end, as the CLI, the demo and the daemon do it."""

from __future__ import annotations

import threading
from pathlib import Path

from db.locks import LockBusy, crawl_lock
from db.schema import RunStatus
from tracker.config.settings import Config, api_key_env
from tracker.config.watch import is_watch, watch_source
from tracker.errors import SourceSkipped, UserError
from tracker.run.captures import prune_captures
from tracker.run.crawl import CrawlRequest, Progress, run_crawl
from tracker.run.pipeline import Pipeline, RunReport
from tracker.sources import SOURCES, Source


class SourceBusy(UserError):
    """Another process is crawling this source right now."""


def resolve_source(name: str) -> Source:
    if name not in SOURCES:
        raise UserError(f"unknown provider {name!r}; known: {', '.join(sorted(SOURCES))}")
    return SOURCES[name]


def state_file(config: Config, source: Source) -> Path:
    """Where a source's spider remembers what it discovered between runs."""
    return config.home / "state" / f"{source.name}.json"


def crawl_source(
    pipeline: Pipeline,
    config: Config,
    name: str,
    *,
    regions: list[str] | None = None,
    replay: Path | None = None,
    record: Path | None = None,
    progress: Progress | None = None,
    lock_wait: float = 0,
    cancel: threading.Event | None = None,
) -> RunReport:
    """Crawl one source (live, or replayed from a HAR) into the store.

    Holds the source's crawl lock throughout, so two processes never crawl one
    source at once; SourceBusy when it is not free within `lock_wait` seconds."""
    watch_args: dict[str, str] | None = None
    if is_watch(name):
        source, watch_args = watch_source(config.watch, name)
    elif name not in SOURCES:
        unknown = Source(name, name, "", "")
        run_id = pipeline.begin(unknown, spider="", mode="replay" if replay else "live", regions=regions or [])
        message = f"unknown provider {name!r}; known: {', '.join(sorted(SOURCES))}"
        pipeline.finish_failed(unknown, run_id, RunStatus.failed, message, announce=False)
        raise UserError(message)
    else:
        source = SOURCES[name]
    try:
        with crawl_lock(pipeline.engine, source.name, wait=lock_wait, lease=config.daemon.lock_lease):
            report = crawl_unlocked(
                pipeline,
                config,
                source,
                regions=regions,
                replay=replay,
                record=record,
                progress=progress,
                cancel=cancel,
                watch_args=watch_args,
            )
    except LockBusy as exc:
        raise SourceBusy(f"{exc}; wait for it to finish, or pass --wait SECONDS") from None
    prune_captures(config.home / "runs", config.crawl.capture_retention_days)
    return report


def crawl_unlocked(
    pipeline: Pipeline,
    config: Config,
    source: Source,
    *,
    regions: list[str] | None = None,
    replay: Path | None = None,
    record: Path | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    watch_args: dict[str, str] | None = None,
) -> RunReport:
    """The crawl itself; the caller holds the source's crawl lock. A watch
    page brings its own spider arguments and uses no provider settings."""
    settings = config.provider(source.provider)
    if watch_args is not None:
        chosen, spider_args, secrets = [], dict(watch_args), []
    else:
        missing = settings.missing_keys() if source.needs_api_key and replay is None else []
        if missing:
            where = config.path or config.home / "config.toml"
            plural = "s" if len(missing) > 1 else ""
            raise SourceSkipped(
                f"{source.name}: skipped: no API key; set {' and '.join(missing)} under "
                f"[providers.{source.provider}] in {where}, or the environment variable{plural} "
                f"{' and '.join(api_key_env(source.provider, k) for k in missing)}"
            )
        chosen = list(regions or settings.regions or [])
        spider_args = settings.spider_args()
        secrets = settings.secret_values()
        if source.keeps_state:
            spider_args.setdefault("state_file", str(state_file(config, source)))

    def crawl(run_id: int):  # type: ignore[no-untyped-def]
        folder = f"{run_id:06d}-{source.name.replace(':', '-')}"
        request = CrawlRequest(
            source=source,
            out_dir=config.home / "runs" / folder,
            regions=chosen,
            replay=replay,
            record=record,
            spider_args=spider_args,
            timeout=config.crawl.crawl_timeout,
            download_timeout=config.crawl.download_timeout,
            retry_times=config.crawl.retry_times,
            browser_path=config.crawl.browser_path,
            secrets=secrets,
            cancel=cancel,
        )
        return run_crawl(request, progress)

    return pipeline.run(source, crawl, mode="replay" if replay else "live", regions=chosen)
