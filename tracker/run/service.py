"""Crawling a source end to end, as the CLI, the demo and the daemon do it."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from db.schema import CrawlResult, RunStatus
from db.store.locks import LockBusy, crawl_lock
from tracker.config.settings import Config, api_key_env
from tracker.config.watch import is_watch, watch_source
from tracker.errors import SourceSkipped, UserError
from tracker.run.captures import capture_regions, prune_captures
from tracker.run.child import Progress
from tracker.run.crawl import CrawlRequest, ReplayBatch, replay_crawls, run_crawl
from tracker.sources import SOURCES, Source

if TYPE_CHECKING:
    from tracker.run.pipeline import Pipeline, RunReport


class SourceBusy(UserError):
    """Another process is crawling this source right now. `busy` says so
    without advice: the daemon gives its own (the next scheduled run)."""

    def __init__(self, busy: str, advice: str = "wait for it to finish, or pass --wait SECONDS") -> None:
        super().__init__(f"{busy}; {advice}")
        self.busy = busy


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
    if replay is not None:
        refuse_bad_replay(replay)
    watch_args: dict[str, str] | None = None
    if is_watch(name):
        source, watch_args = watch_source(config.watch, name)
    elif name not in SOURCES:
        unknown = Source(name, name, None, None)
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
        raise SourceBusy(str(exc)) from None
    prune_captures(config.home / "runs", config.crawl.capture_retention_days)
    return report


def refuse_bad_replay(replay: Path) -> None:
    """A capture to replay that cannot be read is the user's file, not the
    provider's answer: refused before a run is recorded or anything announced."""
    from spiders.har import HarError, read_har

    try:
        read_har(replay)
    except HarError as exc:
        raise UserError(f"{exc}; nothing was crawled or recorded") from None


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
    """The crawl itself; the caller holds the source's crawl lock."""
    request = crawl_request(
        config, source, regions=regions, replay=replay, record=record, cancel=cancel, watch_args=watch_args
    )

    def crawl(run_id: int):
        request.out_dir = run_folder(config, run_id, source)
        return run_crawl(request, progress)

    return pipeline.run(source, crawl, mode="replay" if replay else "live", regions=request.regions)


def run_folder(config: Config, run_id: int, source: Source) -> Path:
    return config.home / "runs" / f"{run_id:06d}-{source.name.replace(':', '-')}"


def crawl_request(
    config: Config,
    source: Source,
    *,
    out_dir: Path | None = None,
    regions: list[str] | None = None,
    replay: Path | None = None,
    record: Path | None = None,
    cancel: threading.Event | None = None,
    watch_args: dict[str, str] | None = None,
) -> CrawlRequest:
    """What the spider is given: the regions, the provider's settings and
    secrets, the timeouts. A watch page brings its own spider arguments and
    uses no provider settings. SourceSkipped when a live crawl lacks its key."""
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
    return CrawlRequest(
        source=source,
        out_dir=out_dir or config.home / "runs",
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


@dataclass
class Replays:
    """Captures the crawler processes are replaying (`start_replays`), to be
    stored by `load_captures`."""

    captures: list[tuple[str, Path]]
    batch: ReplayBatch
    folder: Path


def start_replays(config: Config, captures: list[tuple[str, Path]], progress: Progress | None = None) -> Replays:
    """Starts replaying the captures (`replay_crawls`: a few crawler
    processes, each starting Python and Scrapy once for all its captures)
    and returns at once, so that the caller gets its store ready while they
    run."""
    folder = config.home / "runs" / f"replay-{os.getpid()}"
    requests = [
        crawl_request(
            config,
            SOURCES[name],
            out_dir=folder / f"{i:03d}-{name}",
            regions=capture_regions(capture) or None,
            replay=capture,
        )
        for i, (name, capture) in enumerate(captures)
    ]
    return Replays(captures, replay_crawls(requests, folder, progress), folder)


def load_captures(pipeline: Pipeline, config: Config, replays: Replays) -> Iterator[tuple[str, Path, RunReport]]:
    """Stores each replayed capture as its own run, in the order given,
    under its source's crawl lock, as soon as it has been replayed (the
    crawlers go on with the next ones meanwhile)."""
    all_ok = True
    with replays.batch as batch:
        for (name, capture), request, result in zip(replays.captures, batch.reqs, batch, strict=True):

            def crawl(run_id: int, request: CrawlRequest = request, result: CrawlResult = result) -> CrawlResult:
                request.out_dir.rename(run_folder(config, run_id, request.source))
                return result

            try:
                with crawl_lock(pipeline.engine, name, lease=config.daemon.lock_lease):
                    report = pipeline.run(request.source, crawl, mode="replay", regions=request.regions)
            except LockBusy as exc:
                raise SourceBusy(str(exc), "wait for it to finish") from None
            all_ok = all_ok and report.ok
            yield name, capture, report
    if all_ok:  # else the crawlers' runner.err say why
        shutil.rmtree(replays.folder, ignore_errors=True)
    prune_captures(config.home / "runs", config.crawl.capture_retention_days)
