"""Prices a run wrote and then held back (a slip of one page of the
source's answer, tracker/run/diff/slips.py): their rows of this run deleted and
the rows they replaced open again, in the run's transaction, as if the run
had never seen them."""

from __future__ import annotations

from collections.abc import Collection, Mapping

import sqlalchemy as sa

from db.store.writes.run_store import IN_LIST, RunStore, _among
from db.tables import PricePoint


def keep_last_good(store: RunStore, keys: Collection[str], replaced: Mapping[str, int]) -> int:
    """For each of `keys`: the open row this run wrote deleted, and the row
    it replaced (`replaced`: key -> id) open again. The rows deleted."""
    t = PricePoint.__table__
    postgres = store.session.connection().dialect.name == "postgresql"
    conn = store.session.connection()
    ordered = sorted(keys)
    deleted = 0
    for start in range(0, len(ordered), IN_LIST):
        among = _among(postgres, t.c.key, ordered[start : start + IN_LIST])
        stmt = sa.delete(t).where(among, t.c.source == store.source, t.c.first_run_id == store.run_id)
        deleted += conn.execute(stmt.where(t.c.valid_to.is_(None))).rowcount
    ids = sorted(replaced[key] for key in keys if key in replaced)
    for start in range(0, len(ids), IN_LIST):
        among = _among(postgres, t.c.id, ids[start : start + IN_LIST])
        conn.execute(sa.update(t).where(among).values(valid_to=None))
    store.rows_written -= deleted
    return deleted
