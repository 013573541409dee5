"""The Python API over the store: history, comparison, TCO, plots, report and exports as pandas frames."""
