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

from dataclasses import dataclass
from datetime import datetime
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
    band: str  # the provider's label: "<5%", "5-10%", "10-15%", "15-20%", ">20%"
    rank: int  # the band's index in the provider's ranges: 0 the least risk
    savings_percent: int | None
    source_url: str
    observed_at: datetime

    @property
    def pool(self) -> tuple[str, str, str, str]:
        return (self.provider, self.instance_type, self.region, self.os)


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
