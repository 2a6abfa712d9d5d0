"""TODO dashboard."""
