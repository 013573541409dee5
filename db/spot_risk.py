"""Spot interruption risk as stored data (issue 42, item 3): the band a
provider states for a spot pool (AWS's Spot Instance Advisor: the share of
instances of a type reclaimed in the trailing month, "<5%" to ">20%"), per
provider, instance type, region and operating system, with its history.

One row per band a pool held, as an interval: `valid_from` is when a run
first read it, `valid_to` when a later run read another band (or no band)
for the pool; the open row (`valid_to` NULL) is the band now. The savings the
provider states beside the band are kept on the open row as last read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from db.tables import UTCDateTime


def _time(**kw: Any) -> Any:
    return Field(sa_type=UTCDateTime, **kw)


@dataclass(frozen=True)
class SpotBand:
    """One pool's band as a run read it (a normalizer's output)."""

    provider: str
    instance_type: str
    region: str
    os: str  # "linux", "windows"
    # The provider's label as it states it: AWS "<5%" ... ">20%", Alibaba
    # "0-3%" ... "10-100%", Volcano Engine its InterruptionRateRange.
    band: str
    rank: int  # the band's place in the provider's own scale: higher, riskier
    savings_percent: int | None
    source_url: str
    observed_at: datetime

    @property
    def pool(self) -> tuple[str, str, str, str]:
        return (self.provider, self.instance_type, self.region, self.os)


_RANGE = re.compile(
    r"^\s*(?:(?P<lo>\d+(?:\.\d+)?)\s*%?\s*[-~–]\s*(?P<hi>\d+(?:\.\d+)?)|(?P<op>[<>])\s*(?P<edge>\d+(?:\.\d+)?))\s*%\s*$"
)


def stated_bounds(label: str) -> tuple[Decimal, Decimal] | None:
    """A band label's bounds in percent a month, as the provider states them:
    "0-3%" -> (0, 3), "10-100%" -> (10, 100), "<5%" -> (0, 5), ">20%" -> (20,
    100: no top stated); None for a label that is not a range."""
    found = _RANGE.match(label or "")
    if found is None:
        return None
    if found["op"]:
        edge = Decimal(found["edge"])
        low, high = (Decimal(0), edge) if found["op"] == "<" else (edge, Decimal(100))
    else:
        low, high = Decimal(found["lo"]), Decimal(found["hi"])
    if not (0 <= low < high <= 100):
        return None
    return low, high


class SpotBandRow(SQLModel, table=True):
    __tablename__ = "spot_bands"
    __table__: ClassVar[sa.Table]
    __table_args__ = (
        sa.Index("ix_spot_bands_open", "source", "valid_to"),
        sa.Index("ix_spot_bands_pool", "provider", "instance_type", "region"),
    )

    id: int | None = Field(default=None, primary_key=True)
    source: str
    provider: str
    instance_type: str
    region: str
    os: str
    band: str
    rank: int
    savings_percent: int | None = None
    source_url: str = ""
    run_id: int | None = None
    valid_from: datetime = _time()
    valid_to: datetime | None = _time(default=None, nullable=True)
    last_seen: datetime = _time()
