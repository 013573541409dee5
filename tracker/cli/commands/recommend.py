"""`gpu-tracker recommend`: from needs to ranked options over the horizon."""

from __future__ import annotations

from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from tracker.cli.output import FormatOption, IncludeSuspectOption, OutputFormat, emit, stderr
from tracker.cli.state import (
    CheckpointMinutesOption,
    RegionGroup,
    SpotOverheadOption,
    parse_currency,
    ranged_option,
    references,
    store_of,
    suspect_note,
)


class Workload(str, Enum):
    training = "training"
    inference = "inference"


class Qualify(str, Enum):
    new_users = "new_users"
    startups = "startups"
    students = "students"
    enterprise = "enterprise"


def recommend(
    ctx: typer.Context,
    gpus: Annotated[
        str, typer.Option(help="How many GPUs the job needs at once; below 1, a share of one GPU (0.5: a half slice).")
    ] = "1",
    min_gpu_memory: Annotated[
        str | None, typer.Option(help="GB of usable memory each GPU must have, e.g. 70 (see --usable-memory-share).")
    ] = None,
    usable_memory_share: Annotated[
        str,
        typer.Option(help="Share of a GPU's memory a job can use (0.9: vLLM's default; the rest is CUDA and driver)."),
    ] = "0.9",
    workload: Annotated[
        Workload, typer.Option(help="training (spot counts, with --spot-overhead) or inference (no spot).")
    ] = Workload.training,
    hours_per_month: Annotated[str, typer.Option(help="Hours of use a month per GPU (720 = always on).")] = "720",
    months: Annotated[int, typer.Option(min=1, max=240, help="The horizon in months.")] = 36,
    currency: Annotated[str, typer.Option(help="The currency of the result.")] = "USD",
    gpu: Annotated[str | None, typer.Option(help="Only this GPU model, matched in part: H100, A100.")] = None,
    provider: Annotated[str | None, typer.Option(help="Only this provider.")] = None,
    region_group: Annotated[RegionGroup | None, typer.Option(help="Only regions in us, eu, asia or cn.")] = None,
    spot_overhead: SpotOverheadOption = "1.1",
    checkpoint_minutes: CheckpointMinutesOption = "30",
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
    storage_gb: Annotated[str, typer.Option(help="GB of storage kept every month.")] = "0",
    egress_gb: Annotated[str, typer.Option(help="GB sent out to the internet every month.")] = "0",
    inter_region_gb: Annotated[
        str, typer.Option(help="GB sent to another region of the same provider every month.")
    ] = "0",
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
    ] = 1,
    limit: Annotated[int, typer.Option(min=0, help="Show the best N options (0: all).")] = 20,
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
    from tracker.analytics.bill.side_costs import SideRates, sources_note
    from tracker.analytics.bill.spot_risk import load_risk, price_models
    from tracker.analytics.recommend import RECOMMEND_COLUMNS, RECOMMEND_TABLE, Needs, load_throughput
    from tracker.analytics.recommend.work import by_benchmark, ranked_rows
    from tracker.analytics.tco import parse_mix

    target = parse_currency(currency)
    hours = ranged_option(hours_per_month, "--hours-per-month", "hours_per_month")
    needs = Needs(
        gpus=ranged_option(gpus, "--gpus", "gpus"),
        min_gpu_memory_gb=ranged_option(min_gpu_memory, "--min-gpu-memory", "min_gpu_memory")
        if min_gpu_memory
        else None,
        workload=workload.value,
        hours_per_month=hours,
        months=months,
        currency=target,
        spot_overhead=ranged_option(spot_overhead, "--spot-overhead", "spot_overhead"),
        storage_gb=ranged_option(storage_gb, "--storage-gb", "storage_gb"),
        egress_gb_per_month=ranged_option(egress_gb, "--egress-gb", "egress_gb"),
        inter_region_gb_per_month=ranged_option(inter_region_gb, "--inter-region-gb", "inter_region_gb"),
        qualifies=frozenset(q.value for q in qualify or []) | ({"new_users"} if new_account else set()),
        throughput=load_throughput(throughput) if throughput else None,
        mixes=tuple(parse_mix(m) for m in mix or []),
        region_group=region_group.value if region_group else None,
        usable_memory_share=ranged_option(usable_memory_share, "--usable-memory-share", "usable_memory_share"),
        all_options=every,
        price_models=price_models(price_model),
    )
    needs = by_benchmark(needs, benchmark, nodes)
    with store_of(ctx) as store:
        risk = load_risk(
            store,
            checkpoint_minutes=checkpoint_minutes,
            max_interruption=max_interruption,
            fixed_overhead=needs.spot_overhead,
        )
        needs = replace(needs, risk=risk, side=SideRates.load(store))
        rows, notes = ranked_rows(
            store,
            references(ctx),
            needs,
            gpu=gpu,
            provider=provider,
            limit=limit or None,
            include_suspect=include_suspect,
        )
        suspect_note(store, include_suspect, gpu=gpu)
    for note in notes:
        stderr.print(f"[dim]{note}[/dim]", highlight=False)
    memory = f", >= {needs.min_gpu_memory_gb:f} GB usable each" if needs.min_gpu_memory_gb else ""
    memory += f", {nodes} nodes" if nodes > 1 else ""
    memory += f", by {needs.benchmark.title}" if needs.benchmark else ""
    emit(
        rows,
        fmt,
        columns=RECOMMEND_COLUMNS,
        table_columns=RECOMMEND_TABLE,
        title=f"{needs.gpus:f} GPUs{memory}, {workload.value}, {hours:f} h/month for {months} months, in {target}",
        empty="no option meets these needs",
    )
    if fmt == OutputFormat.table and (note := sources_note(rows)):
        stderr.print(note, highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(recommend)
