"""`gpu-tracker recommend`: from needs to ranked options over the horizon."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from db.kinds import Qualify, RegionGroup, Workload
from tracker.answers.ranked.recommend import EMPTY, RecommendRequest
from tracker.cli.output import FormatOption, IncludeSuspectOption, OutputFormat, emit, stderr
from tracker.cli.state import (
    CheckpointMinutesOption,
    SpotOverheadOption,
    held_ahead,
    parse_currency,
    ranged_option,
    references,
    store_of,
    suspect_note,
)

# The request's defaults, as the options show them.
ASKED = RecommendRequest()


def recommend(
    ctx: typer.Context,
    gpus: Annotated[
        str, typer.Option(help="How many GPUs the job needs at once; below 1, a share of one GPU (0.5: a half slice).")
    ] = str(ASKED.gpus),
    min_gpu_memory: Annotated[
        str | None, typer.Option(help="GB of usable memory each GPU must have, e.g. 70 (see --usable-memory-share).")
    ] = None,
    usable_memory_share: Annotated[
        str,
        typer.Option(help="Share of a GPU's memory a job can use (0.9: vLLM's default; the rest is CUDA and driver)."),
    ] = str(ASKED.usable_memory_share),
    workload: Annotated[
        Workload, typer.Option(help="training (spot counts, with --spot-overhead) or inference (no spot).")
    ] = ASKED.workload,
    hours_per_month: Annotated[str, typer.Option(help="Hours of use a month per GPU (720 = always on).")] = str(
        ASKED.hours_per_month
    ),
    months: Annotated[int, typer.Option(min=1, max=240, help="The horizon in months.")] = ASKED.months,
    currency: Annotated[str, typer.Option(help="The currency of the result.")] = ASKED.currency,
    gpu: Annotated[str | None, typer.Option(help="Only this GPU model, matched in part: H100, A100.")] = None,
    provider: Annotated[str | None, typer.Option(help="Only this provider.")] = None,
    region_group: Annotated[RegionGroup | None, typer.Option(help="Only regions in us, eu, asia or cn.")] = None,
    spot_overhead: SpotOverheadOption = str(ASKED.spot_overhead),
    checkpoint_minutes: CheckpointMinutesOption = str(ASKED.checkpoint_minutes),
    max_interruption: Annotated[
        str | None,
        typer.Option(
            help="Leave out spot options whose interruption band may exceed this % a month "
            "(10 keeps <5% and 5-10%); an unknown rate is left out too."
        ),
    ] = None,
    price_model: Annotated[
        str | None,
        typer.Option(help="Only options of this price model: on_demand, spot, monthly, reserved_1yr, reserved_3yr."),
    ] = None,
    storage_gb: Annotated[str, typer.Option(help="GB of storage kept every month.")] = str(ASKED.storage_gb),
    egress_gb: Annotated[str, typer.Option(help="GB sent out to the internet every month.")] = str(ASKED.egress_gb),
    inter_region_gb: Annotated[
        str, typer.Option(help="GB sent to another region of the same provider every month.")
    ] = str(ASKED.inter_region_gb),
    qualify: Annotated[
        list[Qualify] | None,
        typer.Option(help="Count offers for this kind of customer too (new_users, startups...); repeatable."),
    ] = None,
    new_account: Annotated[
        bool,
        typer.Option(
            "--new-account",
            help="You are a new customer of these clouds: count offers for new users only (same as --qualify new_users).",
        ),
    ] = False,
    mix: Annotated[
        list[str] | None,
        typer.Option(help="Also weigh this mix of price models, e.g. on_demand=0.25,reserved_3yr=0.75; repeatable."),
    ] = None,
    throughput: Annotated[
        Path | None,
        typer.Option(help="CSV of gpu_model,samples_per_second (per GPU): rank by cost per million samples."),
    ] = None,
    benchmark: Annotated[
        str | None,
        typer.Option(
            help="An MLPerf benchmark (`gpu-tracker benchmarks`), e.g. llama2-70b-99 or llama2-70b-99/Server: "
            "rank by cost per million of its tokens, queries or samples."
        ),
    ] = None,
    nodes: Annotated[
        int,
        typer.Option(min=1, help="Machines the job spans; above 1, only RDMA-class networks (EFA, InfiniBand, RoCE)."),
    ] = ASKED.nodes,
    limit: Annotated[int, typer.Option(min=0, help="Show the best N options (0: all).")] = ASKED.limit or 0,
    every: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Every option: without it, one row per provider, GPU model and price model, the rest folded into it.",
        ),
    ] = False,
    include_suspect: IncludeSuspectOption = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Rank what to buy for a GPU job by its total cost over the horizon.

    Every instance that holds the job is costed under each price model it
    offers (on demand, spot for training, monthly, 1- and 3-year terms) with
    the TCO simulator: compute, egress, inter-region transfer and storage
    (through each provider's tracked tiers where the region has them, else
    the dated reference table: docs/side-costs.md), less the
    one offer from the offers table that saves most and that you qualify for
    (credits, vouchers, free GPU hours, trial days, percent discounts on the
    purchases they cover; of a 满减 ladder, the best tier the spend reaches).
    Offers for new users count only with --new-account. Each row says why it
    ranks there, with the offer's caps and conditions. A throughput table
    turns the ranking into cost per unit of work; so does --benchmark NAME,
    from the MLPerf results shipped with the tracker: each option's GPU at
    the per-GPU result of the measured system nearest it (same GPU, nearest
    count), named in its why; a GPU without a result is estimated from
    its datasheet TFLOPS and said to be. --nodes N (N > 1) keeps only the
    instance types whose provider states an RDMA-class network.

    Only what can be rented now is ranked: a price the provider states sold
    out, or a marketplace group with fewer host offers than the instances
    the job takes, is left out (said on stderr). One row per provider, GPU
    model and price model: its other instance types are folded into it
    ("also as 4x, 2x, 1x"); --all lists every one.

    --min-gpu-memory is compared with usable memory: the datasheet GB times
    --usable-memory-share. Instances that share one GPU (a 1/2 or 1/6 slice)
    count only for a need below one GPU (--gpus 0.5).

    Example: gpu-tracker recommend --gpus 8 --min-gpu-memory 80 --workload training --hours-per-month 500 --months 36 --currency CNY

    Example: gpu-tracker recommend --gpus 1 --gpu A100 --hours-per-month 100 --months 3 --new-account

    Example: gpu-tracker recommend --gpus 8 --min-gpu-memory 80 --workload inference --benchmark llama2-70b-99

    Example: gpu-tracker recommend --gpus 32 --nodes 4 --min-gpu-memory 70

    Example: gpu-tracker recommend --gpus 8 --min-gpu-memory 70 --all

    Spot options carry the expected cost of their interruptions: from the
    pool's stated band (AWS's Spot Instance Advisor, `aws-spot-advisor`) and
    the work lost per interruption (--checkpoint-minutes), or x--spot-overhead
    hours where no rate is stated ("interruption rate unknown"); the why
    names the band and its source.

    Example: gpu-tracker recommend --gpus 8 --price-model spot --max-interruption 10
    """
    from tracker.analytics.bill.side_costs import sources_note
    from tracker.answers.ranked import recommend as answer

    target = parse_currency(currency)
    hours = ranged_option(hours_per_month, "--hours-per-month", "hours_per_month")
    request = RecommendRequest(
        gpus=ranged_option(gpus, "--gpus", "gpus"),
        min_gpu_memory=ranged_option(min_gpu_memory, "--min-gpu-memory", "min_gpu_memory") if min_gpu_memory else None,
        workload=workload,
        hours_per_month=hours,
        months=months,
        currency=target,
        gpu=gpu,
        provider=provider,
        region_group=region_group,
        spot_overhead=ranged_option(spot_overhead, "--spot-overhead", "spot_overhead"),
        checkpoint_minutes=checkpoint_minutes,
        max_interruption=max_interruption,
        price_model=price_model,
        storage_gb=ranged_option(storage_gb, "--storage-gb", "storage_gb"),
        egress_gb=ranged_option(egress_gb, "--egress-gb", "egress_gb"),
        inter_region_gb=ranged_option(inter_region_gb, "--inter-region-gb", "inter_region_gb"),
        qualify=tuple(qualify or ()),
        new_account=new_account,
        mix=tuple(mix or ()),
        throughput=throughput,
        benchmark=benchmark,
        nodes=nodes,
        usable_memory_share=ranged_option(usable_memory_share, "--usable-memory-share", "usable_memory_share"),
        limit=limit or None,
        all=every,
        include_suspect=include_suspect,
    )
    needs = request.needs()
    with store_of(ctx) as store:
        held = held_ahead(store, gpu)
        rows, notes = answer.rows(store, references(ctx), request, needs=needs)
        suspect_note(store, include_suspect, gpu=gpu, count=held)
    for note in notes:
        stderr.print(f"[dim]{note}[/dim]", highlight=False)
    columns, table = answer.columns()
    emit(rows, fmt, columns=columns, table_columns=table, title=request.title(needs), empty=EMPTY)
    if fmt == OutputFormat.table and (note := sources_note(rows)):
        stderr.print(note, highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(recommend)
