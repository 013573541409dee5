"""The commands, one module per group; each has `register(app)`."""
