"""What a run writes and keeps: its own rows (`run_store`), offers as
intervals (`offers`), the kept rates per instance type (`summary`), the
prices held as suspect (`suspects`), the prices a run held back at their
last good value (`held`), and the rewind before a reprocess (`rewind`)."""
