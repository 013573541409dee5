"""Commands for alerts: `notify test`, `alerts outbox|deliver|retry`, `rules check`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from tracker.cli.columns import CHECK_COLUMNS, CHECK_TABLE, OUTBOX_COLUMNS, OUTBOX_TABLE, change_dict
from tracker.cli.output import FormatOption, OutputFormat, emit, stderr
from tracker.cli.state import parse_since, state
from tracker.errors import TrackerError, UserError

if TYPE_CHECKING:
    from db.alert_tables import OutboxRow
    from tracker.config.settings import Config

# Apprise and the store load inside each command: `--help` starts fast.

notify_app = typer.Typer(
    help="Check notification channels.\n\nExample: gpu-tracker notify test team-slack", no_args_is_help=True
)
alerts_app = typer.Typer(
    help="The alert outbox: what is waiting, sent or dead, and delivering it.\n\n"
    "Example: gpu-tracker alerts outbox --state dead",
    no_args_is_help=True,
)
rules_app = typer.Typer(help="Alert rules.\n\nExample: gpu-tracker rules check --since 7d", no_args_is_help=True)


def _mask_config(config: Config) -> None:
    from alerts.channels import MASK

    for channel in config.channel:
        MASK.add(channel.url.get_secret_value())


def _outbox_dict(row: OutboxRow) -> dict[str, Any]:
    from alerts import outbox
    from alerts.channels import MASK
    from alerts.render import card

    out = row.model_dump(exclude={"change"})
    out["summary"] = card(outbox.row_change(row), 80).headline
    for name in ("last_error", "answer"):
        out[name] = MASK(out[name]) if out[name] else out[name]
    return out


def notify_test(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(help="A [[channel]] name from the configuration, or an Apprise URL.")],
) -> None:
    """Send a sample price-drop message to a channel and report its answer.

    Example: gpu-tracker notify test team-slack
    """
    from alerts.channels import Channel, ChannelError
    from alerts.render import sample_change, single
    from tracker.run.alerting import build_channel

    config = state(ctx).config
    _mask_config(config)
    named = {c.name: c for c in config.channel}
    if target in named:
        channel = build_channel(named[target], config)
    elif "://" in target:
        try:
            channel = Channel("(url)", target, timeout=config.alerts.request_timeout)
        except ChannelError as exc:
            raise UserError(str(exc)) from None
    else:
        known = ", ".join(named) or "none configured"
        raise UserError(f"no channel named {target!r} (known: {known}); give a name or an Apprise URL")
    now = datetime.now(UTC)
    message = single((f"test-{now:%Y%m%dT%H%M%S}", sample_change(now)), channel.family, channel.limits)
    result = channel.send(message)
    label = f"{channel.name} ({channel.service}, {channel.family} format)"
    if not result.ok:
        raise UserError(f"{label}: the channel refused the test message: {result.answer}")
    print(f"{label}: sent; the channel answered: {result.answer}")


def outbox_list(
    ctx: typer.Context,
    state_: Annotated[str | None, typer.Option("--state", help="pending, sending, sent or dead.")] = None,
    channel: Annotated[str | None, typer.Option(help="Only this channel.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="How many, newest first.")] = 100,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """List outbox messages: their state, attempts, next attempt and last error.

    Example: gpu-tracker alerts outbox --state dead --format json
    """
    from sqlmodel import Session

    from alerts import outbox
    from db.alert_tables import OutboxState

    if state_ is not None and state_ not in OutboxState.all:
        raise typer.BadParameter(f"{state_!r}: use one of {', '.join(OutboxState.all)}", param_hint="--state")
    st = state(ctx)
    _mask_config(st.config)
    with Session(st.engine) as session:
        rows = [_outbox_dict(r) for r in outbox.list_rows(session, state=state_, channel=channel, limit=limit)]
    emit(rows, fmt, columns=OUTBOX_COLUMNS, table_columns=OUTBOX_TABLE, empty="the outbox is empty")


def deliver(ctx: typer.Context) -> None:
    """Send every outbox message that is due, retrying failures with backoff.

    Example: gpu-tracker alerts deliver
    """
    from tracker.run.alerting import deliver_outbox, release_stuck

    st = state(ctx)
    released = release_stuck(st.engine)
    if released:
        stderr.print(f"{released} messages left by a stopped worker are due again")
    report = deliver_outbox(st.config, st.engine)
    for error in report.errors:
        stderr.print(f"[yellow]failed:[/yellow] {escape(error)}", highlight=False, soft_wrap=True)
    summary = f"sent {report.sent} messages, {report.failed} failed (will retry), {report.dead} dead-lettered" + (
        f", {report.deferred} held back" if report.deferred else ""
    )
    if report.failed or report.dead:
        raise TrackerError(summary)
    stderr.print(summary, highlight=False)


def retry(
    ctx: typer.Context,
    ids: Annotated[list[int] | None, typer.Option("--id", help="Only this outbox id; repeatable.")] = None,
    channel: Annotated[str | None, typer.Option(help="Only this channel.")] = None,
    pending: Annotated[bool, typer.Option(help="Also make messages waiting out a backoff due now.")] = False,
) -> None:
    """Make dead-lettered messages due again (their attempts start over).

    Example: gpu-tracker alerts retry --channel team-slack && gpu-tracker alerts deliver
    """
    from alerts import outbox

    st = state(ctx)
    count = outbox.retry(st.engine, now=datetime.now(UTC), ids=ids or (), channel=channel, include_pending=pending)
    stderr.print(f"{count} messages are due again; `gpu-tracker alerts deliver` sends them")


def rules_check(
    ctx: typer.Context,
    since: Annotated[str, typer.Option(help="Changes from this date (2026-08-01) or span back (7d, 24h).")] = "7d",
    rule: Annotated[str | None, typer.Option(help="Only this rule.")] = None,
    fires_only: Annotated[bool, typer.Option("--fires", help="Only the rules that fire.")] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Explain which rules would fire for the recent changes, and why the others do not.

    Thresholds are applied in order from no notified history.

    Example: gpu-tracker rules check --since 7d --rule a100-drops
    """
    from sqlmodel import Session

    from alerts.rules import compile_rules, explain
    from db import store
    from db.schema import Change

    st = state(ctx)
    config = st.config
    chosen = [r for r in config.rule if rule is None or r.name == rule]
    if not chosen:
        known = ", ".join(r.name for r in config.rule) or "none configured"
        raise UserError(f"no rule named {rule!r} (known: {known})" if rule else "no [[rule]] is configured")
    rules = compile_rules(chosen, config.alerts.timezone)
    by_name = {r.name: r for r in rules}
    with Session(st.engine) as session:
        found = store.query_changes(session=session, since=parse_since(since) or datetime.now(UTC) - timedelta(days=7))
        changes = [(row.id, Change.model_validate(change_dict(row) | {"detail": _detail(row.detail)})) for row in found]
    now = datetime.now(UTC)
    ids = {id(c): i for i, c in changes}
    rows = []
    for change, verdict in explain(rules, [c for _, c in changes], now):
        if fires_only and not verdict.fires:
            continue
        compiled = by_name[verdict.rule]
        due, label = compiled.due(now)
        delivery = (label.split(" @ ")[0] if label else "immediate") if verdict.fires else ""
        if verdict.fires and due > now + timedelta(minutes=1) and not label:
            delivery = f"after quiet hours, {due:%Y-%m-%d %H:%M}Z"
        rows.append(
            {
                "change": ids[id(change)],
                "kind": (verdict.change or change).kind,
                "provider": change.provider,
                "region": change.region,
                "instance_type": change.instance_type,
                "observed_at": change.observed_at,
                "rule": verdict.rule,
                "fires": "yes" if verdict.fires else "no",
                "reason": verdict.reason,
                "channels": ",".join(compiled.settings.channels) if verdict.fires else "",
                "delivery": delivery,
            }
        )
    emit(rows, fmt, columns=CHECK_COLUMNS, table_columns=CHECK_TABLE, empty="no changes in that period")


def _detail(raw: str) -> dict[str, str]:
    return json.loads(raw or "{}")


def register(app: typer.Typer) -> None:
    notify_app.command("test")(notify_test)
    alerts_app.command("outbox")(outbox_list)
    alerts_app.command("deliver")(deliver)
    alerts_app.command("retry")(retry)
    rules_app.command("check")(rules_check)
    app.add_typer(notify_app, name="notify")
    app.add_typer(alerts_app, name="alerts")
    app.add_typer(rules_app, name="rules")
