"""The `tco` answer: what a GPU job costs over a horizon under a mix of
price models, ranked, with a breakdown. Its request, its rows
(`tracker.analytics.tco.tco_rows`, with the spot bands and the tracked side
costs of the store), its words (title, the note of what was left out) and
its columns. `gpu-tracker tco` builds a `TcoRequest` and calls `rows`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from db.kinds import Qualify, RegionGroup
from tracker.answers.columns import TCO_COLUMNS, TCO_TABLE
from tracker.errors import UserError

if TYPE_CHECKING:
    from db.store.reads.connection import Db
    from tracker.analytics.facts.reference import References
    from tracker.analytics.tco import Credit, TcoInputs

COLUMNS, TABLE = TCO_COLUMNS, TCO_TABLE


@dataclass(frozen=True)
class TcoRequest:
    """The fleet, its use and horizon, the mix of price models, the side
    costs and a credit; which instances to price."""

    gpu: str
    count: Decimal = Decimal(1)
    hours_per_month: Decimal = Decimal(720)
    months: int = 36
    mix: str = "on_demand=1"
    spot_overhead: Decimal = Decimal("1.1")
    # Minutes, and a percentage ('10' or '10%'), checked by `inputs`.
    checkpoint_minutes: Decimal | str = Decimal(30)
    max_interruption: Decimal | str | None = None
    storage_gb: Decimal = Decimal(0)
    egress_gb: Decimal = Decimal(0)
    inter_region_gb: Decimal = Decimal(0)
    credit: Decimal | None = None
    credit_provider: str | None = None
    credit_months: int | None = None
    credit_min_spend: Decimal | None = None
    # An offer_id of the offers table, whose credit counts.
    offer: str | None = None
    new_account: bool = False
    region_group: RegionGroup | None = None
    provider: str | None = None
    currency: str = "USD"
    limit: int | None = None
    include_suspect: bool = False

    def title(self, inputs: TcoInputs) -> str:
        return f"{inputs.count} x {self.gpu} over {self.months} months, {inputs.hours_per_month} h/month, in {self.currency}"

    def empty(self) -> str:
        return f"no instance with {self.gpu} has a price for every model of the mix"


# A request may count its own credit or an offer's, not both.
BOTH_CREDITS = "--credit and --offer cannot be used together"


def chosen_credit(request: TcoRequest, offers: Any = None) -> Credit | None:
    """The credit the request counts: its own, or an offer's (`offers`: the
    current offers, read by the caller when `request.offer` names one)."""
    from tracker.analytics.tco import Credit

    if request.credit is not None and request.offer is not None:
        raise UserError(BOTH_CREDITS)
    if request.credit is not None:
        return Credit(
            amount=request.credit,
            currency=request.currency,
            provider=request.credit_provider,
            months=request.credit_months,
            min_spend=request.credit_min_spend,
        )
    if request.offer is not None:
        from tracker.analytics.offer_value import credit_from_offer

        return credit_from_offer(offers, request.offer, {Qualify.new_users.value} if request.new_account else set())
    return None


def inputs(request: TcoRequest, credit: Credit | None) -> TcoInputs:
    """The simulator's inputs, the interruption model without its bands (read by `rows`)."""
    from tracker.analytics.bill.spot_risk import SpotRisk, checked_minutes, parse_percent
    from tracker.analytics.tco import TcoInputs, parse_mix

    found = TcoInputs(
        count=request.count,
        hours_per_month=request.hours_per_month,
        months=request.months,
        mix=parse_mix(request.mix),
        spot_overhead=request.spot_overhead,
        storage_gb=request.storage_gb,
        egress_gb_per_month=request.egress_gb,
        inter_region_gb_per_month=request.inter_region_gb,
        credit=credit,
        currency=request.currency,
    )
    limit = request.max_interruption
    risk = SpotRisk(
        checkpoint_minutes=checked_minutes(request.checkpoint_minutes),
        max_interruption=limit if isinstance(limit, Decimal) else parse_percent(limit),
        fixed_overhead=found.spot_overhead,
    )
    return replace(found, risk=risk)


def rows(
    store: Db | Any, refs: References, request: TcoRequest, simulated: TcoInputs
) -> tuple[list[dict[str, Any]], int, TcoInputs]:
    """The options ranked by total cost (`COLUMNS`), how many instance types
    were left out, and the inputs as priced (with the store's bands and side costs)."""
    from tracker.analytics.bill.side_costs import SideRates
    from tracker.analytics.bill.spot_risk import with_bands
    from tracker.analytics.tco import tco_rows

    simulated = replace(with_bands(simulated, store), side=SideRates.load(store))
    found, skipped = tco_rows(
        store,
        refs,
        simulated,
        gpu=request.gpu,
        provider=request.provider,
        region_group=RegionGroup(request.region_group).value if request.region_group else None,
        limit=request.limit,
        include_suspect=request.include_suspect,
    )
    return found, skipped, simulated


def skipped_note(simulated: TcoInputs, skipped: int) -> str | None:
    """Why instance types were left out, in one sentence; None when none were."""
    if not skipped:
        return None
    risk = simulated.spot_risk
    return (
        f"{skipped} instance types left out: no price for every model of the mix ({', '.join(simulated.mix)})"
        + (", or a spot band that may exceed --max-interruption" if risk.max_interruption is not None else "")
        + (
            ", or no egress, inter-region or storage rate (tracked or in the reference table)"
            if simulated.egress_gb_per_month or simulated.inter_region_gb_per_month or simulated.storage_gb
            else ""
        )
    )
