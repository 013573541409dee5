"""The `compare` answer: one GPU model's current prices ranked across
providers. Its request (each choice a `db.kinds` enum), its rows
(`tracker.analytics.compare.compare_rows`: only the prices that can rank are
read, only the first `limit` worked out in full) and its columns.
`gpu-tracker compare` and /api/compare build a `CompareRequest` and call `rows`."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from db.kinds import PriceModel, RankBy, RegionGroup
from tracker.answers.columns import COMPARE_TABLE

if TYPE_CHECKING:
    from db.store.reads.connection import Db
    from tracker.analytics.facts.reference import References

TITLES = {
    RankBy.price_per_gpu_hour: "price per GPU-hour",
    RankBy.price_per_tflop_hour: "price per dense TFLOP-hour",
    RankBy.price_per_gb_vram_hour: "price per GB of GPU memory per hour",
}
# The table column that shows what a rank-by ranks on.
RANK_COLUMN = {RankBy.price_per_tflop_hour: "per_tflop_h", RankBy.price_per_gb_vram_hour: "per_gb_vram_h"}


@dataclass(frozen=True)
class CompareRequest:
    """Which prices of one GPU model to rank, and by what."""

    gpu: str
    count: Decimal | None = None
    price_models: tuple[PriceModel, ...] = ()
    region_group: RegionGroup | None = None
    currency: str = "USD"
    provider: str | None = None
    os: str = "linux"
    rank_by: RankBy = RankBy.price_per_gpu_hour
    limit: int | None = None
    include_suspect: bool = False

    def title(self) -> str:
        return f"{self.gpu}: {TITLES[RankBy(self.rank_by)]} in {self.currency}"

    def empty(self) -> str:
        return f"no current prices for {self.gpu} match"

    def table(self) -> list[str]:
        """The table's columns: with the column of what it ranks by."""
        shown = RANK_COLUMN.get(RankBy(self.rank_by))
        return [*COMPARE_TABLE[:12], shown, *COMPARE_TABLE[12:]] if shown else COMPARE_TABLE


def rows(store: Db | Any, refs: References, request: CompareRequest) -> list[dict[str, Any]]:
    """The ranked rows (`COLUMNS`)."""
    from tracker.analytics.compare import compare_rows

    return compare_rows(
        store,
        refs,
        gpu=request.gpu,
        provider=request.provider,
        limit=request.limit,
        count=request.count,
        currency=request.currency,
        os=request.os or "linux",
        price_models=[PriceModel(m).value for m in request.price_models],
        region_group=RegionGroup(request.region_group).value if request.region_group else None,
        rank_by=RankBy(request.rank_by).value,
        include_suspect=request.include_suspect,
    )
