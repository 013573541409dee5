"""The one query layer: every read of the store is defined here once.

- `connection.py`: a DB-API connection and its dialect (`Db`), from
  `db.store.reads.reader` (no SQLAlchemy) or from an engine or ORM session;
- `rows.py`: prices under the commands' filters, changes, runs;
- `rankings.py`: the analytics' aggregates (cheapest rate per instance and
  kind of price, GPU shapes, cheapest per GPU model), for ranking only;
- `reader.py`: a current store opened without the ORM (the command line's
  simple queries);
- `browse.py`, `browse_changes.py`: the dashboard's paged listings, each
  page answered from an index.
"""
