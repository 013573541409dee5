"""Commands for alerts: `notify test`, `alerts outbox|deliver|retry|preview`, `rules check`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from tracker.answers.columns import CHECK_COLUMNS, CHECK_TABLE, OUTBOX_COLUMNS, OUTBOX_TABLE, change_dict
from tracker.cli.output import FormatOption, OutputFormat, WideOption, emit, stderr
from tracker.cli.state import State, parse_since, state
from tracker.errors import TrackerError, UserError

if TYPE_CHECKING:
    from db.alert_tables import OutboxRow
    from db.schema import Change
    from tracker.config.settings import Config

# Apprise and the store load inside each command: `--help` starts fast.

notify_app = typer.Typer(
    help="Check notification channels.\n\nExample: gpu-tracker notify test team-slack", no_args_is_help=True
)
alerts_app = typer.Typer(
    help="Alert messages: preview them, and the outbox of what is waiting, sent or dead.\n\n"
    "Example: gpu-tracker alerts preview --family slack && gpu-tracker alerts outbox --state dead",
    no_args_is_help=True,
)
rules_app = typer.Typer(
    help="Check which alert rules fire for recent changes, and why.\n\nExample: gpu-tracker rules check --since 7d",
    no_args_is_help=True,
)


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
    wide: WideOption = False,
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
    emit(rows, fmt, columns=OUTBOX_COLUMNS, table_columns=OUTBOX_TABLE, empty="the outbox is empty", wide=wide)


def deliver(ctx: typer.Context) -> None:
    """Send every outbox message that is due, retrying failures with backoff.

    Example: gpu-tracker alerts deliver
    """
    from tracker.run.alerting import deliver_outbox

    st = state(ctx)
    report = deliver_outbox(st.config, st.engine)
    if report.released:
        stderr.print(f"{report.released} messages left by a stopped worker were due again")
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
    wide: WideOption = False,
) -> None:
    """Explain which rules would fire for the recent changes, and why the others do not.

    Thresholds are applied in order from no notified history.

    Example: gpu-tracker rules check --since 7d --rule a100-drops
    """
    from sqlmodel import Session

    from alerts.rules import compile_rules, explain
    from db.schema import Change
    from db.store.reads import session as store

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
    emit(rows, fmt, columns=CHECK_COLUMNS, table_columns=CHECK_TABLE, empty="no changes in that period", wide=wide)


def _detail(raw: str) -> dict[str, str]:
    return json.loads(raw or "{}")


def _stored_changes(st: State, ids: list[int], since: str | None, limit: int) -> list[tuple[int, Change]]:
    from sqlmodel import Session, col, select

    from db.schema import Change
    from db.store.reads import session as store
    from db.tables import ChangeRow
    from tracker.config.masking import masked_detail

    found: list[ChangeRow] | list[store.Stored]
    with Session(st.engine) as session:
        if ids:
            found = list(session.exec(select(ChangeRow).where(col(ChangeRow.id).in_(ids))).all())
            missing = sorted(set(ids) - {row.id for row in found})
            if missing:
                raise UserError(
                    f"no change with the id {', '.join(map(str, missing))}; `gpu-tracker changes` lists them"
                )
        else:
            found = store.query_changes(session=session, since=parse_since(since))[-limit:]
        # A reason recorded before errors were masked is previewed masked (tracker.config.masking).
        return [
            (row.id or 0, Change.model_validate(change_dict(row) | {"detail": masked_detail(_detail(row.detail))}))
            for row in found
        ]


def preview(
    ctx: typer.Context,
    change_ids: Annotated[
        list[int] | None,
        typer.Option(
            "--change", help="This change id (as the preview's headings and `rules check` show it); repeatable."
        ),
    ] = None,
    family: Annotated[
        str | None,
        typer.Option(
            help="Render for this family or service instead of the configured channels: slack, wecom, "
            "dingtalk, feishu, telegram, email, markdown, text..."
        ),
    ] = None,
    as_digest: Annotated[bool, typer.Option("--digest", help="Pack the changes into digest messages.")] = False,
    since: Annotated[str | None, typer.Option(help="Changes from this date or span back (7d, 24h).")] = None,
    limit: Annotated[int, typer.Option(min=1, help="How many of the latest changes.")] = 3,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="text (the message as the channel gets it) or json.")
    ] = "text",
) -> None:
    """Show recent changes as each configured channel would receive them, without sending anything.

    Example: gpu-tracker alerts preview --family wecom --limit 2
    """
    from alerts.channels import FAMILY_NAMES
    from alerts.render import LIMITS, Family, Message, digest, single
    from tracker.run.alerting import build_channels, with_rates

    if fmt not in ("text", "json"):
        raise typer.BadParameter(f"{fmt!r}: use text or json", param_hint="--format")
    st = state(ctx)
    config = st.config
    if family is not None:
        chosen = FAMILY_NAMES.get(family.lower())
        if chosen is None:
            raise typer.BadParameter(f"{family!r}: use one of {', '.join(sorted(FAMILY_NAMES))}", param_hint="--family")
        targets = [(family.lower(), chosen, LIMITS[chosen])]
    else:
        _mask_config(config)
        targets = [(c.name, c.family, c.limits) for c in build_channels(config).values()]
        if not targets:
            stderr.print("no [[channel]] is configured: showing every family", highlight=False, markup=False)
            targets = [(f.value, f, LIMITS[f]) for f in Family]
    found = _stored_changes(st, change_ids or [], since, limit)
    if not found:
        raise UserError("no changes to preview; run `gpu-tracker demo` or a crawl first, or widen --since")
    # The rate to [alerts] currency is added as the alert hook adds it to what reaches the outbox.
    priced = with_rates(config)([c for _, c in found])
    items = [(f"preview-{i}", c) for (i, _), c in zip(found, priced, strict=True)]
    shown: list[dict[str, Any]] = []
    for name, fam, limits in targets:
        messages: list[Message] = (
            digest(items, fam, "preview", limits) if as_digest else [single(item, fam, limits) for item in items]
        )
        for message in messages:
            ids = [int(k.removeprefix("preview-")) for k in message.row_keys]
            shown.append(
                {
                    "channel": name,
                    "family": str(fam),
                    "changes": ids,
                    "title": message.title,
                    "body": message.body,
                    "blocks": message.blocks,
                }
            )
    if fmt == "json":
        print(json.dumps(shown, ensure_ascii=False, indent=1))
        return
    for n, m in enumerate(shown):
        what = ", ".join(map(str, m["changes"]))
        print(("\n" if n else "") + f"── {m['channel']} ({m['family']}), change {what} ──")
        print(m["body"])


def _needs_alerts(ctx: typer.Context) -> None:
    """Every alert command uses [alerts], [[channel]] and [[rule]]: one of them wrong stops it."""
    state(ctx).config.need("alerts")


def register(app: typer.Typer) -> None:
    for group in (notify_app, alerts_app, rules_app):
        group.callback()(_needs_alerts)
    notify_app.command("test")(notify_test)
    alerts_app.command("outbox")(outbox_list)
    alerts_app.command("deliver")(deliver)
    alerts_app.command("retry")(retry)
    alerts_app.command("preview")(preview)
    rules_app.command("check")(rules_check)
    app.add_typer(notify_app, name="notify")
    app.add_typer(alerts_app, name="alerts")
    app.add_typer(rules_app, name="rules")
