"""The one query layer: every read of the store is defined here once.

- `connection.py`: a DB-API connection and its dialect (`Db`), from
  `db.store.reads.reader` (no SQLAlchemy) or from an engine or ORM session;
- `rows.py`: the filters (`PriceFilter`, `ChangeFilter`, each the one
  statement of what a question narrows to) and the rows under them: prices,
  changes, runs;
- `rates.py`: the one hourly-rate expression (and per GPU-hour), the text
  migration 0011 indexes;
- `rankings.py`: the analytics' aggregates (cheapest rate per instance and
  kind of price, GPU shapes, cheapest per GPU model), for ranking only;
- `reader.py`: a current store opened without the ORM (the command line's
  simple queries);
- `session.py`: the same reads on an ORM session, for the callers that
  hold one (a crawl, an import, a command that writes), rows read like the ORM's;
- `browse.py`: the dashboard's paged listings of prices and changes, each
  page answered from an index, under the same filters.

The writes that are not one run's (runs left 'running' aborted, changes in
bulk) are `db.store.writes.runs`.
"""
