"""The store: engines and migrations, reading it, and writing one run."""
