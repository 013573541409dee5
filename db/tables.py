"""Stored rows of the value types in `db/schema.py`: `PricePoint` of a
`PriceQuote`, `ChangeRow` of a `Change` (and `OfferPoint` of an `Offer`, in
`db/store/writes/offers.py`), declared column for column beside them;
`tests/db/test_shapes.py` fails when a table and its value type, or the
migrations and the tables, disagree.

Money and other Decimals are stored as strings: SQLite has no exact decimal
type, and a float round trip would turn "10.65012" into a different number.
Times are stored in UTC and always read back time-zone aware.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel


class UTCDateTime(TypeDecorator[datetime]):
    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _time(**kw: Any) -> Any:
    return Field(sa_type=UTCDateTime, **kw)


class CrawlRun(SQLModel, table=True):
    __tablename__ = "crawl_runs"
    __table__: ClassVar[sa.Table]  # set by SQLModel; declared for the type checker

    id: int | None = Field(default=None, primary_key=True)
    source: str = Field(index=True)
    provider: str
    spider: str = ""
    mode: str = "live"
    started_at: datetime = _time()
    finished_at: datetime | None = _time(default=None)
    observed_at: datetime | None = _time(default=None)
    status: str = Field(index=True)
    regions: str = ""
    pages: int = 0
    items: int = 0
    rows_written: int = 0
    changes: int = 0
    error: str | None = None
    capture_path: str | None = None
    pid: int | None = None


class PricePoint(SQLModel, table=True):
    """One price over an interval [valid_from, valid_to); open while valid_to
    is null. A re-crawl that sees the same value only moves last_run_id."""

    __tablename__ = "price_points"
    __table__: ClassVar[sa.Table]  # set by SQLModel; declared for the type checker
    __table_args__ = (
        sa.Index("ix_price_points_open", "source", "region", "valid_to"),
        sa.Index("ix_price_points_key", "key", "valid_to"),
        sa.Index("ix_price_points_instance", "instance_type", "valid_from"),
        sa.Index("ix_price_points_place", "provider", "region", "instance_type"),
    )

    id: int | None = Field(default=None, primary_key=True)
    key: str
    value_hash: str
    source: str
    provider: str
    region: str
    zone: str = ""
    instance_type: str
    gpu_model: str | None = None
    gpu_count: str | None = None
    gpu_memory_gb: str | None = None
    vcpu: str | None = None
    memory_gb: str | None = None
    gpu_interconnect: str | None = None
    network_gbps: str | None = None
    os: str = ""
    price_model: str
    term: str = ""
    payment_option: str = ""
    price: str
    currency: str
    unit: str
    list_price: str | None = None
    upfront_fee: str | None = None
    availability: str | None = None
    source_url: str = ""
    attrs: str = "{}"
    # A marketplace aggregate's figures (migration 0009): None for a list price.
    median_price: str | None = None
    offer_count: int | None = None
    valid_from: datetime = _time()
    valid_to: datetime | None = _time(default=None)
    # The run that wrote the row. Not a foreign key: runs are never deleted,
    # and on PostgreSQL the check cost each inserted row more than its indexes
    # (migration 0007).
    first_run_id: int | None = None
    # Open rows were seen by the source's last complete run, unless they count
    # misses: storing "last seen" per row would rewrite every row on every run.
    missed_runs: int = 0
    # For a row from `gpu-tracker import`: a hash of the file row it came
    # from. A later import meeting the same row knows it unchanged without
    # validating it again.
    input_hash: str | None = None


class ChangeRow(SQLModel, table=True):
    __tablename__ = "changes"
    __table__: ClassVar[sa.Table]  # set by SQLModel; declared for the type checker
    __table_args__ = (sa.Index("ix_changes_observed", "observed_at"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int | None = Field(default=None, foreign_key="crawl_runs.id", index=True)
    kind: str
    source: str = ""
    provider: str
    key: str = ""
    region: str = ""
    zone: str = ""
    instance_type: str = ""
    gpu_model: str | None = None
    gpu_count: str | None = None
    os: str = ""
    price_model: str = ""
    term: str = ""
    payment_option: str = ""
    old_price: str | None = None
    new_price: str | None = None
    percent: str | None = None
    currency: str = ""
    unit: str = ""
    source_url: str = ""
    observed_at: datetime = _time()
    detail: str = "{}"


# The open prices' rates per instance type, kept by every run that moves a
# price (`db.store.writes.summary`, migration 0012): what `recommend` and the
# report rank from, a few rows per instance type instead of every price.
OPEN_TYPE_RATES = sa.Table(
    "open_type_rates",
    SQLModel.metadata,
    sa.Column("provider", sa.String, nullable=False),
    sa.Column("instance_type", sa.String, nullable=False),
    sa.Column("os", sa.String, nullable=False),
    sa.Column("gpu_model", sa.String, nullable=True),
    sa.Column("gpu_count", sa.String, nullable=True),
    sa.Column("gpu_memory_gb", sa.String, nullable=True),
    sa.Column("currency", sa.String, nullable=False),
    sa.Column("cls", sa.String, nullable=True),  # the kind of rate (`rankings.RATE_CLASS`)
    sa.Column("kind", sa.String, nullable=True),  # the kind of price (`db.kinds.PRICE_KINDS`)
    sa.Column("priced", sa.Integer, nullable=False),  # 0: rows with no hourly rate (shapes only)
    sa.Column("low", sa.Float, nullable=True),
    sa.Column("high", sa.Float, nullable=True),
    sa.Column("in_stock", sa.Float, nullable=True),
    sa.Column("special", sa.Integer, nullable=False),
    sa.Index("ix_open_type_rates_provider", "provider", "instance_type"),
)

# The providers whose `open_type_rates` rows wait to be worked out again
# after a bulk write (`db.store.writes.summary.after_run`).
OPEN_TYPE_RATES_STALE = sa.Table(
    "open_type_rates_stale",
    SQLModel.metadata,
    sa.Column("provider", sa.String, primary_key=True),
)


class SuspectPrice(SQLModel, table=True):
    """An open price held as suspect by the market check of the run that
    wrote it (`tracker/normalize/suspect.py`): its per-GPU-hour rate is more
    than the allowed factor away from its market. One row per price key,
    removed when a later run writes a price of that key that passes; the
    answers that rank (`compare`, `tco`, `recommend`) leave these keys out
    unless asked to include them."""

    __tablename__ = "suspect_prices"
    __table__: ClassVar[sa.Table]

    source: str = Field(primary_key=True)
    key: str = Field(primary_key=True)
    provider: str
    run_id: int | None = None
    reason: str
    observed_at: datetime = _time()
