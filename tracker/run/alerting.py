"""Alerts as the rest of the tracker uses them: the pipeline's change hook,
and outbox delivery for the CLI and the daemon (the same code for both)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlmodel import Session

from alerts import outbox
from alerts.channels import Channel, ChannelError
from alerts.delivery import DeliveryReport, Worker
from alerts.outbox import RetryPolicy
from alerts.rules import StoredReferences, compile_rules, route
from alerts.settings import ChannelSettings
from db.schema import Change, ChangeKind
from tracker.config.settings import Config
from tracker.errors import ConfigError

__all__ = [
    "DeliveryReport",
    "alert_hook",
    "build_channel",
    "build_channels",
    "deliver_outbox",
    "delivery_worker",
    "release_stuck",
    "with_rates",
]


def _now() -> datetime:
    return datetime.now(UTC)


def alert_hook(
    config: Config, clock: Callable[[], datetime] = _now
) -> Callable[[Session, Sequence[Change]], None] | None:
    """The pipeline's `on_changes`: changes become outbox rows through the
    rules, in the crawl's own transaction. None when no rule is configured."""
    config.need("alerts")
    if not config.rule:
        return None
    rules = compile_rules(config.rule, config.alerts.timezone)
    rates = with_rates(config)

    def on_changes(session: Session, changes: Sequence[Change]) -> None:
        now = clock()
        outbox.enqueue(session, route(rules, rates(changes), StoredReferences(session), now), now)

    return on_changes


_PRICED = {
    ChangeKind.price_drop,
    ChangeKind.price_increase,
    ChangeKind.new_sku,
    ChangeKind.sku_removed,
    ChangeKind.availability_changed,
}


def with_rates(config: Config) -> Callable[[Sequence[Change]], list[Change]]:
    """Changes with the rate to `[alerts] currency` and its date in their
    detail, so a message shows the per-GPU-hour in both currencies and the
    outbox keeps the rate the change was announced with."""
    config.need("alerts", "analytics")
    target = (config.alerts.currency or "").upper()
    if not target:
        return list
    from tracker.analytics.facts.reference import load_references

    fx = load_references(config.analytics).fx
    if target not in fx.rates:
        known = ", ".join(sorted(fx.rates))
        raise ConfigError(f"[alerts] currency {target}: no exchange rate for it (known: {known}); see [analytics.fx]")

    def annotate(changes: Sequence[Change]) -> list[Change]:
        out = []
        for change in changes:
            # A currency without a rate keeps its own figures only: no guess.
            if change.kind in _PRICED and change.currency in fx.rates and change.currency != target:
                conversion = fx.conversion(change.currency, target)
                rate = {"fx_to": target, "fx_rate": format(conversion.rate, "f"), "fx_date": conversion.date}
                change = change.model_copy(update={"detail": {**change.detail, **rate}})
            out.append(change)
        return out

    return annotate


def build_channel(settings: ChannelSettings, config: Config) -> Channel:
    config.need("alerts")
    try:
        return Channel(
            settings.name,
            settings.url.get_secret_value(),
            timeout=config.alerts.request_timeout,
            max_per_minute=settings.max_per_minute,
        )
    except ChannelError as exc:
        where = f"{config.path}: " if config.path else ""
        raise ConfigError(f"{where}{exc}") from None


def build_channels(config: Config) -> dict[str, Channel]:
    config.need("alerts")
    return {c.name: build_channel(c, config) for c in config.channel}


def policy(config: Config) -> RetryPolicy:
    a = config.alerts
    return RetryPolicy(
        retry_base_seconds=a.retry_base_seconds,
        max_attempts=a.max_attempts,
        max_backoff_seconds=a.max_backoff_seconds,
        batch_size=a.batch_size,
    )


def delivery_worker(
    config: Config, engine: sa.Engine, *, name: str = "cli", stop: Callable[[], bool] = lambda: False
) -> Worker:
    """A worker that delivers the outbox round after round (`Worker.round`);
    claims of stopped workers are released after `[alerts] lease_seconds`
    when they are on another host, at once when their process here is gone."""
    config.need("alerts")
    return Worker(
        engine, build_channels(config), policy(config), name=name, lease_seconds=config.alerts.lease_seconds, stop=stop
    )


def deliver_outbox(
    config: Config, engine: sa.Engine, *, now: datetime | None = None, worker: str = "cli"
) -> DeliveryReport:
    """Send everything due once: one round of a new worker."""
    return delivery_worker(config, engine, name=worker).round(now or _now())


def release_stuck(engine: sa.Engine, config: Config) -> int:
    """Rows a stopped worker left 'sending' go back to 'pending'; the number moved."""
    config.need("alerts")
    return outbox.release_stuck(engine, now=_now(), lease_seconds=config.alerts.lease_seconds)
