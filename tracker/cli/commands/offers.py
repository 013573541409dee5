"""`gpu-tracker offers`: the promotions in the store, and one offer's history."""

from __future__ import annotations

from typing import Annotated

import typer

from db.kinds import OfferKind
from tracker.cli.output import FormatOption, OutputFormat, WideOption, emit
from tracker.cli.state import state

# The store loads inside each command: `--help` starts fast.


app = typer.Typer(no_args_is_help=False)


@app.callback(invoke_without_command=True)
def offers(
    ctx: typer.Context,
    provider: Annotated[str | None, typer.Option(help="Only this provider, for example gcp.")] = None,
    kind: Annotated[OfferKind | None, typer.Option(help="free_credit, voucher, free_trial, discount...")] = None,
    active: Annotated[bool, typer.Option("--active", help="Only offers valid now (by their stated dates).")] = False,
    fmt: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """List the current offers: free credits, vouchers, trials and discounts.

    A block of a page that states no offer (no amount, percentage or free
    time) is not listed; `conditions` says what an offer asks and limits
    (GPU time, caps, price models, an order-length limit).

    Example: gpu-tracker offers --provider tencent --kind voucher --format json
    """
    if ctx.invoked_subcommand is not None:
        return
    from tracker.answers import offers as answer

    rows = answer.rows(state(ctx).engine, answer.OffersRequest(provider=provider, kind=kind, active=active))
    emit(rows, fmt, columns=answer.COLUMNS, table_columns=answer.TABLE, empty=answer.EMPTY, wide=wide)


@app.command("history")
def history(
    ctx: typer.Context,
    offer_id: Annotated[str, typer.Argument(help="The offer's id, as `gpu-tracker offers` lists it.")],
    fmt: FormatOption = OutputFormat.table,
    wide: WideOption = False,
) -> None:
    """Show how one offer changed: one row per interval its terms held.

    Example: gpu-tracker offers history gcp:free-trial-credit
    """
    from tracker.answers import offers as answer

    rows = answer.history_rows(state(ctx).engine, offer_id)
    emit(
        rows,
        fmt,
        columns=answer.HISTORY_COLUMNS,
        table_columns=answer.HISTORY_TABLE,
        empty=answer.history_empty(offer_id),
        wide=wide,
    )


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="offers")
