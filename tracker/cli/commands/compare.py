"""Commands that weigh prices against each other: compare and tco."""

from __future__ import annotations

from typing import Annotated

import typer

from db.kinds import PriceModel, RankBy, RegionGroup
from tracker.answers.columns import COMPARE_COLUMNS
from tracker.answers.ranked.compare import CompareRequest
from tracker.answers.ranked.tco import TcoRequest
from tracker.cli.output import FormatOption, IncludeSuspectOption, OutputFormat, emit, stderr
from tracker.cli.state import (
    CheckpointMinutesOption,
    SpotOverheadOption,
    held_ahead,
    parse_currency,
    ranged_option,
    references,
    state,
    store_of,
    suspect_note,
)

# pandas loads inside each command: `--help` starts fast.
# The requests' defaults, as the options show them.
COMPARE = CompareRequest(gpu="")
TCO = TcoRequest(gpu="")


def compare(
    ctx: typer.Context,
    gpu: Annotated[str, typer.Option(help="GPU model, matched in part: H100, A100 80GB, L40S.")],
    count: Annotated[str | None, typer.Option(help="Only instances with exactly this many GPUs, e.g. 8.")] = None,
    price_model: Annotated[
        list[PriceModel] | None,
        typer.Option(help="Only this price model (on_demand, spot, reserved, monthly...); repeatable."),
    ] = None,
    region_group: Annotated[RegionGroup | None, typer.Option(help="Only regions in us, eu, asia or cn.")] = None,
    currency: Annotated[str, typer.Option(help="Convert every figure to this currency.")] = COMPARE.currency,
    provider: Annotated[str | None, typer.Option(help="Only this provider.")] = None,
    os: Annotated[str, typer.Option(help="Operating system of the price (linux, windows).")] = COMPARE.os,
    limit: Annotated[int | None, typer.Option(min=1, help="Show only the cheapest N rows.")] = None,
    rank_by: Annotated[
        RankBy,
        typer.Option(
            help="Rank by price per GPU-hour, per dense BF16/FP16 TFLOP-hour (the vendor's figure) "
            "or per GB of GPU memory per hour; rows without the figure come last."
        ),
    ] = COMPARE.rank_by,
    include_suspect: IncludeSuspectOption = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Rank current prices of one GPU model by price per GPU-hour, across providers.

    Monthly and yearly prices count as effective hourly rates (720 and 8,760
    hours), reserved terms with their upfront fee spread over the term. Rows in
    another currency are converted with the dated rate shown beside them; the
    original price stays in `price`/`currency`. Fractional GPUs rank by the
    price of a whole GPU-hour and are marked fractional.

    With --rank-by price_per_tflop_hour a GPU-hour is weighed by the dense
    BF16 (or FP16) tensor TFLOPS its vendor publishes; GPUs whose vendor
    publishes none come last.

    Example: gpu-tracker compare --gpu H100 --count 8 --price-model on_demand --region-group us --currency USD
    """
    from tracker.answers.ranked import compare as answer

    target = parse_currency(currency)
    request = CompareRequest(
        gpu=gpu,
        count=ranged_option(count, "--count", "count") if count is not None else None,
        price_models=tuple(price_model or ()),
        region_group=region_group,
        currency=target,
        provider=provider,
        os=os,
        rank_by=rank_by,
        limit=limit,
        include_suspect=include_suspect,
    )
    with store_of(ctx) as store:
        held = held_ahead(store, gpu)
        rows = answer.rows(store, references(ctx), request)
        suspect_note(store, include_suspect, gpu=gpu, count=held)
    emit(
        rows, fmt, columns=COMPARE_COLUMNS, table_columns=request.table(), title=request.title(), empty=request.empty()
    )


def tco(
    ctx: typer.Context,
    gpu: Annotated[str, typer.Option(help="GPU model, matched in part: H100, A100 80GB.")],
    count: Annotated[str, typer.Option(help="How many GPUs the job needs.")] = str(TCO.count),
    hours_per_month: Annotated[str, typer.Option(help="Hours of use a month per GPU (720 = always on).")] = str(
        TCO.hours_per_month
    ),
    months: Annotated[int, typer.Option(min=1, max=240, help="The horizon in months.")] = TCO.months,
    mix: Annotated[
        str,
        typer.Option(
            help="Share of the fleet per price model: on_demand, spot, monthly, "
            "reserved_1yr, reserved_3yr; e.g. on_demand=0.25,reserved_3yr=0.75."
        ),
    ] = TCO.mix,
    spot_overhead: SpotOverheadOption = str(TCO.spot_overhead),
    checkpoint_minutes: CheckpointMinutesOption = str(TCO.checkpoint_minutes),
    max_interruption: Annotated[
        str | None,
        typer.Option(
            help="With spot in the mix, leave out instances whose interruption band may exceed this % a month "
            "(10 keeps <5% and 5-10%); an unknown rate is left out too."
        ),
    ] = None,
    storage_gb: Annotated[str, typer.Option(help="GB of storage kept every month.")] = str(TCO.storage_gb),
    egress_gb: Annotated[str, typer.Option(help="GB sent out to the internet every month.")] = str(TCO.egress_gb),
    inter_region_gb: Annotated[
        str, typer.Option(help="GB sent to another region of the same provider every month.")
    ] = str(TCO.inter_region_gb),
    credit: Annotated[str | None, typer.Option(help="A credit or voucher amount, in --currency.")] = None,
    credit_provider: Annotated[str | None, typer.Option(help="The provider the credit is for.")] = None,
    credit_months: Annotated[
        int | None, typer.Option(min=1, help="The credit is usable in the first N months.")
    ] = None,
    credit_min_spend: Annotated[str | None, typer.Option(help="The credit applies only from this spend.")] = None,
    offer: Annotated[
        str | None,
        typer.Option(
            help="Apply this offer's credit (an offer_id from the offers table); "
            "for a tier of a 满减 ladder, the best tier each option's spend reaches."
        ),
    ] = None,
    new_account: Annotated[
        bool,
        typer.Option("--new-account", help="You are a new customer: an --offer for new users only may count."),
    ] = False,
    region_group: Annotated[RegionGroup | None, typer.Option(help="Only regions in us, eu, asia or cn.")] = None,
    provider: Annotated[str | None, typer.Option(help="Only this provider.")] = None,
    currency: Annotated[str, typer.Option(help="The currency of the result.")] = TCO.currency,
    limit: Annotated[int | None, typer.Option(min=1, help="Show only the cheapest N.")] = None,
    include_suspect: IncludeSuspectOption = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Simulate what a GPU job costs over a horizon, ranked, with a breakdown.

    Compute under the mix of price models, egress and storage at each
    provider's dated rates, less credits, and the hours a month above which a
    reserved term beats on demand.

    Example: gpu-tracker tco --gpu A100 --count 8 --hours-per-month 500 --mix on_demand=0.5,reserved_1yr=0.5 --egress-gb 2000

    Example: gpu-tracker tco --gpu A100 --count 8 --offer tencent:cvm-newuser-1000 --new-account --currency CNY

    Spot's interruptions are priced from each pool's stated band and
    --checkpoint-minutes (columns interruption, interruption_cost), or
    x--spot-overhead hours where no rate is stated (docs/spot-risk.md).

    Example: gpu-tracker tco --gpu H100 --count 8 --mix spot=1 --max-interruption 10

    Egress, inter-region transfer and storage are priced through each
    provider's tiers from its tracked prices (the *-side-costs sources) where
    the instance's region has them, else from the dated reference table; the
    *_source columns say which (docs/side-costs.md).

    Example: gpu-tracker tco --gpu H100 --count 8 --egress-gb 20000 --inter-region-gb 5000 --storage-gb 10000
    """
    from tracker.analytics.bill.side_costs import sources_note
    from tracker.answers.ranked import tco as answer

    target = parse_currency(currency)
    if credit is not None and offer is not None:
        raise typer.BadParameter(answer.BOTH_CREDITS)
    request = answer.TcoRequest(
        gpu=gpu,
        credit=ranged_option(credit, "--credit", "credit") if credit is not None else None,
        credit_provider=credit_provider,
        credit_months=credit_months,
        credit_min_spend=ranged_option(credit_min_spend, "--credit-min-spend", "credit_min_spend")
        if credit is not None and credit_min_spend is not None
        else None,
        offer=offer,
        new_account=new_account,
        currency=target,
        count=ranged_option(count, "--count", "fleet"),
        hours_per_month=ranged_option(hours_per_month, "--hours-per-month", "hours_per_month"),
        months=months,
        mix=mix,
        spot_overhead=ranged_option(spot_overhead, "--spot-overhead", "spot_overhead"),
        storage_gb=ranged_option(storage_gb, "--storage-gb", "storage_gb"),
        egress_gb=ranged_option(egress_gb, "--egress-gb", "egress_gb"),
        inter_region_gb=ranged_option(inter_region_gb, "--inter-region-gb", "inter_region_gb"),
        checkpoint_minutes=checkpoint_minutes,
        max_interruption=max_interruption,
        region_group=region_group,
        provider=provider,
        limit=limit,
        include_suspect=include_suspect,
    )
    offers = None
    if request.offer is not None and request.credit is None:
        from tracker.analytics.history import offers_frame

        offers = offers_frame(state(ctx).engine)
    inputs = answer.inputs(request, answer.chosen_credit(request, offers))
    with store_of(ctx) as store:
        held = held_ahead(store, gpu)
        rows, skipped, inputs = answer.rows(store, references(ctx), request, inputs)
        suspect_note(store, include_suspect, gpu=gpu, count=held)
    if note := answer.skipped_note(inputs, skipped):
        stderr.print(f"[dim]{note}[/dim]", highlight=False)
    emit(
        rows,
        fmt,
        columns=answer.COLUMNS,
        table_columns=answer.TABLE,
        title=request.title(inputs),
        empty=request.empty(),
    )
    if fmt == OutputFormat.table and (note := sources_note(rows)):
        stderr.print(note, highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(compare)
    app.command()(tco)
