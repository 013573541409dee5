"""The reads of the store, each defined once: prices (current or every
interval) under the commands' filters, changes, runs. `db.store.reads.reader`
runs them on a DB-API connection of its own (the command line's simple
queries, without SQLAlchemy), `db.store.reads.session` and the analytics on an
engine's or session's (`db.store.reads.connection`); both get the same rows in the same
order: exact numbers (stored as text) as Decimals, times aware in UTC,
attrs as a dict.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from db.store.reads.connection import Db, utc_time

# The text columns that hold exact numbers, by table.
PRICE_DECIMALS = (
    "gpu_count",
    "gpu_memory_gb",
    "vcpu",
    "memory_gb",
    "network_gbps",
    "price",
    "list_price",
    "upfront_fee",
    "median_price",
)
CHANGE_DECIMALS = ("gpu_count", "old_price", "new_price", "percent")
PRICE_TIMES = ("valid_from", "valid_to")
RUN_TIMES = ("started_at", "finished_at", "observed_at")
CHANGE_TIMES = ("observed_at",)
OFFER_TIMES = ("offer_valid_from", "offer_valid_until", "valid_from", "valid_to")
# The columns of a price row, in the order of `db.tables.PricePoint`'s fields
# (a migration added some at the table's end): rows read as the ORM reads them.
PRICE_COLUMNS = (
    "id", "key", "value_hash", "source", "provider", "region", "zone", "instance_type", "gpu_model", "gpu_count",
    "gpu_memory_gb", "vcpu", "memory_gb", "gpu_interconnect", "network_gbps", "os", "price_model", "term",
    "payment_option", "price", "currency", "unit", "list_price", "upfront_fee", "availability", "source_url", "attrs",
    "median_price", "offer_count", "valid_from", "valid_to", "first_run_id", "missed_runs", "input_hash",
)  # fmt: skip
# The order prices are read in (the id last: rows that tie on the rest keep
# the order they were written in, on every back end).
PRICE_ORDER = "provider, region, instance_type, price_model, term, os, valid_from, id"


# A price row not held as suspect (db/store/writes/suspects.py): its
# (source, key) looked up in the marks' primary key. The marks' columns are
# renamed so that `source` and `key` name the outer row's whatever the
# statement calls its table. On PostgreSQL an anti-join; on SQLite a probe
# per row, made when the condition's turn comes: `PriceFilter.terms` puts it
# last, after the cheap tests of the row's own columns (at a million open
# prices with 29,000 marks, the probes of the rows a GPU model leaves, not
# of a million). The pair compared as one text
# (`source || '|' || key NOT IN (...)`), the earlier form, cost a
# concatenation and a search per row.
NOT_SUSPECT = (
    "NOT EXISTS (SELECT 1 FROM (SELECT source AS held_source, key AS held_key FROM suspect_prices) AS held"
    " WHERE held_source = source AND held_key = key)"
)


# A text column holding a part, ignoring case, the part's own % and _ taken
# as written (`like_part` escapes them).
LIKE_PART = "lower({column}) LIKE ? ESCAPE '/'"


def like_part(part: str) -> str:
    """The LIKE pattern of `LIKE_PART` for a part of a text."""
    escaped = part.lower().replace("/", "//").replace("%", "/%").replace("_", "/_")
    return f"%{escaped}%"


def any_suspect(db: Db) -> bool:
    """Whether any price is held as suspect (none: no condition to add)."""
    return bool(db.tuples("SELECT 1 FROM suspect_prices LIMIT 1"))


@dataclass(frozen=True)
class PriceFilter:
    """Which prices a question is about; every field narrows. `gpu` matches
    the GPU model in part, ignoring case; `gpu_count` a count equal to it
    (the caller checks the exact Decimal again); `instances` are
    (provider, region, instance_type) triples, `types` (provider, instance_type) pairs."""

    provider: str | None = None
    region: str | None = None
    gpu: str | None = None
    price_model: str | None = None
    instance_type: str | None = None
    current: bool = True
    os: str | None = None
    gpu_count: Decimal | None = None
    with_gpus: bool = False  # only rows with a GPU count
    instances: tuple[tuple[str, str, str], ...] | None = None
    types: tuple[tuple[str, str], ...] | None = None
    # (gpu_model, gpu_count, gpu_memory_gb) as stored: only rows of these GPU shapes.
    shapes: tuple[tuple[str | None, str | None, str | None], ...] | None = None
    # False: leave out the prices held as suspect (`suspect_prices`), as the
    # rankings do unless asked (`--include-suspect`).
    include_suspect: bool = True
    # What the dashboard's listings filter on too (`db.store.reads.browse`).
    availability: str | None = None
    currency: str | None = None
    # A region group, resolved by the caller: the (provider, region) pairs in
    # it, the providers whose unnamed regions are in it, and every region a
    # group names (those are not the unnamed ones).
    regions: Sequence[tuple[str, str]] | None = None
    providers_everywhere: Sequence[str] = ()
    named_regions: Sequence[tuple[str, str]] = ()
    # The stored GPU models `gpu` names, when the caller knows them
    # (`db.store.reads.browse.price_facets`): an IN the planner can weigh,
    # where a substring match made it walk a whole index for a GPU no price has.
    gpu_models: Sequence[str] | None = None

    def unpaged(self) -> list[str]:
        """The fields set that the dashboard's paged listings do not read
        (they list the current prices, suspect ones included)."""
        unread = ["current"] * (not self.current) + ["include_suspect"] * (not self.include_suspect)
        unread += [n for n in ("os", "gpu_count", "instances", "types", "shapes") if getattr(self, n) is not None]
        return unread + ["with_gpus"] * self.with_gpus

    def group(self) -> tuple[str, list[Any]]:
        """The region group as one condition: a price's region one of the
        group's for its provider, or its provider everywhere in the group and
        its region none that a group names. Said per provider, with lists of
        regions: pairs compared one by one with each row are slow."""
        grouped: dict[str, list[str]] = {}
        for provider, region in self.regions or ():
            grouped.setdefault(provider, []).append(region)
        named: dict[str, list[str]] = {}
        for provider, region in self.named_regions:
            named.setdefault(provider, []).append(region)
        terms: list[str] = []
        params: list[Any] = []
        for provider, regions in sorted(grouped.items()):
            terms.append(f"(provider = ? AND region IN ({', '.join('?' * len(regions))}))")
            params += [provider, *sorted(regions)]
        for provider in sorted(self.providers_everywhere):
            others = sorted(named.get(provider, ()))
            terms.append(
                f"(provider = ? AND region NOT IN ({', '.join('?' * len(others))}))" if others else "provider = ?"
            )
            params += [provider, *others]
        return (f"({' OR '.join(terms)})" if terms else "1 = 0"), params

    def where(self, db: Db) -> tuple[str, list[Any]]:
        """The filter as one condition, and its parameters."""
        found = self.terms(db)
        return (" AND ".join(t.sql for t in found) or "1 = 1"), [p for t in found for p in t.params]

    def terms(self, db: Db) -> list[Term]:
        """The filter's conditions one by one, each with the columns it reads:
        `where` joins them; the dashboard's paged listings
        (`db.store.reads.browse`) keep some for an index to serve and check
        the rest on the rows it reads."""
        where: list[Term] = [Term((), "valid_to IS NULL")] if self.current else []
        for column in ("provider", "region", "availability", "currency"):
            if value := getattr(self, column):
                where.append(Term((column,), f"{column} = ?", [value]))
        if self.regions is not None:
            # The providers the group can hold, said apart: the leading column of
            # the open rows' index, so a group without a stored price reads none.
            providers = sorted({p for p, _ in self.regions} | set(self.providers_everywhere))
            where.append(Term(("provider",), _one_of("provider", providers), providers))
            condition, values = self.group()
            where.append(Term(("provider", "region"), condition, values))
        if self.gpu_models is not None:
            where.append(Term(("gpu_model",), _one_of("gpu_model", self.gpu_models), list(self.gpu_models)))
        elif self.gpu and self.current and db.dialect == "postgresql":
            # The open rows' models that match, then an index's condition: the
            # match itself on every row is a scan of the table (0.3 s a query at a million).
            models = open_gpu_models(db, self.gpu)
            where.append(Term((), _one_of("gpu_model", models), models))
        elif self.gpu:
            where.append(Term((), LIKE_PART.format(column="gpu_model"), [like_part(self.gpu)]))
        for column in ("price_model", "instance_type", "os"):
            if value := getattr(self, column):
                where.append(Term((column,), f"{column} = ?", [value]))
        if self.with_gpus or self.gpu_count is not None:
            where.append(Term(("gpu_count",), f"{db.number('gpu_count')} <> 0"))
        if self.gpu_count is not None:
            # Within a millionth: the exact comparison is the caller's, on the Decimal.
            where.append(Term(("gpu_count",), f"abs({db.number('gpu_count')} - ?) < 0.000001", [float(self.gpu_count)]))
        for columns, keys in (
            (("provider", "region", "instance_type"), self.instances),
            (("provider", "instance_type"), self.types),
        ):
            if keys is None:
                continue
            # The instance type alone first: a condition the index on it serves.
            names = sorted({key[-1] for key in keys})
            if names:
                where.append(Term(("instance_type",), _one_of("instance_type", names), names))
            params: list[Any] = []
            where.append(Term(columns, _tuples_in(f"({', '.join(columns)})", keys, params), params))
        if self.shapes is not None:
            params = []
            where.append(Term(("gpu_model", "gpu_count", "gpu_memory_gb"), _shapes_in(db, self.shapes, params), params))
        if not self.include_suspect and any_suspect(db):
            where.append(Term((), NOT_SUSPECT))  # last: the dearest test, of the rows the others leave
        return where


@dataclass(frozen=True)
class Term:
    """One condition of a filter: the columns it reads, its SQL (`?`
    placeholders) and its parameters."""

    names: tuple[str, ...]
    sql: str
    params: list[Any] = field(default_factory=list)


def _one_of(column: str, values: Sequence[Any]) -> str:
    return f"{column} IN ({', '.join('?' * len(values))})" if values else "1 = 0"


def open_gpu_models(db: Db, part: str) -> list[str]:
    """The GPU models of the open prices that contain `part`, ignoring case
    (as `PriceFilter.gpu` matches). The models are walked one by one down the
    index of the open rows' models (a loose index scan: a probe per model,
    not a read of every row)."""
    sql = f"""
WITH RECURSIVE models(name) AS (
  SELECT min(gpu_model) FROM price_points WHERE valid_to IS NULL
  UNION ALL
  SELECT (SELECT min(gpu_model) FROM price_points WHERE valid_to IS NULL AND gpu_model > models.name)
  FROM models WHERE models.name IS NOT NULL
)
SELECT name FROM models WHERE name IS NOT NULL AND {LIKE_PART.format(column="name")}"""
    return [name for (name,) in db.tuples(sql, [like_part(part)])]


def _shapes_in(db: Db, shapes: Sequence[tuple[str | None, str | None, str | None]], params: list[Any]) -> str:
    found = sorted({tuple("" if v is None else v for v in shape) for shape in shapes})
    if not found:
        return "1 = 0"
    if db.dialect == "postgresql":
        # One text a shape, in a list of texts PostgreSQL looks up in a hash
        # table: against `IN (VALUES ...)` it compared each row with every
        # shape in turn when it expected few rows (a table the import had just
        # filled, never analyzed: 0.55 s of the report's 0.68 s on the kept
        # rates at a million prices). The count and memory are numbers: the
        # last two separators are theirs whatever the model's name holds.
        params.extend("|".join(shape) for shape in found)
        key = "COALESCE(gpu_model, '') || '|' || COALESCE(gpu_count, '') || '|' || COALESCE(gpu_memory_gb, '')"
        return f"({key}) IN ({', '.join('?' * len(found))})"
    columns = "(COALESCE(gpu_model, ''), COALESCE(gpu_count, ''), COALESCE(gpu_memory_gb, ''))"
    return _tuples_in(columns, found, params)


def _tuples_in(columns: str, values: Sequence[tuple[str, ...]], params: list[Any]) -> str:
    if not values:
        return "1 = 0"
    width = len(values[0])
    one = "(" + ", ".join("?" * width) + ")"
    for value in values:
        params.extend(value)
    return f"{columns} IN (VALUES {', '.join([one] * len(values))})"


def restore(row: dict[str, Any], decimals: Iterable[str], times: Iterable[str]) -> dict[str, Any]:
    for name in decimals:
        if row[name] is not None:
            row[name] = Decimal(row[name])
    for name in times:
        row[name] = utc_time(row[name])
    return row


def price_row(row: dict[str, Any]) -> dict[str, Any]:
    restore(row, PRICE_DECIMALS, PRICE_TIMES)
    row["attrs"] = json.loads(row["attrs"] or "{}")
    return row


def prices(db: Db, where: PriceFilter, *, as_stored: bool = False) -> Iterator[dict[str, Any]]:
    """The prices `where` asks for, in PRICE_ORDER, streamed; with
    `as_stored`, exact numbers and attrs as the stored text."""
    condition, params = where.where(db)
    sql = f"SELECT {', '.join(PRICE_COLUMNS)} FROM price_points WHERE {condition} ORDER BY {PRICE_ORDER}"
    for row in db.stream(sql, params):
        yield restore(row, (), PRICE_TIMES) if as_stored else price_row(row)


def offers(db: Db) -> list[dict[str, Any]]:
    """The current offers, as stored (exact numbers still text), in the order they were written."""
    rows = [
        restore(row, (), OFFER_TIMES) for row in db.stream("SELECT * FROM offers WHERE valid_to IS NULL ORDER BY id")
    ]
    for row in rows:
        row["unparsed"] = bool(row["unparsed"])
    return rows


def runs(db: Db, *, limit: int = 20, source: str | None = None) -> list[dict[str, Any]]:
    """The newest runs first."""
    where, params = ("WHERE source = ? ", [source]) if source else ("", [])
    rows = db.rows(f"SELECT * FROM crawl_runs {where}ORDER BY id DESC LIMIT ?", [*params, limit])
    return [restore(row, (), RUN_TIMES) for row in rows]


@dataclass(frozen=True)
class ChangeFilter:
    """Which changes a question is about; every field narrows. `gpu` matches
    the GPU model in part, ignoring case; `until` is exclusive."""

    since: datetime | None = None
    until: datetime | None = None
    provider: str | None = None
    kinds: Sequence[str] | None = None
    region: str | None = None
    gpu: str | None = None
    price_model: str | None = None
    instance_type: str | None = None
    key: str | None = None

    def where(self, db: Db) -> tuple[str, list[Any]]:
        where: list[str] = []
        params: list[Any] = []
        if self.since:
            where.append("observed_at >= ?")
            params.append(db.time(self.since))
        if self.until:
            where.append("observed_at < ?")
            params.append(db.time(self.until))
        for column in ("provider", "region", "price_model", "instance_type", "key"):
            if value := getattr(self, column):
                where.append(f"{column} = ?")
                params.append(value)
        if self.kinds:
            where.append(f"kind IN ({', '.join('?' * len(self.kinds))})")
            params.extend(self.kinds)
        if self.gpu:
            where.append(LIKE_PART.format(column="gpu_model"))
            params.append(like_part(self.gpu))
        return (" AND ".join(where) or "1 = 1"), params


def changes(
    db: Db,
    where: ChangeFilter | None = None,
    *,
    limit: int | None = None,
    offset: int = 0,
    newest_first: bool = False,
) -> list[dict[str, Any]]:
    """Changes oldest first (newest first if asked), exact numbers still text."""
    sql, params = changes_sql(db, where or ChangeFilter(), limit=limit, offset=offset, newest_first=newest_first)
    return [change_row(row) for row in db.stream(sql, params)]


def changes_sql(
    db: Db, where: ChangeFilter, *, limit: int | None, offset: int = 0, newest_first: bool = False
) -> tuple[str, list[Any]]:
    """The statement of `changes`, and its parameters."""
    condition, params = where.where(db)
    order = "observed_at DESC, id DESC" if newest_first else "observed_at, id"
    sql = f"SELECT * FROM changes WHERE {condition} ORDER BY {order}"
    if limit:
        sql += " LIMIT ?"
        params.append(limit)
    if offset:
        sql += " LIMIT -1" * (not limit and db.dialect == "sqlite") + " OFFSET ?"
        params.append(offset)
    return sql, params


def change_row(row: dict[str, Any]) -> dict[str, Any]:
    return restore(row, (), CHANGE_TIMES)


def change_count_sql(db: Db, where: ChangeFilter) -> tuple[str, list[Any]]:
    """The statement counting the changes `where` matches, and its parameters."""
    condition, params = where.where(db)
    return f"SELECT count(*) FROM changes WHERE {condition}", params


def change_counts(db: Db, *, since: datetime | None = None) -> dict[str, int]:
    """How many changes of each kind since `since`."""
    where, params = ("WHERE observed_at >= ?", [db.time(since)]) if since else ("", [])
    return {kind: int(n) for kind, n in db.tuples(f"SELECT kind, count(*) FROM changes {where} GROUP BY kind", params)}
