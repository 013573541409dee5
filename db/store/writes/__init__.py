"""What a run writes and keeps: its own rows (`run_store`), offers as
intervals (`offers`), the kept rates per instance type (`summary`), the
prices held as suspect (`suspects`), and the rewind before a reprocess
(`rewind`)."""
