"""What every command needs: the configuration and the store, opened once.

Nothing heavy loads until a command asks for it: `--help` and a usage error
cost no more than Typer itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tracker.errors import UserError

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.store.reads.reader import Reader
    from tracker.config.settings import Config
    from tracker.run.pipeline import Pipeline

if TYPE_CHECKING:
    from tracker.analytics.facts.reference import References

# Configuration problems of sections the command may not use: warned of once, at its end.
WARNINGS: list[str] = []
# The store the command opened (its URL, password masked): named when it fails.
STORE_IN_USE: list[str] = []


def _in_use(url: str) -> None:
    from tracker.logs import mask_secrets

    STORE_IN_USE.append(mask_secrets(url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else url))


@dataclass
class State:
    config_path: Path | None = None
    home: Path | None = None
    debug: bool = False
    _config: Config | None = field(default=None, repr=False)

    @property
    def config(self) -> Config:
        if self._config is None:
            from tracker.config.settings import load_config
            from tracker.logs import register_secrets, secret_values

            self._config = load_config(self.config_path, home=self.home)
            WARNINGS.extend(self._config.problems.values())
            register_secrets(secret_values(self._config))
        return self._config

    @cached_property
    def engine(self) -> sa.Engine:
        from sqlalchemy.exc import OperationalError
        from sqlmodel import Session

        from db.store.engine import StoreError, make_engine, migrate
        from db.store.writes import runs as store

        url = self.config.database_url()
        _in_use(url)
        if url.startswith("sqlite:///"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        try:
            engine = make_engine(url)
            migrate(engine)
        except StoreError as exc:
            raise UserError(str(exc)) from None
        if engine.dialect.name == "sqlite":
            # A run left 'running' by a killed process is over: say so at start. A shared
            # PostgreSQL store may hold runs of other machines, whose pids mean nothing
            # here: there each crawl settles its own source's runs under its crawl lock.
            with Session(engine) as session:
                if store.abort_interrupted_runs(session=session, now=datetime.now(UTC)):
                    try:
                        session.commit()
                    except OperationalError:  # a read-only store: reading goes on
                        session.rollback()
        return engine

    def database_url(self) -> str:
        """The store's URL. Without a configuration file there is nothing to
        validate and no secret to register: the URL then comes from the
        environment or the home folder, without loading the settings models
        (a third of a simple query's time); `load_config` gives the same."""
        if self._config is None and self.config_path is None:
            from tracker.home import database_url, default_home

            home = self.home or default_home()
            if not (home / "config.toml").exists():
                return database_url(home)
        return self.config.database_url()

    def reader(self) -> Reader | None:
        """The store open for a simple read without the ORM, which takes
        longer to load than the query takes to run; None when the store
        needs `engine` first (not created yet, behind the migrations, a run to
        settle) or is open through it already."""
        if "engine" in self.__dict__:
            return None
        from db.store.reads.reader import Unreachable, open_reader

        url = self.database_url()
        _in_use(url)
        try:
            return open_reader(url)
        except Unreachable as exc:
            raise UserError(str(exc)) from None

    def store_label(self) -> str:
        """The store's URL with any password masked, for messages."""
        from db.store.engine import mask_url

        return mask_url(self.config.database_url())

    def pipeline(self) -> Pipeline:
        from tracker.run.alerting import alert_hook
        from tracker.run.diff import DiffPolicy
        from tracker.run.pipeline import Pipeline

        self.config.need("providers")
        d = self.config.diff
        policy = DiffPolicy(
            removal_confirmations=d.removal_confirmations,
            min_row_ratio=d.min_row_ratio,
            max_price_factor=d.max_price_factor,
            common_factor=d.common_factor,
            suspect_factor=d.suspect_factor,
            market_tolerance=d.market_tolerance,
            market_count_tolerance=d.market_count_tolerance,
        )
        # Changes become outbox rows in the crawl's own transaction.
        return Pipeline(engine=self.engine, policy=policy, on_changes=alert_hook(self.config))


def state(ctx: typer.Context) -> State:
    obj = ctx.find_root().obj
    if not isinstance(obj, State):
        obj = ctx.find_root().obj = State()
    return obj


def parse_since(text: str | None) -> datetime | None:
    """'2026-08-01', an ISO time, or a span back from now: '24h', '7d', '2w'
    (`tracker.answers.rows.parse_since`), a usage error when it is none."""
    from tracker.answers.rows import BadMoment
    from tracker.answers.rows import parse_since as moment

    try:
        return moment(text)
    except BadMoment as exc:
        raise typer.BadParameter(str(exc)) from None


class Step(str, Enum):
    """A resampling step: history and report sparklines."""

    day = "day"
    week = "week"
    month = "month"


def parse_currency(text: str) -> str:
    code = text.strip().upper()
    if len(code) != 3 or not code.isalpha():
        raise typer.BadParameter(f"{text!r} is not a 3-letter currency code", param_hint="--currency")
    return code


def references(ctx: typer.Context) -> References:
    """The bundled reference tables with the configuration's [analytics] overrides."""
    from tracker.analytics.facts.reference import load_references

    config = state(ctx).config
    config.need("analytics")
    return load_references(config.analytics)


def decimal_option(text: str | None, option: str, *, minimum: Decimal = Decimal(0)) -> Decimal | None:
    from tracker.answers.ranges import head

    if text is None:
        return None
    try:
        value = Decimal(text)
    except ArithmeticError:
        raise typer.BadParameter(f"{head(text)} is not a number", param_hint=option) from None
    if not value.is_finite() or value < minimum:
        raise typer.BadParameter(f"{head(text)} must be a number of at least {minimum}", param_hint=option)
    return value


def ranged_option(text: str, option: str, name: str) -> Decimal:
    """An answer's number (`tracker.answers.ranges`, by the name the web
    gives it) within the range the cost model computes."""
    from tracker.answers.ranges import RANGES, OutOfRange

    try:
        return RANGES[name].parse(option, text)
    except OutOfRange as exc:
        raise typer.BadParameter(str(exc)) from None


@contextmanager
def store_of(ctx: typer.Context) -> Iterator[Any]:
    """The store for a read: the light reader (`db.store.reads.reader`, no
    SQLAlchemy) when it can open it, else the engine."""
    reader = state(ctx).reader()
    if reader is None:
        yield state(ctx).engine
        return
    with reader:
        yield reader


def suspect_reasons(ctx: typer.Context, prices: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Why each of these (source, key) prices is held as suspect (only those that are)."""
    from db.store.reads.connection import open_db
    from db.store.writes.suspects import reasons

    if not prices:
        return {}
    with store_of(ctx) as store, open_db(store) as db:
        return reasons(db, prices)


def held_ahead(store: Any, gpu: str | None = None) -> Callable[[], int]:
    """How many current prices (of `gpu`) are held as suspect, for
    `suspect_note`: on PostgreSQL counted while the answer runs
    (`db.store.reads.reader.ahead`)."""
    from db.store.reads.reader import ahead
    from db.store.writes.suspects import held_count

    return ahead(store, lambda db: held_count(db, gpu))


def suspect_note(store: Any, included: bool, *, gpu: str | None = None, count: Callable[[], int] | None = None) -> None:
    """On stderr, how many current prices (of `gpu`) are held as suspect and
    what that did to the answer (`count`: `held_ahead`'s, when started
    before); nothing when none are."""
    if count is None:
        from db.store.reads.connection import open_db
        from db.store.writes.suspects import held_count

        with open_db(store) as db:
            held = held_count(db, gpu)
    else:
        held = count()
    if not held:
        return
    from tracker.cli.output import stderr

    what = "ranked with the rest (--include-suspect)" if included else "left out (--include-suspect ranks them)"
    stderr.print(
        f"[dim]{held} current price(s){f' of {gpu}' if gpu else ''} held as suspect, far from their market, "
        f"{what}; `gpu-tracker prices --suspect` lists them with the reason[/dim]",
        highlight=False,
    )


# Options tco and recommend share, with their help written once.
SpotOverheadOption = Annotated[
    str, typer.Option(help="Factor on spot hours where no interruption rate is stated (1.1 = 10% more hours).")
]
CheckpointMinutesOption = Annotated[
    str,
    typer.Option(help="Minutes of work a spot interruption loses (since the last checkpoint); see docs/spot-risk.md."),
]
