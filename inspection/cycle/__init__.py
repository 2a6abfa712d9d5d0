"""TODO cycle."""
