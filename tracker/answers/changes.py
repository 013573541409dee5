"""The `changes` answer: the recorded changes (price drops and rises, new
and removed SKUs, stock, offers, broken sources), its request and columns.
`gpu-tracker changes` builds a `ChangesRequest` and calls `rows`; the
dashboard's changes page, its overview and instance pages, /api/changes and
the Atom feed build the same request and read one page of it (`page`), newest
first unless asked. The statements are `db.store.reads.rows.changes`'."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from db.kinds import ChangeKind, PriceModel
from tracker.answers.columns import CHANGE_COLUMNS, CHANGE_TABLE, change_dict

if TYPE_CHECKING:
    import sqlalchemy as sa

    from db.store.reads.connection import Db
    from db.store.reads.rows import ChangeFilter

COLUMNS, TABLE = CHANGE_COLUMNS, CHANGE_TABLE
EMPTY = "no changes"
# The kinds a request may name, as the CLI offers them and the API checks them.
KINDS = [k.value for k in ChangeKind]


@dataclass(frozen=True)
class ChangesRequest:
    """Which changes, and how many: every field narrows. `gpu` matches the
    GPU model in part, ignoring case; `until` is exclusive."""

    since: datetime | None = None
    until: datetime | None = None
    provider: str | None = None
    kinds: tuple[ChangeKind, ...] = ()
    region: str | None = None
    gpu: str | None = None
    price_model: PriceModel | None = None
    instance_type: str | None = None
    # At most this many (the CLI's --limit, oldest first unless `newest_first`).
    limit: int | None = None
    newest_first: bool = False

    def where(self) -> ChangeFilter:
        """The filter of `db.store.reads.rows`, each choice as stored."""
        from db.store.reads.rows import ChangeFilter

        return ChangeFilter(
            since=self.since,
            until=self.until,
            provider=self.provider,
            kinds=[ChangeKind(k).value for k in self.kinds] or None,
            region=self.region,
            gpu=self.gpu,
            price_model=PriceModel(self.price_model).value if self.price_model else None,
            instance_type=self.instance_type,
        )


def row(change: dict[str, Any], *, words: bool = True) -> dict[str, Any]:
    """One change as stored, as the `COLUMNS` row (`tracker.answers.columns.change_dict`)."""
    return change_dict(change, words=words)


def stored(store: Db | sa.Engine, request: ChangesRequest) -> list[dict[str, Any]]:
    """The changes as stored (exact numbers still text), in the request's order."""
    from db.store.reads.connection import open_db
    from db.store.reads.rows import changes

    with open_db(store) as db:
        return changes(db, request.where(), limit=request.limit, newest_first=request.newest_first)


def rows(store: Db | sa.Engine, request: ChangesRequest, *, words: bool = True) -> list[dict[str, Any]]:
    """The changes as `COLUMNS` rows; with `words`, what moved in words (the table's `change`)."""
    return [change_dict(c, words=words) for c in stored(store, request)]


def page(
    conn: sa.Connection, request: ChangesRequest, *, offset: int = 0, words: bool = False
) -> tuple[list[dict[str, Any]], int]:
    """One page of `request.limit` rows from `offset`, as `rows` gives them, and how many match in all."""
    found, total = page_stored(conn, request, offset=offset)
    return [change_dict(c, words=words) for c in found], total


def page_stored(conn: sa.Connection, request: ChangesRequest, *, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
    """One page of the changes as stored (the Atom feed's), and how many match in all."""
    from db.store.reads.browse import page_changes

    return page_changes(
        conn, request.where(), limit=request.limit or 100, offset=offset, newest_first=request.newest_first
    )
