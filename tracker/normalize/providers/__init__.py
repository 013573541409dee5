"""One module per provider: raw items -> value types (`normalize`, and
`normalize_api` for the official-API source where there is one)."""
