"""TODO web."""
