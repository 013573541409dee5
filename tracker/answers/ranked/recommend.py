"""The `recommend` answer: its request (what a job needs, each choice a
`db.kinds` enum, each default written here once), the rows that answer it,
and its columns. `gpu-tracker recommend`, the dashboard's recommend form and
/api/recommend build a `RecommendRequest` from their options or parameters
and call `rows`; their numbers are parsed within `tracker.answers.ranges`
before they get here.

The walk of one request: `RecommendRequest.needs` (the rules and messages
of the needs: `tracker.analytics.recommend.work.by_benchmark`,
`tracker.analytics.bill.spot_risk`), then `rows`: the spot bands and the
tracked side costs of the store, then `tracker.analytics.recommend.work.ranked_rows`
(the store's first pass, `tracker.analytics.recommend.store`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from db.kinds import Qualify, RegionGroup, Workload

if TYPE_CHECKING:
    from db.store.reads.connection import Db
    from tracker.analytics.facts.reference import References
    from tracker.analytics.recommend import Needs

EMPTY = "no option meets these needs"


@dataclass(frozen=True)
class RecommendRequest:
    """What a GPU job needs, and which options to show. The defaults are
    the command line's and the API's."""

    gpus: Decimal = Decimal(1)
    min_gpu_memory: Decimal | None = None
    usable_memory_share: Decimal = Decimal("0.9")
    workload: Workload = Workload.training
    hours_per_month: Decimal = Decimal(720)
    months: int = 36
    currency: str = "USD"
    gpu: str | None = None
    provider: str | None = None
    region_group: RegionGroup | None = None
    spot_overhead: Decimal = Decimal("1.1")
    # Minutes, and a percentage ('10' or '10%'), checked by `needs`.
    checkpoint_minutes: Decimal | str = Decimal(30)
    max_interruption: Decimal | str | None = None
    # One or more of `tracker.analytics.bill.spot_risk.PRICE_MODELS`, comma-separated.
    price_model: str | None = None
    storage_gb: Decimal = Decimal(0)
    egress_gb: Decimal = Decimal(0)
    inter_region_gb: Decimal = Decimal(0)
    qualify: tuple[Qualify, ...] = ()
    new_account: bool = False
    mix: tuple[str, ...] = ()
    throughput: Path | None = None
    benchmark: str | None = None
    nodes: int = 1
    limit: int | None = 20
    all: bool = False
    include_suspect: bool = False

    def needs(self) -> Needs:
        """The needs the ranking takes: a UserError in one sentence for an
        impossible one (a mix, a price model, a benchmark, nodes, a
        checkpoint or interruption limit it cannot read)."""
        from tracker.analytics.bill.spot_risk import SpotRisk, checked_minutes, parse_percent, price_models
        from tracker.analytics.recommend import Needs, load_throughput
        from tracker.analytics.recommend.work import by_benchmark
        from tracker.analytics.tco import parse_mix

        needs = Needs(
            gpus=self.gpus,
            min_gpu_memory_gb=self.min_gpu_memory,
            workload=Workload(self.workload).value,
            hours_per_month=self.hours_per_month,
            months=self.months,
            currency=self.currency,
            spot_overhead=self.spot_overhead,
            storage_gb=self.storage_gb,
            egress_gb_per_month=self.egress_gb,
            inter_region_gb_per_month=self.inter_region_gb,
            qualifies=frozenset(Qualify(q).value for q in self.qualify)
            | ({Qualify.new_users.value} if self.new_account else set()),
            throughput=load_throughput(self.throughput) if self.throughput else None,
            mixes=tuple(parse_mix(m) for m in self.mix),
            region_group=RegionGroup(self.region_group).value if self.region_group else None,
            usable_memory_share=self.usable_memory_share,
            all_options=self.all,
            price_models=price_models(self.price_model),
        )
        needs = by_benchmark(needs, self.benchmark, self.nodes)
        limit = self.max_interruption
        # The bands are read when the answer is worked out (`rows`).
        risk = SpotRisk(
            checkpoint_minutes=checked_minutes(self.checkpoint_minutes),
            max_interruption=limit if isinstance(limit, Decimal) else parse_percent(limit),
            fixed_overhead=self.spot_overhead,
        )
        return replace(needs, risk=risk)

    def title(self, needs: Needs) -> str:
        """The table's title: what was asked."""
        memory = f", >= {needs.min_gpu_memory_gb:f} GB usable each" if needs.min_gpu_memory_gb else ""
        memory += f", {self.nodes} nodes" if self.nodes > 1 else ""
        memory += f", by {needs.benchmark.title}" if needs.benchmark else ""
        return (
            f"{needs.gpus:f} GPUs{memory}, {Workload(self.workload).value}, "
            f"{self.hours_per_month:f} h/month for {self.months} months, in {self.currency}"
        )


def rows(
    store: Db | Any, refs: References, request: RecommendRequest, *, needs: Needs | None = None, settle: bool = True
) -> tuple[list[dict[str, Any]], list[str]]:
    """The options ranked by total cost (`COLUMNS`), and the notes to say
    first. `settle`: a provider whose kept rates a bulk write left to work
    out is settled first (the command line); else answered from its prices
    (the web, read-only)."""
    from tracker.analytics.bill.side_costs import SideRates
    from tracker.analytics.bill.spot_risk import with_bands
    from tracker.analytics.recommend.work import ranked_rows

    needs = replace(with_bands(needs or request.needs(), store), side=SideRates.load(store))
    where: dict[str, Any] = {"gpu": request.gpu, "provider": request.provider, "limit": request.limit or None}
    if request.include_suspect:
        where["include_suspect"] = True
    if not settle:
        where["settle_rates"] = False
    return ranked_rows(store, refs, needs, **where)


def columns() -> tuple[list[str], list[str]]:
    """The JSON columns and the table's."""
    from tracker.analytics.recommend import RECOMMEND_COLUMNS, RECOMMEND_TABLE

    return RECOMMEND_COLUMNS, RECOMMEND_TABLE
