"""TODO core."""
