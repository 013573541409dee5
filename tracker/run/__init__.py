"""One run of a source, end to end: the only place where crawl, normalize, store, diff and alert meet."""
