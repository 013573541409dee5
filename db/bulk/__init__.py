"""The bulk path: `encoding` spells a quote as a stored row tuple, `writer`
inserts those tuples at the driver's own speed."""
