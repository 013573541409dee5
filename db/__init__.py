"""Storage: value types, tables, the store and its migrations."""
