"""TODO law."""
