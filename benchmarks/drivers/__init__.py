"""The plain programs a benchmark starts beside ours: the raw loads and
change writes its figures are ratios against (`raw_load`, `raw_changes`),
and the clients that load the web app (`loadgen`)."""
