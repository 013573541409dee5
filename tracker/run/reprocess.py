"""Rebuilding a source's snapshots from its kept captures after a parser fix,
without fetching again.

"Rebuild" means: the source's history from the oldest capture replayed
onward is replaced. Under the source's crawl lock, price intervals that began
at or after that moment are deleted, those that ended at or after it are open
again, the source's changes from then on are deleted, and its complete runs
from then on are marked `superseded`. Then every kept capture from that moment
is replayed in date order, each as a new run (mode `replay`) with its own
observation time. Nothing is alerted: these changes happened in the past.
History before the oldest replayed capture is left as it was.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from sqlmodel import Session

from db.store.locks import LockBusy, crawl_lock
from db.store.writes.rewind import Rewound, rewind_source
from db.tables import CrawlRun
from tracker.config.settings import Config
from tracker.errors import UserError
from tracker.run.captures import KeptCapture, kept_captures
from tracker.run.pipeline import Pipeline, RunReport
from tracker.run.service import SourceBusy, crawl_unlocked, resolve_source


@dataclasses.dataclass
class Reprocessed:
    rewound: Rewound
    reports: list[tuple[KeptCapture, RunReport]]


def reprocess(
    pipeline: Pipeline, config: Config, name: str, since: datetime | None = None, *, lock_wait: float = 0
) -> Reprocessed:
    source = resolve_source(name)
    runs_dir = config.home / "runs"
    captures = kept_captures(runs_dir, source.name, since)
    if not captures:
        when = f" since {since:%Y-%m-%d %H:%M}" if since else ""
        raise UserError(
            f"no kept captures of {name}{when} under {runs_dir}; live runs keep theirs for "
            f"{config.crawl.capture_retention_days} days ([crawl] capture_retention_days)"
        )
    quiet = dataclasses.replace(pipeline, on_changes=None)
    try:
        with crawl_lock(pipeline.engine, source.name, wait=lock_wait, lease=config.daemon.lock_lease):
            with Session(pipeline.engine) as session:
                rewound = rewind_source(session=session, source=source.name, moment=_moment(session, captures[0]))
                session.commit()
            reports = [
                (c, crawl_unlocked(quiet, config, source, regions=_regions(pipeline, c), replay=c.path))
                for c in captures
            ]
    except LockBusy as exc:
        raise SourceBusy(str(exc)) from None
    return Reprocessed(rewound, reports)


def _moment(session: Session, first: KeptCapture) -> datetime:
    """Where history is cut: the original run's start, which precedes all it observed."""
    run = session.get(CrawlRun, first.run_id)
    return min(first.observed_at, run.started_at) if run else first.observed_at


def _regions(pipeline: Pipeline, capture: KeptCapture) -> list[str] | None:
    """The regions the original run crawled: the capture answers only those."""
    with Session(pipeline.engine) as session:
        run = session.get(CrawlRun, capture.run_id)
        return [r for r in run.regions.split(",") if r] if run and run.regions else None
