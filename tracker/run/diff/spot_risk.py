"""A spot-risk run (a source of kind "spot_risk", such as `aws-spot-advisor`):
the bands it read against the open ones (db/spot_risk.py). A pool whose band
differs gets a new interval; one whose band got worse is a `spot_risk_worse`
change ("p5.48xlarge us-east-1 spot: interruptions <5% -> 10-15%"), once: the
same band read again, or a capture replayed twice, changes nothing. A pool
of a region the run read that it no longer lists is closed without a change
(the type left the Advisor; its spot price says whether it left the market).
A pool seen for the first time is stored without a change."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session

from db.schema import Change, ChangeKind
from db.spot_risk import SpotBand, SpotBandRow
from tracker.normalize.specs import lookup


def apply_bands(
    session: Session, *, source: str, run_id: int | None, bands: Sequence[SpotBand], observed: datetime
) -> tuple[list[Change], list[str]]:
    """Writes the run's bands; returns its changes and a note."""
    table = SpotBandRow.__table__
    rows = session.execute(sa.select(table).where(table.c.source == source, table.c.valid_to.is_(None))).mappings()
    open_rows = {(r["provider"], r["instance_type"], r["region"], r["os"]): r for r in rows}
    regions = {b.region for b in bands}
    changes: list[Change] = []
    closes: list[int] = []
    inserts: list[dict[str, object]] = []
    seen_again: list[int] = []
    for found in bands:
        before = open_rows.pop(found.pool, None)
        if before is not None and before["band"] == found.band:
            seen_again.append(before["id"])
            continue
        if before is not None:
            closes.append(before["id"])
            if found.rank > before["rank"]:
                changes.append(_worse(found, str(before["band"]), source))
        inserts.append(_row(found, source, run_id, observed))
    gone = [r["id"] for pool, r in open_rows.items() if pool[2] in regions]
    if closes or gone:
        session.execute(sa.update(table).where(table.c.id.in_(closes + gone)).values(valid_to=observed))
    if seen_again:
        for start in range(0, len(seen_again), 500):
            chunk = seen_again[start : start + 500]
            session.execute(sa.update(table).where(table.c.id.in_(chunk)).values(last_seen=observed))
    if inserts:
        session.execute(sa.insert(table), inserts)
    note = (
        f"{source}: {len(bands)} spot pools, {len(inserts) - len(closes)} new, {len(closes)} with another band"
        f" ({len(changes)} worse), {len(gone)} no longer listed"
    )
    return changes, [note]


def _row(band: SpotBand, source: str, run_id: int | None, observed: datetime) -> dict[str, object]:
    return {
        "source": source,
        "provider": band.provider,
        "instance_type": band.instance_type,
        "region": band.region,
        "os": band.os,
        "band": band.band,
        "rank": band.rank,
        "savings_percent": band.savings_percent,
        "source_url": band.source_url,
        "run_id": run_id,
        "valid_from": observed,
        "valid_to": None,
        "last_seen": observed,
    }


def _worse(band: SpotBand, before: str, source: str) -> Change:
    spec = lookup(band.provider, band.instance_type)
    detail = {"old_band": before, "new_band": band.band}
    if band.savings_percent is not None:
        detail["savings_percent"] = str(band.savings_percent)
    return Change(
        kind=ChangeKind.spot_risk_worse,
        provider=band.provider,
        source=source,
        key="|".join((band.provider, band.region, band.instance_type, band.os, "spot")),
        region=band.region,
        instance_type=band.instance_type,
        gpu_model=spec.gpu_model if spec else None,
        gpu_count=spec.gpu_count if spec else None,
        os=band.os,
        price_model="spot",
        source_url=band.source_url,
        observed_at=band.observed_at,
        detail=detail,
    )
