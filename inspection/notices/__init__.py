"""TODO notices."""
