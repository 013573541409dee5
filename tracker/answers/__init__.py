"""What the command line and the web both answer with: the column contract
of every listing (`columns`), and the rows as both show them (`rows`).
`tracker/cli/` and `tracker/web/` stand on this package, never on each
other (the command line imports the web only to start it)."""
