"""TODO media."""
