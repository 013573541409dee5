"""The daemon: sources crawled on their schedules, delivery, staleness and metrics."""
