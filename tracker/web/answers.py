"""The answers the dashboard and the API give, from the same entry points the
CLI's commands call (`prices`, `changes`, `offers`, `compare`, `recommend`,
`history`, `report`'s summary, `status`), rows in the CLI's columns.

This is the one module of the web package that knows the analytics and the
store: when they change, the glue changes here.

Answers that rank the whole store (the overview, compare, recommend) are
kept until the store changes: a finished crawl or import adds a run, which
moves `Answers.version`.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import sqlalchemy as sa

from db.store.reads.browse import page_prices, price_facets
from db.store.reads.connection import Db
from db.store.reads.rows import PriceFilter
from db.store.writes import suspects
from tracker.answers import prices
from tracker.logs import register_secrets, secret_values

if TYPE_CHECKING:
    from tracker.analytics.facts.reference import References
    from tracker.analytics.recommend import Needs
    from tracker.answers.changes import ChangesRequest
    from tracker.answers.history import HistoryRequest
    from tracker.answers.offers import OffersRequest
    from tracker.answers.ranked.compare import CompareRequest
    from tracker.answers.ranked.recommend import RecommendRequest
    from tracker.config.web import WebSettings
from tracker.config.settings import Config

VERSION_SECONDS = 2.0
CACHE_ENTRIES = 64
ATTEMPTS = 3  # a read the store failed to answer is asked again, on a new connection
log = logging.getLogger("gpu_tracker.web")


def store_reason(exc: BaseException) -> str:
    """The driver's reason on one line, without SQLAlchemy's statement and link."""
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc)
    return " ".join(s.strip() for s in text.splitlines() if s.strip() and not s.startswith("["))[:300]


def transient(exc: sa.exc.DBAPIError) -> bool:
    """Whether asking again may work: a connection lost or refused, a busy
    store; not a table that is not there."""
    if exc.connection_invalidated:
        return True
    return isinstance(exc, sa.exc.OperationalError) and not store_reason(exc).startswith("no such ")


P = ParamSpec("P")
R = TypeVar("R")


def retried(method: Callable[P, R]) -> Callable[P, R]:
    """Asked once more when the store failed to answer: a connection the
    pool gave was dropped while in use (a PostgreSQL server restarted, a
    connection terminated: the pool's ping before use cannot see that
    coming), a new one was cut while it opened, SQLite was busy. Only reads
    are asked again, at most `ATTEMPTS` times in all: a store that stays
    away is said."""

    @functools.wraps(method)
    def again(*args: P.args, **kwargs: P.kwargs) -> R:
        for _ in range(ATTEMPTS - 1):
            try:
                return method(*args, **kwargs)
            except sa.exc.DBAPIError as exc:
                if not transient(exc):
                    raise
                log.warning("web: the store failed to answer (%s); asked again", store_reason(exc))
        return method(*args, **kwargs)

    return again


@dataclass(frozen=True)
class Page:
    rows: list[dict[str, Any]]
    total: int
    offset: int
    limit: int
    # False: at least `total` match (`db.store.reads.browse.COUNT_CAP`), maybe more.
    exact: bool = True


class Answers:
    """The store, the reference tables and the configuration, opened once per server."""

    def __init__(self, engine: sa.Engine, config: Config) -> None:
        from tracker.analytics.facts.reference import load_references

        self.engine = engine
        self.config = config
        # Its secrets are masked wherever an error or a reason is shown (tracker.config.masking).
        self.secrets = secret_values(config)
        register_secrets(self.secrets)
        self.refs: References = load_references(config.analytics)
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._version: tuple[Any, ...] | None = None
        self._checked = 0.0

    # --- the store's version, and answers kept until it moves ----------------

    @retried
    def version(self) -> tuple[Any, ...]:
        """What every answer is made of, in a few values: the runs' count, newest
        id and finish (a crawl, an import, a run marked later), and the newest
        change's id and time (also a change written without a run: the
        daemon's source_stale). Any write an answer shows moves it."""
        now = time.monotonic()
        if self._version is None or now - self._checked > VERSION_SECONDS:
            t = sa.table("crawl_runs", sa.column("id"), sa.column("finished_at"))
            stmt = sa.select(sa.func.count(t.c.id), sa.func.max(t.c.id), sa.func.max(t.c.finished_at))
            c = sa.table("changes", sa.column("id"), sa.column("observed_at"))
            newest = sa.select(c.c.id, c.c.observed_at).order_by(c.c.id.desc()).limit(1)
            with self.engine.connect() as conn:
                runs = tuple(conn.execute(stmt).one())
                change = conn.execute(newest).first()
            self._version = (*runs, *(tuple(change) if change is not None else (None, None)))
            self._checked = now
        return self._version

    def kept(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        key = (self.version(), *key)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = compute()
        with self._lock:
            self._cache[key] = value
            while len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return value

    # --- prices, changes, offers ---------------------------------------------

    def region_filter(self, group: str) -> dict[str, Any]:
        pairs = self.refs.region_groups
        return {
            "regions": [p for p, g in pairs.items() if g == group and p[1] != "*"],
            "providers_everywhere": sorted({p for (p, r), g in pairs.items() if g == group and r == "*"}),
            "named_regions": [p for p in pairs if p[1] != "*"],
        }

    @retried
    def prices(self, f: dict[str, Any], *, sort: str | None, descending: bool, limit: int, offset: int) -> Page:
        group = f.pop("region_group", None)
        if f.get("gpu"):
            f["gpu_models"] = [m for m in self.facets()["gpu_model"] if f["gpu"].lower() in m.lower()]
        where = PriceFilter(**f, **(self.region_filter(group) if group else {}))
        with self.engine.connect() as conn:
            found = page_prices(conn, where, sort=sort, descending=descending, limit=limit, offset=offset)
            held = suspects.reasons(
                Db(conn.connection.driver_connection, conn.dialect.name),
                [(p["source"], p["key"]) for p in found.rows if p.get("source")],
            )
        rows = prices.rows(found.rows, held)
        for row in rows:
            row["region_group"] = self.refs.region_group(row["provider"], row["region"])
        return Page(rows, found.total, offset, limit, found.exact)

    @retried
    def facets(self) -> dict[str, list[str]]:
        def compute() -> dict[str, list[str]]:
            with self.engine.connect() as conn:
                return price_facets(conn)

        return self.kept(("facets",), compute)

    @retried
    def changes(self, request: ChangesRequest, *, offset: int = 0, words: bool = False) -> Page:
        """`tracker.answers.changes`: one page of `request.limit` changes from `offset`."""
        from tracker.answers import changes

        with self.engine.connect() as conn:
            found, total = changes.page(conn, request, offset=offset, words=words)
        return Page(found, total, offset, request.limit or 0)

    @retried
    def offers(self, request: OffersRequest) -> list[dict[str, Any]]:
        """`tracker.answers.offers`: the current offers the request keeps."""
        from tracker.answers import offers

        return offers.rows(self.engine, request)

    # --- history --------------------------------------------------------------

    @retried
    def history(self, request: HistoryRequest) -> list[dict[str, Any]]:
        """`tracker.answers.history`: the intervals each price held."""
        from tracker.answers import history

        # A span back from now (7d) moves every second: kept to the minute.
        moments = tuple(m.replace(second=0, microsecond=0) if m else None for m in (request.since, request.until))
        key = replace(request, since=moments[0], until=moments[1])
        return self.kept(("history", repr(key)), lambda: history.rows(self.engine, request))

    # --- compare, recommend, the overview -----------------------------------------

    @retried
    def compare(self, request: CompareRequest) -> list[dict[str, Any]]:
        """The CLI's answer (`tracker.answers.ranked.compare`): only the prices that
        can rank are read, only the first `limit` worked out in full."""
        from tracker.answers.ranked import compare

        return self.kept(("compare", repr(request)), lambda: compare.rows(self.engine, self.refs, request))

    @retried
    def recommend(self, request: RecommendRequest, needs: Needs) -> tuple[list[dict[str, Any]], list[str]]:
        """The CLI's answer (`tracker.answers.ranked.recommend`): the store's
        aggregates pick the candidates, only those are priced in full.
        Read-only: a provider a bulk write left stale is answered from its prices."""
        from tracker.answers.ranked import recommend

        def compute() -> tuple[list[dict[str, Any]], list[str]]:
            return recommend.rows(self.engine, self.refs, request, needs=needs, settle=False)

        return self.kept(("recommend", repr(request)), compute)

    @retried
    def cheapest(self, currency: str) -> list[dict[str, Any]]:
        """Per GPU model and kind of price (on demand, spot, committed): the
        cheapest per GPU-hour, as the report says it (read-only)."""
        from tracker.answers import report

        return self.kept(
            ("cheapest", currency), lambda: report.cheapest(self.engine, self.refs, currency, settle_rates=False)
        )

    # --- sources ------------------------------------------------------------------

    @retried
    def sources(self, now: datetime | None = None) -> list[dict[str, Any]]:
        """Per source that has run (`tracker.answers.sources`): its last run and
        status, its last good data, whether it is stale, and its last error
        in one sentence (secrets masked)."""
        from tracker.answers import sources

        found = self.kept(("sources",), lambda: sources.records(self.engine))
        return sources.rows(found, self.config.daemon, now=now or datetime.now(UTC), secrets=self.secrets)

    def store_label(self) -> str:
        from db.store.engine import mask_url

        return mask_url(self.config.database_url())

    def settings(self, web: WebSettings, port: int | None = None) -> dict[str, Any]:
        """[store] as `config show` prints it, and [web] as the server runs: the
        address and port it listens on (`port`: the one it was given, when it
        was told 0) and what guards it, where from (never the secret itself)."""
        from tracker.config.masking import masked

        return {
            "store": masked(self.config).get("store"),
            "web": {
                "host": web.host,
                "port": port or web.port,
                "credentials": web.credentials(),
                "page_size": web.page_size,
                "cache_seconds": web.cache_seconds,
            },
        }

    @retried
    def feed(self, request: ChangesRequest) -> list[dict[str, Any]]:
        """The newest `request.limit` changes it matches, as stored (the Atom feed's)."""
        from tracker.answers import changes

        with self.engine.connect() as conn:
            stored, _ = changes.page_stored(conn, replace(request, newest_first=True))
        return stored
