"""`gpu-tracker offers`: the promotions in the store, and one offer's history."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer

from db.kinds import OfferKind
from tracker.answers.columns import OFFER_COLUMNS, OFFER_HISTORY_COLUMNS, OFFER_HISTORY_TABLE, OFFER_TABLE
from tracker.answers.rows import offer_dict
from tracker.cli.output import FormatOption, OutputFormat, WideOption, emit
from tracker.cli.state import state

if TYPE_CHECKING:
    from db.store.writes.offers import OfferPoint

# The store loads inside each command: `--help` starts fast.


app = typer.Typer(no_args_is_help=False)


def _active(point: OfferPoint, now: datetime) -> bool:
    starts, ends = point.offer_valid_from, point.offer_valid_until
    return (starts is None or starts <= now) and (ends is None or ends >= now)


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
    from sqlmodel import Session

    from db.store.writes.offers import query_offers

    now = datetime.now(UTC)
    with Session(state(ctx).engine) as session:
        points = query_offers(session=session, provider=provider, kind=kind.value if kind else None)
        rows = [offer_dict(p) for p in points if not active or _active(p, now)]
    emit(rows, fmt, columns=OFFER_COLUMNS, table_columns=OFFER_TABLE, empty="no offers match", wide=wide)


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
    from sqlmodel import Session

    from db.store.writes.offers import query_offers

    with Session(state(ctx).engine) as session:
        rows = [offer_dict(p) for p in query_offers(session=session, offer_id=offer_id, current=False)]
    emit(
        rows,
        fmt,
        columns=OFFER_HISTORY_COLUMNS,
        table_columns=OFFER_HISTORY_TABLE,
        empty=f"no offer recorded as {offer_id}; `gpu-tracker offers` lists the ids",
        wide=wide,
    )


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="offers")
