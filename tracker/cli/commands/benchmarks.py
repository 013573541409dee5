"""`gpu-tracker benchmarks`: the MLPerf results the tracker knows, per GPU,
and `benchmarks update --replay FILE` to rebuild a round's table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tracker.cli.output import FormatOption, OutputFormat, WideOption, emit, stderr

app = typer.Typer(no_args_is_help=False)


@app.callback(invoke_without_command=True)
def benchmarks(
    ctx: typer.Context,
    benchmark: Annotated[
        str | None,
        typer.Option(help="Only this benchmark, e.g. llama2-70b-99 (Offline) or llama2-70b-99/Server."),
    ] = None,
    gpu: Annotated[str | None, typer.Option(help="Only GPU models matching this in part: H100, MI300X.")] = None,
    fmt: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """List the MLPerf Inference results shipped as reference data, per GPU.

    One row per published system, benchmark and scenario (datacenter
    throughput only): the round, division, submitter and system, the
    accelerator as published and the GPU datasheet's name for it, how many
    accelerators the system has, and its result per GPU. `recommend
    --benchmark NAME` ranks by the cost of a million units of that work.

    Example: gpu-tracker benchmarks --benchmark llama2-70b-99 --gpu H200 --format json
    """
    if ctx.invoked_subcommand is not None:
        return
    from tracker.analytics.facts.benchmarks import LISTING_COLUMNS, LISTING_TABLE, check_benchmark, listing

    if benchmark:
        check_benchmark(benchmark)
    emit(
        listing(benchmark, gpu),
        fmt,
        columns=LISTING_COLUMNS,
        table_columns=LISTING_TABLE,
        empty="no MLPerf result matches",
        wide=wide,
    )


@app.command("update")
def update(
    replay: Annotated[
        Path,
        typer.Option(
            help="A saved summary_results.json of an MLPerf Inference round (from github.com/mlcommons/inference_results_vX.Y).",
            dir_okay=False,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(help="Write the table here; default: the shipped table of that round in tracker/data."),
    ] = None,
) -> None:
    """Rebuild a round's table of MLPerf results from its saved summary.

    Reads the round's summary_results.json (fetching it is left to you: the
    file is in the root of the round's results repository) and writes
    tracker/data/mlperf_inference_<round>.csv: datacenter throughput
    results, per GPU, the accelerator mapped to the GPU datasheet's name.

    Example: gpu-tracker benchmarks update --replay summary_results.json --out mlperf_inference_v5.1.csv
    """
    from tracker.analytics.facts.benchmarks import read_summary, shipped_folder, table_name, write_table

    version, rows, skipped = read_summary(replay)
    target = out or shipped_folder() / table_name(version)
    write_table(rows, target)
    mapped = sum(1 for r in rows if r["gpu_model"])
    stderr.print(
        f"wrote {len(rows)} results of MLPerf Inference {version} to {target} "
        f"({mapped} on a GPU of the datasheet; {skipped} records set aside: edge, latency or no accelerator)",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="benchmarks")
