"""`recommend`: from needs to a ranked list of concrete options.

- `rank.py`: the needs (`Needs`) and the ranking of options with their "why";
- `fit.py`: which prices can hold a job at all;
- `store.py`: the same ranking asked of the store, reading only what can rank.

The names a caller of the Python API uses are here:
`from tracker.analytics.recommend import Needs, recommend`.
"""

from tracker.analytics.recommend.rank import RECOMMEND_COLUMNS, RECOMMEND_TABLE, Needs, load_throughput, recommend

__all__ = ["RECOMMEND_COLUMNS", "RECOMMEND_TABLE", "Needs", "load_throughput", "recommend"]
