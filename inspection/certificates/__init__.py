"""TODO certificates."""
