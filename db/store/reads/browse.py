"""Paged, sorted reads for the web dashboard (tracker/web): one page of the
current prices or of the changes, filtered and sorted in SQL, and how many
match in all. A million open prices never leave the database for a page of 50.

Rows come back as `db.store.reads.session.point_to_dict` and `ChangeRow.model_dump`
give them: the CLI's JSON contract is built from the same fields.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.util import ClauseAdapter
from sqlalchemy.types import NullType

from db.bulk.encoding import DECIMAL_FIELDS
from db.store.reads.connection import Db
from db.store.reads.rates import GPU_COUNT_SQL, PRICE_SQL, hourly_expression, per_gpu_hour_expression
from db.store.reads.rows import PRICE_ORDER, ChangeFilter, PriceFilter, change_count_sql, change_row, changes_sql
from db.tables import PricePoint

_P = PricePoint.__table__


def _sql(text: str) -> sa.ColumnElement[Any]:
    return sa.literal_column(text, sa.Float)


SORTS: dict[str, Any] = {
    "provider": lambda: [_P.c.provider],
    "region": lambda: [_P.c.region],
    "instance_type": lambda: [_P.c.instance_type],
    "gpu_model": lambda: [_P.c.gpu_model],
    "gpu_count": lambda: [_sql(GPU_COUNT_SQL)],
    "price_model": lambda: [_P.c.price_model, _P.c.term],
    "price": lambda: [_sql(PRICE_SQL)],
    "hourly_price": lambda: [hourly_expression()],
    "price_per_gpu_hour": lambda: [per_gpu_hour_expression()],
    "observed_at": lambda: [_P.c.valid_from],
}
# The CLI's order (`db.store.reads.rows.PRICE_ORDER`): ties always break on it.
_ORDER = tuple(name.strip() for name in PRICE_ORDER.split(","))
# The sorts read a value at a time (`_by_value`), in either direction.
GROUPED = ("provider", "region", "instance_type", "gpu_model", "gpu_count", "price_model", "observed_at")
# The open rows' indexes a listing can read its order from (migrations 0010,
# 0011 and 0013), by their columns; an expression is named by its sort.
_INDEXES = (
    _ORDER[:6],
    ("region", "provider", "instance_type"),
    ("gpu_model", "provider", "region", "instance_type"),
    ("price_model", "term", "provider", "region", "instance_type"),
    ("instance_type",),
    ("gpu_count", "provider", "region", "instance_type"),
    ("valid_from", "provider", "region", "instance_type"),
    ("price",),
    ("hourly_price",),
    ("price_per_gpu_hour",),
)
# The filters a count and a short listing read by, most selective first.
_SELECTIVE = ("instance_type", "gpu_model", "region", "provider", "price_model")


def _filtered(f: PriceFilter) -> list[str]:
    """The columns `f` holds to one value (or a list of values)."""
    found = [
        n for n in ("provider", "region", "price_model", "instance_type", "availability", "currency") if getattr(f, n)
    ]
    return found + ["gpu_model"] * (f.gpu_models is not None) + ["provider"] * (f.regions is not None)


_COLUMNS = {"price_model": ("price_model", "term"), "observed_at": ("valid_from",)}


def _kept(f: PriceFilter, sort: str | None, fixed: tuple[str, ...] = ()) -> set[str]:
    """The filtered (or `fixed`) columns that lead the index a listing reads
    its order from: of the indexes whose next columns hold the order once
    these are fixed (for a sort read a value at a time, its key), the one
    with most."""
    one = {n for n in _filtered(f) if n != "gpu_model" or len(f.gpu_models or ()) == 1}
    if f.regions is not None:
        one.discard("provider")
    one |= set(fixed)
    wanted = list(_COLUMNS.get(sort or "", (sort,))) if sort else list(_ORDER)
    best: tuple[str, ...] = ()
    for columns in _INDEXES:
        n = next((i for i, c in enumerate(columns) if c not in one), len(columns))
        order = [c for c in wanted if c not in columns[:n]]
        if (not order or columns[n : n + 1] == (order[0],)) and n > len(best):
            best = columns[:n]
    return set(best)


def _selective(f: PriceFilter) -> set[str]:
    """The filtered column a count reads by (SQLite, without statistics,
    takes the first index it finds for any of them): a single instance type's
    index; else, of the indexes led by a filtered column, the one holding
    most of the filtered columns (checked in the index, not in each row: the
    spot prices of a region are counted in the price model's index, 25 ms
    instead of 50 for 10,000 of a million), the more selective on a tie."""
    filtered = set(_filtered(f))
    if "instance_type" in filtered:
        return {"instance_type"}
    led = [c for c in _INDEXES if c[0] in filtered]
    if not led:
        return set()
    best = max(led, key=lambda c: (len(filtered & set(c)), -_SELECTIVE.index(c[0])))
    return {best[0]}


def _price_where(f: PriceFilter, conn: sa.Connection, keep: set[str] | None = None) -> list[sa.ColumnElement[bool]]:
    """The conditions of `f` (`PriceFilter.terms`, the one statement of each).
    With `keep` (SQLite), the conditions on other columns are one term,
    `coalesce(a AND b ..., 0)`, that no index serves: many rows match, so the
    page is read in the index that holds its order (or by the one filter in
    `keep`) and the rows are checked. Without statistics SQLite would rather
    read every match by a filter's index, and given two terms it cannot use,
    scan any index and sort every row."""
    if unread := f.unpaged():
        raise ValueError(f"the dashboard's listings do not filter on {', '.join(unread)}")
    where: list[sa.ColumnElement[bool]] = []
    checked: list[sa.ColumnElement[bool]] = []
    for term in f.terms(Db(conn.connection.driver_connection, conn.dialect.name)):
        clause = sa.and_(_bound(term.sql, term.params))
        (checked if keep is not None and any(n not in keep for n in term.names) else where).append(clause)
    if checked:
        where.append(sa.func.coalesce(sa.and_(*checked), sa.false(), type_=sa.Boolean))
    return where


_BOUND = itertools.count()


def _bound(sql: str, params: Sequence[Any]) -> sa.TextClause:
    """A statement of `db.store.reads.rows` (`?` placeholders) run through
    SQLAlchemy: on the engine's connection, its failures are SQLAlchemy's
    (`tracker.web.answers.retried` asks again when one is transient). Its
    parameters are named apart from every other's in the statement."""
    parts = sql.split("?")
    names = [f"p{next(_BOUND)}" for _ in params]
    text = parts[0] + "".join(f":{name}{part}" for name, part in zip(names, parts[1:], strict=True))
    return sa.text(text).bindparams(**dict(zip(names, params, strict=True)))


def _decode_price(row: dict[str, Any]) -> dict[str, Any]:
    for name in DECIMAL_FIELDS:
        if row.get(name) is not None:
            row[name] = Decimal(row[name])
    row["attrs"] = json.loads(row.get("attrs") or "{}")
    return row


# A listing counts its matches up to here: counting a million open prices
# takes longer than showing a page of them (docs/performance.md).
COUNT_CAP = 10_000


@dataclass(frozen=True)
class PricePage:
    rows: list[dict[str, Any]]
    # How many match: exactly, or at least this many when `exact` is false.
    total: int
    exact: bool


def _select_prices(
    conn: sa.Connection,
    where: list[sa.ColumnElement[bool]],
    order: list[Any],
    limit: int,
    offset: int,
    *,
    few: bool = False,
) -> list[dict[str, Any]]:
    """The page of rows matching `where` in `order`. `few`: the matches are
    read first, by the filters' indexes, then sorted (a fence the planner
    cannot see through, on SQLite and PostgreSQL alike)."""
    if limit <= 0:
        return []
    if few:
        matches = sa.select(_P).where(*where).cte("matches").prefix_with("MATERIALIZED")
        adapt = ClauseAdapter(matches)
        stmt = sa.select(matches).order_by(*[adapt.traverse(o) for o in order])
    else:
        stmt = sa.select(_P).where(*where).order_by(*order)
    return [_decode_price(dict(r._mapping)) for r in conn.execute(stmt.limit(limit).offset(offset))]


def _count(conn: sa.Connection, where: list[sa.ColumnElement[bool]], cap: int | None = None) -> int:
    found = sa.select(sa.literal(1)).select_from(_P).where(*where)
    if cap is not None:
        found = found.limit(cap)
    return int(conn.execute(sa.select(sa.func.count()).select_from(found.subquery())).scalar_one())


def _by_value(
    conn: sa.Connection,
    where: list[sa.ColumnElement[bool]],
    keys: list[Any],
    descending: bool,
    limit: int,
    offset: int,
    share: Callable[[list[sa.ColumnElement[bool]]], list[sa.ColumnElement[bool]]] | None = None,
) -> list[dict[str, Any]]:
    """The page sorted by `keys` in either direction, ties in the CLI's order,
    read a value at a time: the values of the first offset + limit rows in the
    index of `keys` (a descending sort reads it backwards), then each value's
    share of the page, its rows in that index's order. One index per key
    serves both directions, which ORDER BY key DESC, provider ASC, ... cannot
    read from any index; a page reads about offset + limit index entries."""
    raw = [sa.type_coerce(k, NullType()) for k in keys]  # values compared as stored (times as text on SQLite)
    first = sa.select(*raw).select_from(_P).where(*where).order_by(*[k.desc() if descending else k for k in keys])
    runs: list[list[Any]] = []
    for row in conn.execute(first.limit(offset + limit)):
        value = tuple(row)
        if runs and runs[-1][0] == value:
            runs[-1][1] += 1
        else:
            runs.append([value, 1])
    order = [_P.c[name] for name in _ORDER if not any(k is _P.c.get(name) for k in keys)]
    rows: list[dict[str, Any]] = []
    start = 0
    for value, n in runs:
        skip = max(offset - start, 0)
        take = min(offset + limit - start, n) - skip
        if take > 0:
            same = [r == v for r, v in zip(raw, value, strict=True)]
            rows += _select_prices(conn, share(same) if share else [*where, *same], order, take, skip)
        start += n
    return rows


def _one_value(
    conn: sa.Connection, f: PriceFilter, sort: str, cap: int
) -> Callable[[list[sa.ColumnElement[bool]]], list[sa.ColumnElement[bool]]]:
    """How SQLite reads one value's share of a filtered page sorted by value:
    a value held by few open prices by its index; else by the index that
    best holds the CLI's order with the filters and the value fixed (a
    region's, say, where the value's own index would walk past every other
    region of the value's rows)."""
    names = _COLUMNS.get(sort, (sort,))

    def share(same: list[sa.ColumnElement[bool]]) -> list[sa.ColumnElement[bool]]:
        if _count(conn, [_P.c.valid_to.is_(None), *same], cap + 1) <= cap:
            return [*_price_where(f, conn, keep=set()), *same]
        kept = _kept(f, None, fixed=names)
        if set(names) <= kept:
            return [*_price_where(f, conn, keep=kept - set(names)), *same]
        return [*_price_where(f, conn, keep=kept), sa.func.coalesce(sa.and_(*same), sa.false(), type_=sa.Boolean)]

    return share


def page_prices(
    conn: sa.Connection,
    f: PriceFilter,
    *,
    sort: str | None = None,
    descending: bool = False,
    limit: int,
    offset: int,
    count_cap: int = COUNT_CAP,
) -> PricePage:
    """One page of the current prices matching `f`, and how many match (up to
    `count_cap`). Sorted by a column, the rows without a value come last in
    either direction. The matches are counted first (up to the cap): when
    they are few (for the store's size, the page's depth) they are read by
    the filters' indexes and sorted; else the
    rows with a value are read in the order an index holds them (migrations
    0011 and 0013), so a page reads about `offset + limit` rows of the index
    (more by the share of them a filter keeps)."""
    sqlite = conn.dialect.name == "sqlite"
    where = _price_where(f, conn, keep=_selective(f) if sqlite else None)
    matched = _count(conn, where, count_cap + 1)
    # Sorting the matches reads each of them; walking the order's index reads
    # about (offset + limit) x the store / matched entries: the fewer reads.
    size = conn.execute(sa.select(sa.func.max(_P.c.id))).scalar() or 0
    few = matched <= count_cap and matched * matched <= (offset + limit) * size
    if not few and sqlite:
        where = _price_where(f, conn, keep=_kept(f, sort))
    tiebreak = [_P.c[name] for name in _ORDER]
    if not sort:
        rows = _select_prices(conn, where, tiebreak, limit, offset, few=few)
    else:
        keys = SORTS[sort]()
        valued = [*where, *(k.is_not(None) for k in keys)]
        if sort in GROUPED and not few:
            share = _one_value(conn, f, sort, count_cap) if sqlite and _filtered(f) else None
            rows = _by_value(conn, valued, keys, descending, limit, offset, share)
        else:
            order = [k.desc() if descending else k.asc() for k in keys] + tiebreak
            rows = _select_prices(conn, valued, order, limit, offset, few=few)
        if len(rows) < limit:  # the page reaches the rows without a value
            with_value = offset + len(rows) if rows or not offset else _count(conn, valued)
            unvalued = [*where, sa.or_(*(k.is_(None) for k in keys))]
            rows += _select_prices(conn, unvalued, tiebreak, limit - len(rows), max(0, offset - with_value), few=few)
    if matched <= count_cap:
        return PricePage(rows, matched, True)
    if len(rows) < limit and (rows or offset == 0):  # the last page: the count is known
        return PricePage(rows, offset + len(rows), True)
    if not rows:  # past the last page: how far, exactly
        return PricePage(rows, _count(conn, _price_where(f, conn, keep=_selective(f) if sqlite else None)), True)
    return PricePage(rows, max(count_cap, offset + len(rows)), False)


# The filter lists' columns that lead an index of the open prices (0011, 0013):
# their values are read by jumping from one to the next in the index.
_SKIPPED = ("provider", "price_model", "gpu_model")


def _skip_scan(name: str) -> sa.TextClause:
    """Each distinct open value of `name`, one index search per value (a loose
    index scan: a DISTINCT would walk the whole index, a million entries)."""
    return sa.text(
        f"WITH RECURSIVE v(x) AS (SELECT min({name}) FROM price_points WHERE valid_to IS NULL "
        f"UNION ALL SELECT (SELECT min({name}) FROM price_points WHERE valid_to IS NULL AND {name} > v.x) "
        f"FROM v WHERE v.x IS NOT NULL) SELECT x FROM v WHERE x IS NOT NULL"
    )


def price_facets(conn: sa.Connection) -> dict[str, list[str]]:
    """The values the prices page offers in its filter lists. The currencies
    and availabilities, which lead no index, in one read of the table (on
    SQLite reading the table through: walking an index and fetching each row
    took 27 and 42 s at a million prices, a read of the table 1 to 4 s)."""
    found = {name: sorted(v for (v,) in conn.execute(_skip_scan(name)) if v) for name in _SKIPPED}
    table = "price_points NOT INDEXED" if conn.dialect.name == "sqlite" else "price_points"
    pairs = conn.execute(sa.text(f"SELECT DISTINCT currency, availability FROM {table} WHERE valid_to IS NULL")).all()
    found["availability"] = sorted({a for _, a in pairs if a})
    found["currency"] = sorted({c for c, _ in pairs if c})
    return {name: found[name] for name in ("provider", "price_model", "availability", "currency", "gpu_model")}


def page_changes(
    conn: sa.Connection, f: ChangeFilter, *, limit: int, offset: int = 0, newest_first: bool = True
) -> tuple[list[dict[str, Any]], int]:
    """One page of the changes matching `f` (newest first by default), and
    how many match: the statements of `db.store.reads.rows.changes`."""
    db = Db(None, conn.dialect.name)
    sql, params = changes_sql(db, f, limit=limit, offset=offset, newest_first=newest_first)
    found = [change_row(dict(r._mapping)) for r in conn.execute(_bound(sql, params))]
    return found, int(conn.execute(_bound(*change_count_sql(db, f))).scalar_one())
